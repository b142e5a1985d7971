// The table as the players see it: each game's objects drawn from the engine's state
// (the live view and every replay step use the same drawing), by the game's own script.
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

// Each game's drawing is a script of its own (static/games/<game>.js, named by the game's
// spec: calibration.games) that registers itself here; a game with none is shown as rows.
const TABLES = {};

// `phases`: what the player to move has to do in each phase of the state, in the rules' words
function registerTable(game, draw, phases = {}) { TABLES[game] = {draw, phases}; }

// The drawing scripts of the games the server lists (`table` of /api/games), loaded once.
const tablesLoaded = new Map();
function loadTables(games) {
  return Promise.all(games.filter((g) => g.table).map((g) => {
    if (!tablesLoaded.has(g.table)) {
      tablesLoaded.set(g.table, new Promise((resolve) => {
        const script = el("script", {src: g.table});
        script.addEventListener("load", resolve);
        script.addEventListener("error", resolve);  // drawn as rows, then
        document.head.append(script);
      }));
    }
    return tablesLoaded.get(g.table);
  }));
}

function drawTable(view) {
  const draw = (TABLES[view.game] || {}).draw || genericTable;
  try { return draw(view); } catch (e) {
    // a state this page does not know how to draw: show it plainly rather than nothing
    console.warn("table drawing failed", e);
    return genericTable(view);
  }
}

// --- turn, scores, result ------------------------------------------------------------------
function phaseText(view) {
  if (view.outcome || !view.state) return "";
  return ((TABLES[view.game] || {}).phases || {})[view.state.phase] || "";
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
