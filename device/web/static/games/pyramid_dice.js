// Pyramid Dice's table on the phone, drawn from the engine's state; registered by name (the game's
// spec, calibration/games/pyramid_dice.py, gives this script to the page).
"use strict";

// `pick`: the mark a tap on it gives (tap.js): its slot, or "side:<id>" in the side area
function cardBox(card, {slot = null, open = false, taken = false, pick = null} = {}) {
  if (taken || !card) {
    return el("span", {class: "card taken", title: slot ? `${slot}: taken` : "taken", "data-slot": slot}, "·");
  }
  const god = card.kind === "god";
  return el("span", {class: `card ${god ? "god" : ""} ${open ? "open" : ""}`, "data-slot": slot,
    "data-pick": pick,
    title: `${slot ? slot + ": " : ""}${card.id} — number ${card.number}, ${card.points} points, back ${card.back}${god ? ", " + card.ability : ""}`},
    el("b", {}, String(card.number)),
    el("small", {}, god ? card.ability : `${card.points}pt`));
}

function pyramidDiceTable(view) {
  const s = view.state;
  const byId = Object.fromEntries(s.cards.map((c) => [c.id, c]));
  const present = s.pyramid;
  const out = [];
  const dice = s.dice && s.dice.length ? el("div", {class: "dice"}, ...s.dice.map(([face, value]) =>
    die(value, {title: face === value ? `shows ${face}` : `shows ${face}, counts ${value}`, cls: face === value ? "" : "changed"})))
    : el("span", {class: "none"}, "not rolled");
  out.push(section("Dice", dice, s.ra_used ? el("span", {class: "phase"}, ` Ra used ${s.ra_used}×`) : ""));
  // rows from the slot names r{row}c{col}; any other layout is listed in order
  const rows = new Map();
  let shaped = true;
  for (const slot of s.layout) {
    const m = slot.slot.match(/^r(\d+)c(\d+)$/);
    if (!m) { shaped = false; break; }
    if (!rows.has(+m[1])) rows.set(+m[1], []);
    rows.get(+m[1]).push(slot);
  }
  const isOpen = (slot) => slot.covered_by.every((c) => !(c in present));
  const box = (slot) => cardBox(byId[present[slot.slot]], {slot: slot.slot, open: slot.slot in present && isOpen(slot),
    taken: !(slot.slot in present), pick: slot.slot in present ? slot.slot : null});
  const pyramid = el("div", {class: "pyramid"});
  if (shaped) {
    for (const r of [...rows.keys()].sort((a, b) => a - b)) pyramid.append(el("div", {class: "pyr-row"}, ...rows.get(r).map(box)));
  } else {
    pyramid.append(el("div", {class: "pyr-row wrap"}, ...s.layout.map(box)));
  }
  out.push(section(`Pyramid (${Object.keys(present).length} left)`, pyramid));
  if (s.side.length) out.push(section("Side area", el("div", {class: "cards"}, ...s.side.map((id) => cardBox(byId[id], {pick: `side:${id}`})))));
  s.areas.forEach((area, i) => {
    const extra = [s.strengthened[i] ? "Ra strengthened" : "", s.hidden[i].length ? `${s.hidden[i].length} snatched` : ""].filter(Boolean).join(" · ");
    out.push(section(`${playerName(view.names, i)}'s cards${extra ? " · " + extra : ""}`,
      area.length ? el("div", {class: "cards"}, ...area.map((id) => cardBox(byId[id]))) : el("span", {class: "none"}, "none")));
  });
  if (s.provenance && /EXAMPLE/.test(s.provenance.cards || "")) {
    out.push(el("p", {class: "hint"}, `Cards: ${s.provenance.cards}.`));
  }
  return out;
}

function pyramidDiceTaps(action) {
  let m = action.match(/^(?:take|remove) (r\d+c\d+)$/);
  if (m) return [m[1]];
  m = action.match(/^take side (\S+)$/);
  return m ? [`side:${m[1]}`] : [];
}

registerTable("pyramid_dice", pyramidDiceTable, {
  roll: "roll the three dice", act: "use abilities, then take a card or give up"}, {
  taps: pyramidDiceTaps,
  tapHint: () => "Tap the card you take (ringed: the open cards), or the one you put aside when you give up.",
  words: {remove: "give up and put aside", take: "take", side: "from the side area"},
  topics: {roll: ["die 1", "die 2", "die 3"]},
});
