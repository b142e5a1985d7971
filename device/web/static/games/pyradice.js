// Pyradice's table on the phone, drawn from the engine's state; registered by name (the game's
// spec, calibration/games/pyradice.py, gives this script to the page). A move is two taps: a
// quarry die (its slot, "L3-1"), then a space of the mover's pyramid ("1-1").
"use strict";

function pyradiceDie(text, pick = null) {
  if (!text) return el("span", {class: "die empty", "data-pick": pick, title: pick ? `space ${pick}` : null}, "");
  const [value, colour] = text.split(" ");
  const d = die(value, {colour, title: text});
  if (pick) d.dataset.pick = pick;
  return d;
}

function pyradicePyramid(view, board, p) {
  const pyr = el("div", {class: "pyramid"});
  const mine = p === view.to_move;  // only the mover's spaces take a die
  let start = 0;
  const levels = [];
  for (let size = 6; size >= 1; size--) { levels.push(board.slice(start, start + size)); start += size; }
  levels.forEach((level, i) => {
    const lv = i + 1;
    pyr.prepend(el("div", {class: "pyr-row"},
      ...level.map((d, k) => pyradiceDie(d, mine ? `${lv}-${k + 1}` : null)), el("small", {class: "lvl"}, `L${lv}`)));
  });
  return pyr;
}

function pyradiceTable(view) {
  const s = view.state;
  const out = [];
  const defs = Object.fromEntries(s.definitions.map((d) => [d.id, d]));
  const quarry = el("div", {class: "quarry"});
  s.quarry.layers.forEach((dims, k) => {
    const [, cols] = dims.split("x").map(Number);
    const grid = el("div", {class: "grid"}, ...s.quarry.dice[k].map((d, i) => pyradiceDie(d, d ? `L${k + 1}-${i + 1}` : null)));
    grid.style.gridTemplateColumns = `repeat(${cols}, 2.3rem)`;  // CSSOM: the CSP allows no style attribute
    quarry.prepend(el("div", {class: "layer"}, el("small", {}, `layer ${k + 1}`), grid));
  });
  out.push(section("Quarry", quarry));
  // the mover's pyramid first: the second tap is on it
  const order = s.boards.map((_, p) => p).sort((a, b) => (b === view.to_move) - (a === view.to_move));
  for (const p of order) out.push(section(`${playerName(view.names, p)}'s pyramid`, pyradicePyramid(view, s.boards[p], p)));
  const first = (s.options || {}).objective_levels === "2-6" ? 2 : 1;
  const token = (id, level) => el("li", {}, el("b", {}, `${id} `), el("small", {}, `level ${level}: `),
    defs[id] ? defs[id].text : "", defs[id] && /EXAMPLE/.test(defs[id].provenance) ? el("small", {}, " (example)") : "");
  // the token texts are long and the same all match: folded, so the pyramids stay in sight
  out.push(el("details", {class: "zone tokens"}, el("summary", {}, "Skill and objective tokens, objective cards"),
    section("Skill tokens", el("ul", {class: "defs"}, ...s.skills.map((id, i) => token(id, i + 2)))),
    section("Objective tokens", el("ul", {class: "defs"}, ...s.objectives.map((id, i) => token(id, i + first)))),
    section("Objective cards", el("ul", {class: "defs"}, ...s.cards.map(([id, colour]) => el("li", {},
      piece(colour, "S"), el("b", {}, ` ${id} `), defs[id] ? defs[id].text : ""))))));
  return out;
}

function pyradiceTaps(action) {
  const m = action.match(/^take (L\d+-\d+) to (\d+-\d+)/);
  return m ? [m[1], m[2]] : [];
}

registerTable("pyradice", pyradiceTable,
  (view) => view.to_move === null || view.to_move === undefined ? ""
    : "take an available die from the quarry and place it on your pyramid", {
    taps: pyradiceTaps,
    tapHint: (picks) => picks.length
      ? `Now tap the space of your pyramid for the die from ${picks[0]}.`
      : "Tap the die you take from the quarry (ringed: the ones with 3 free faces).",
    words: {take: "take", to: "to space", use: "and use skill", "+1": "+1 on", "-1": "−1 on"},
  });
