// IceDice's table on the phone, drawn from the engine's state; registered by name (the game's
// spec, calibration/games/icedice.py, gives this script to the page).
"use strict";

function iceDiceTable(view) {
  const s = view.state;
  const out = [];
  const dice = s.dice ? el("div", {class: "dice"},
    die(s.dice[0], {colour: COLOURS[s.dice[0]] ? s.dice[0] : null, title: "colour die: " + s.dice[0]}),
    die(s.dice[1], {title: "size die: " + s.dice[1]})) : el("span", {class: "none"}, "not rolled");
  out.push(section("Dice", dice));
  out.push(section("Counter", pieces(s.counter)));
  // a piece of the Bank is taken by tapping it; one in a Vault is stolen ("P2:red M")
  const bank = el("div", {class: "bank"});
  for (const colour of s.colours) {
    const mine = s.bank.filter((p) => p.startsWith(colour + " "));
    bank.append(el("div", {class: "bank-row"}, el("span", {class: "label"}, colour), pieces(mine, (t) => t)));
  }
  out.push(section("Bank", bank));
  s.vaults.forEach((v, i) => out.push(section(`${playerName(view.names, i)}'s vault`,
    pieces(v, (t) => `P${i + 1}:${t}`))));
  return out;
}

function iceDiceTaps(action) {
  let m = action.match(/^take (\S+) (\S+)$/);
  if (m) return [`${m[1]} ${m[2]}`];
  m = action.match(/^steal (\S+) (\S+) from (P\d+)$/);
  return m ? [`${m[3]}:${m[1]} ${m[2]}`] : [];
}

// what the player to move has to do, in the rules' words (the state's phase)
registerTable("icedice", iceDiceTable, {
  roll: "roll the dice", choose: "take the rolled pyramid", decide: "roll again or stop",
  bust: "bust: return the Counter to the Bank", rainbow: "move the Rainbow to the Vault"}, {
  taps: iceDiceTaps,
  tapHint: () => "Tap the piece you take (ringed: the ones the dice give you).",
  words: {S: "small", M: "medium", L: "large", SM: "small+medium", SL: "small+large",
    ML: "medium+large", atom: "Atom", star: "star"},
  topics: {roll: ["colour die", "size die"], take: ["colour", "size"], steal: ["colour", "size"]},
});
