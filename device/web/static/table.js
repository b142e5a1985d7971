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

// `pick`: the mark a tap on it gives (tap.js), when a move can be made with it
function piece(colour, size, pick = null) {
  const p = el("span", {class: `piece size-${size}`, title: `${colour} ${size}`,
    "aria-label": `${colour} ${size}`, "data-pick": pick});
  p.style.setProperty("--c", colourOf(colour));
  return p;
}

function pieces(list, pickOf = null) {
  if (!list.length) return el("span", {class: "none"}, "none");
  return el("span", {class: "pieces"}, ...list.map((t) => {
    const [c, s] = t.split(" ");
    return piece(c, s, pickOf ? pickOf(t) : null);
  }));
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
// (a map by the state's phase, or a function of the view for a game without phases).
// `more`, all optional:
//   taps(action) -> the marks (data-pick) of the drawn table an action is made by, in the
//     order they are tapped (Pyradice: the quarry die, then the pyramid space); [] for an
//     action that is not made by tapping (a roll): it stays in the list
//   tapHint(picks, view) -> what to tap next, in words
//   words: plain words for the words of the game's actions ("L" -> "large")
//   topics: what the k-th word of an action with this verb is about ({roll: ["colour die",
//     "size die"]}), for questions in plain words
function registerTable(game, draw, phases = {}, more = {}) { TABLES[game] = {draw, phases, ...more}; }
function tableOf(game) { return TABLES[game] || {}; }

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
  const phases = tableOf(view.game).phases || {};
  const said = typeof phases === "function" ? phases(view) : phases[view.state.phase];
  if (said) return said;
  return view.to_move === null || view.to_move === undefined ? "" : "make a move";
}

// --- actions in plain words ----------------------------------------------------------------
// An action's words through the game's vocabulary: "roll atom ML" -> "roll Atom medium+large".
function say(game, text) {
  return text.split(";").map((part) => part.trim().split(" ").map((w) => plainWord(game, w)).join(" ")).join(", then ");
}

// One word of an action: the game's own word for it, else its id with spaces ("basic_quiddity"
// -> "basic quiddity").
function plainWord(game, w) {
  return (tableOf(game).words || {})[w] || w.replace(/_/g, " ");
}

// A question between candidate actions, as a player reads it: when they differ in one word
// only, "Size die: large or medium+large?"; else "Which was it?" with each action said.
function plainQuestion(game, texts) {
  const g = tableOf(game);
  const split = texts.map((t) => t.trim().split(" "));
  const same = split.every((w) => w.length === split[0].length);
  const differs = same ? split[0].map((_, k) => split.some((w) => w[k] !== split[0][k])) : [];
  if (same && differs.filter(Boolean).length === 1 && texts.every((t) => !t.includes(";"))) {
    const k = differs.indexOf(true);
    const verb = split[0][0];
    const topic = ((g.topics || {})[verb] || [])[k - 1];
    const rest = split[0].filter((w, i) => i !== k && i > 0).map((w) => plainWord(game, w)).join(" ");
    const about = topic ? `${topic[0].toUpperCase()}${topic.slice(1)}${rest ? ` (${rest})` : ""}`
      : say(game, split[0].slice(0, k).join(" ")) || "Which";
    const choices = split.map((w) => plainWord(game, w[k]));
    return {question: `${about}: ${choices.join(" or ")}?`, choices};
  }
  const chains = chainQuestion(game, texts);
  if (chains) return chains;
  return {question: "Which was it?", choices: texts.map((t) => say(game, t))};
}

// Candidates of several moves each (a Quarriors draw: six dice drawn and rolled) mostly say
// the same: what all of them say is said once, and each choice is what only it says.
function chainQuestion(game, texts) {
  if (texts.length < 2 || !texts.some((t) => t.includes(";"))) return null;
  const lists = texts.map((t) => t.split(";").map((a) => a.trim()));
  let common = [...lists[0]];
  for (const list of lists.slice(1)) {
    const left = [...list];
    common = common.filter((a) => {
      const i = left.indexOf(a);
      if (i < 0) return false;
      left.splice(i, 1);
      return true;
    });
  }
  const own = lists.map((list) => {
    const left = [...common];
    return list.filter((a) => {
      const i = left.indexOf(a);
      if (i < 0) return true;
      left.splice(i, 1);
      return false;
    });
  });
  if (!common.length || own.some((o) => !o.length)) return null;
  return {question: `Which was it? All of them: ${brief(game, common)}; besides that:`,
    choices: own.map((o) => say(game, o.join("; ")))};
}

// A long run of moves said briefly: the same move repeated is said once with its count, and
// past `most` different moves the rest are counted ("and 3 more").
function brief(game, actions, most = 4) {
  const counts = new Map();
  for (const a of actions) counts.set(a, (counts.get(a) || 0) + 1);
  const parts = [...counts].map(([a, n]) => `${say(game, a)}${n > 1 ? ` ×${n}` : ""}`);
  const shown = parts.slice(0, most).join(", ");
  const rest = parts.length - most;
  return rest > 0 ? `${shown} and ${rest} more` : shown;
}

// A rule as the page names it: its words, never its id or the file it is quoted from.
function ruleName(rule) {
  if (!rule || rule === "core.unexplained") return "the table fits no move the rules allow";
  const name = rule.split(".").pop().replaceAll("_", " ");
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function ruleCitation(source, title) {
  if (!source || source === "engine") return "";
  if (source.startsWith("option:")) return `the match's option “${source.slice(7).replaceAll("_", " ")}”`;
  const section = source.includes("#") ? source.split("#").pop() : "";
  return section ? `${title} rules, “${section}”` : `${title} rules`;
}

function turnText(view) {
  if (view.outcome) return "Match over";
  if (view.to_move === null || view.to_move === undefined) return "";
  return `${playerName(view.names, view.to_move)} to play`;
}

function drawScores(view) {
  return view.scores.map((s) => {
    const parts = s.breakdown.filter((b) => b.points);
    // fixed columns (style.css): the score does not move when its breakdown appears
    return el("tr", {class: s.player === view.to_move ? "to-move" : ""},
      el("th", {scope: "row"}, playerName(view.names, s.player)),
      el("td", {class: "total"}, String(s.total)),
      el("td", {class: "breakdown"}, parts.length ? parts.map((b) => `${b.rule.replaceAll("_", " ")}: ${b.points}`).join(" · ") : "no points yet"));
  });
}

function outcomeText(view) {
  if (!view.outcome) return "";
  const who = view.outcome.winners.map((w) => playerName(view.names, w)).join(" and ");
  return `${who} ${view.outcome.winners.length > 1 ? "share the win" : "wins"} — ${view.outcome.reason}`;
}
