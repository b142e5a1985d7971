// The table as the players see it: each game's objects drawn from the engine's state
// (the live view and every replay step use the same drawing).
"use strict";

const COLOURS = {red: "#d62828", yellow: "#f4c20d", green: "#2a9d4f", blue: "#1f6fd1",
  black: "#222", cyan: "#19b3c7", purple: "#7b3fb5", white: "#fafafa", orange: "#f08a24"};

function colourOf(name) { return COLOURS[name] || "#888"; }

function section(title, ...children) {
  return el("div", {class: "zone"}, el("h3", {}, title), ...children);
}

function die(label, {colour = null, title = null, cls = ""} = {}) {
  const d = el("span", {class: "die " + cls, title: title || label}, String(label));
  if (colour) { d.style.background = colourOf(colour); d.classList.add("coloured"); }
  return d;
}

function piece(colour, size) {
  const p = el("span", {class: `piece size-${size}`, title: `${colour} ${size}`,
    "aria-label": `${colour} ${size}`});
  p.style.setProperty("--c", colourOf(colour));
  return p;
}

function pieces(list) {
  if (!list.length) return el("span", {class: "none"}, "none");
  return el("span", {class: "pieces"}, ...list.map((t) => { const [c, s] = t.split(" "); return piece(c, s); }));
}

// --- IceDice -------------------------------------------------------------------------------
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

// --- Pyramid Dice --------------------------------------------------------------------------
function cardBox(card, {slot = null, open = false, taken = false} = {}) {
  if (taken || !card) {
    return el("span", {class: "card taken", title: slot ? `${slot}: taken` : "taken", "data-slot": slot}, "·");
  }
  const god = card.kind === "god";
  return el("span", {class: `card ${god ? "god" : ""} ${open ? "open" : ""}`, "data-slot": slot,
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
  const box = (slot) => cardBox(byId[present[slot.slot]], {slot: slot.slot, open: slot.slot in present && isOpen(slot), taken: !(slot.slot in present)});
  const pyramid = el("div", {class: "pyramid"});
  if (shaped) {
    for (const r of [...rows.keys()].sort((a, b) => a - b)) pyramid.append(el("div", {class: "pyr-row"}, ...rows.get(r).map(box)));
  } else {
    pyramid.append(el("div", {class: "pyr-row wrap"}, ...s.layout.map(box)));
  }
  out.push(section(`Pyramid (${Object.keys(present).length} left)`, pyramid));
  if (s.side.length) out.push(section("Side area", el("div", {class: "cards"}, ...s.side.map((id) => cardBox(byId[id])))));
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

// --- Pyradice ------------------------------------------------------------------------------
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

// --- any other game: its state as readable rows --------------------------------------------
function genericTable(view) {
  const rows = [];
  const text = (v) => Array.isArray(v) ? (v.length ? v.map(text).join(", ") : "—")
    : (v && typeof v === "object") ? JSON.stringify(v) : String(v);
  for (const [key, value] of Object.entries(view.state)) {
    if (key === "game" || key === "options") continue;
    if (Array.isArray(value) && value.length && value.every(Array.isArray)) {
      value.forEach((v, i) => rows.push(el("div", {}, el("b", {}, `${key} ${playerName(view.names, i)}: `), text(v))));
    } else {
      rows.push(el("div", {}, el("b", {}, `${key}: `), text(value)));
    }
  }
  return rows;
}

const TABLES = {icedice: iceDiceTable, pyramid_dice: pyramidDiceTable, pyradice: pyradiceTable};

function drawTable(view) {
  const draw = TABLES[view.game] || genericTable;
  try { return draw(view); } catch (e) {
    // a state this page does not know how to draw: show it plainly rather than nothing
    console.warn("table drawing failed", e);
    return genericTable(view);
  }
}

// --- turn, scores, result ------------------------------------------------------------------
// What the player to move has to do, in the rules' words (the state's phase).
const PHASES = {
  icedice: {roll: "roll the dice", choose: "take the rolled pyramid", decide: "roll again or stop",
    bust: "bust: return the Counter to the Bank", rainbow: "move the Rainbow to the Vault"},
  pyramid_dice: {roll: "roll the three dice", act: "use abilities, then take a card or give up"},
};

function phaseText(view) {
  if (view.outcome || !view.state) return "";
  return (PHASES[view.game] || {})[view.state.phase] || "";
}

function turnText(view) {
  if (view.outcome) return "Match over";
  if (view.to_move === null || view.to_move === undefined) return "";
  return `${playerName(view.names, view.to_move)} to play`;
}

function drawScores(view) {
  return view.scores.map((s) => {
    const parts = s.breakdown.filter((b) => b.points);
    return el("tr", {class: s.player === view.to_move ? "to-move" : ""},
      el("th", {scope: "row"}, playerName(view.names, s.player)),
      el("td", {class: "total"}, String(s.total)),
      el("td", {class: "breakdown"}, parts.length ? parts.map((b) => `${b.rule}: ${b.points}`).join(" · ") : "—"));
  });
}

function outcomeText(view) {
  if (!view.outcome) return "";
  const who = view.outcome.winners.map((w) => playerName(view.names, w)).join(" and ");
  return `${who} ${view.outcome.winners.length > 1 ? "share the win" : "wins"} — ${view.outcome.reason}`;
}
