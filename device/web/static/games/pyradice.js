// Pyradice's table on the phone, drawn from the engine's state; registered by name (the game's
// spec, calibration/games/pyradice.py, gives this script to the page).
"use strict";

function pyradiceDie(text) {
  if (!text) return el("span", {class: "die empty"}, "");
  const [value, colour] = text.split(" ");
  return die(value, {colour, title: text});
}

function pyradiceTable(view) {
  const s = view.state;
  const out = [];
  const defs = Object.fromEntries(s.definitions.map((d) => [d.id, d]));
  const quarry = el("div", {class: "quarry"});
  s.quarry.layers.forEach((dims, k) => {
    const [rows, cols] = dims.split("x").map(Number);
    const grid = el("div", {class: "grid"}, ...s.quarry.dice[k].map(pyradiceDie));
    grid.style.gridTemplateColumns = `repeat(${cols}, 1.9rem)`;  // CSSOM: the CSP allows no style attribute
    quarry.prepend(el("div", {class: "layer"}, el("small", {}, `layer ${k + 1}`), grid));
  });
  out.push(section("Quarry", quarry));
  s.boards.forEach((board, p) => {
    const pyr = el("div", {class: "pyramid"});
    let start = 0;
    const levels = [];
    for (let size = 6; size >= 1; size--) { levels.push(board.slice(start, start + size)); start += size; }
    levels.reverse().forEach((level, i) => {
      pyr.append(el("div", {class: "pyr-row"}, ...level.map(pyradiceDie), el("small", {class: "lvl"}, `L${6 - i}`)));
    });
    out.push(section(`${playerName(view.names, p)}'s pyramid`, pyr));
  });
  const first = (s.options || {}).objective_levels === "2-6" ? 2 : 1;
  const token = (id, level) => el("li", {}, el("b", {}, `${id} `), el("small", {}, `level ${level}: `),
    defs[id] ? defs[id].text : "", defs[id] && /EXAMPLE/.test(defs[id].provenance) ? el("small", {}, " (example)") : "");
  out.push(section("Skill tokens", el("ul", {class: "defs"}, ...s.skills.map((id, i) => token(id, i + 2)))));
  out.push(section("Objective tokens", el("ul", {class: "defs"}, ...s.objectives.map((id, i) => token(id, i + first)))));
  out.push(section("Objective cards", el("ul", {class: "defs"}, ...s.cards.map(([id, colour]) => el("li", {},
    piece(colour, "S"), el("b", {}, ` ${id} `), defs[id] ? defs[id].text : "")))));
  return out;
}

registerTable("pyradice", pyradiceTable);
