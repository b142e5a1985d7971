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
  const bank = el("div", {class: "bank"});
  for (const colour of s.colours) {
    const mine = s.bank.filter((p) => p.startsWith(colour + " "));
    bank.append(el("div", {class: "bank-row"}, el("span", {class: "label"}, colour), pieces(mine)));
  }
  out.push(section("Bank", bank));
  s.vaults.forEach((v, i) => out.push(section(`${playerName(view.names, i)}'s vault`, pieces(v))));
  return out;
}

// what the player to move has to do, in the rules' words (the state's phase)
registerTable("icedice", iceDiceTable, {
  roll: "roll the dice", choose: "take the rolled pyramid", decide: "roll again or stop",
  bust: "bust: return the Counter to the Bank", rainbow: "move the Rainbow to the Vault"});
