// Quarriors!' table on the phone, drawn from the engine's state; registered by name (the game's
// spec, calibration/games/quarriors.py, gives this script to the page): the Wilds with the dice
// left on each card, each player's Active Pool, Ready Area, Spent Pile and Used Pile with the
// dice's faces, the bag's count, the turn's quiddity and the attack being resolved.
"use strict";

// the glory goal by players (the rulebook's chart)
const QUARRIORS_GOAL = {2: 20, 3: 15, 4: 12};
// the Power Card each die belongs to, from the setup form (/api/games/quarriors/setup)
const quarriorsCards = {byDie: {}, loaded: null};

function quarriorsLoadCards() {
  if (!quarriorsCards.loaded) {
    quarriorsCards.loaded = api("/api/games/quarriors/setup").then((form) => {
      for (const c of form.power_cards || []) (quarriorsCards.byDie[c.die] ||= []).push(c);
      // the live table drawn before the cards were known is drawn again with their names
      if (state.view && state.view.game === "quarriors") $("#m-table").replaceChildren(...drawTable(state.view));
    }).catch(() => {});
  }
  return quarriorsCards.loaded;
}

quarriorsLoadCards();

function quarriorsDieName(key) { return key.replaceAll("_", " "); }

// "witching_hag L2 4/5" -> a die showing its type and face
function quarriorsDie(text, {cls = "", pick = null, note = ""} = {}) {
  const at = text.indexOf(" ");
  const key = at < 0 ? text : text.slice(0, at);
  const face = at < 0 ? "" : text.slice(at + 1);
  return el("span", {class: `qdie ${cls}`, "data-die": key, "data-pick": pick,
    title: `${quarriorsDieName(key)}${face ? ": " + face : ""}${note ? " (" + note + ")" : ""}`},
    el("small", {}, quarriorsDieName(key)), el("b", {}, face || "·"));
}

function quarriorsDice(list, opts = {}) {
  if (!list.length) return el("span", {class: "none"}, "none");
  return el("span", {class: "qdice"}, ...list.map((t) => quarriorsDie(t, opts)));
}

function quarriorsCounts(counts) {
  const keys = Object.keys(counts);
  if (!keys.length) return el("span", {class: "none"}, "none");
  return el("span", {class: "qdice"}, ...keys.map((k) =>
    el("span", {class: "qcount", "data-die": k, title: `${counts[k]} ${quarriorsDieName(k)}`},
      el("small", {}, quarriorsDieName(k)), el("b", {}, `×${counts[k]}`))));
}

function quarriorsTable(view) {
  quarriorsLoadCards();
  const s = view.state;
  const out = [];
  const goal = QUARRIORS_GOAL[s.players];
  const turn = s.turn || {};
  const name = (p) => playerName(view.names, p);
  const info = [`Turn ${s.turn_no}`, `${name(s.current)}: ${turn.quiddity || 0} quiddity`];
  if (turn.captures !== undefined && s.phase === "capture") info.push(`${turn.captures} capture${turn.captures === 1 ? "" : "s"} left`);
  if (goal) info.push(`goal ${goal} glory`);
  out.push(el("p", {class: "qturn", id: "q-turn"}, info.join(" · ")));
  // a card's effect waiting for its owner before anything else (engine prompts.py)
  const PROMPTS = {draw: "draws into the Active Pool", roll: "rolls a set-aside die",
    ghost: "may cull a Basic Quiddity die to return the Ghostly Spirit", copy: "chooses what the Strong Primordial Ooze copies"};
  if (s.prompts && s.prompts.length) {
    const pr = s.prompts[0];
    out.push(el("p", {class: "qprompt", id: "q-prompt"}, `${name(pr.player)} ${PROMPTS[pr.kind] || pr.kind}`,
      pr.n ? ` (${pr.n} left)` : ""));
  }
  if (s.attack) {
    const a = s.attack;
    out.push(section("Attack", el("p", {class: "qattack", id: "q-attack"},
      `${name(s.current)} attacks: ${name(a.order[a.index])} defends, ${a.total} damage left`,
      a.order.length > 1 ? ` (then ${a.order.slice(a.index + 1).map(name).join(", ") || "nobody"})` : "")));
  }
  // the Wilds: the dice left on each card (the three basic cards first)
  const wilds = el("div", {class: "qwilds", id: "q-wilds"});
  const dice = Object.keys(s.wilds).concat(...s.cards.map(() => []));
  const shown = new Set();
  const card = (die, title) => {
    shown.add(die);
    const n = s.wilds[die] || 0;
    wilds.append(el("span", {class: `qcard ${n ? "" : "empty"}`, "data-die": die, title: `${title}: ${n} dice left`},
      el("small", {}, title), el("b", {}, String(n))));
  };
  for (const [die, title] of [["assistant", "Assistant"], ["basic_quiddity", "Basic Quiddity"], ["portal", "Portal"]]) card(die, title);
  for (const c of s.cards) {
    const known = Object.values(quarriorsCards.byDie).flat().find((x) => x.name === c);
    card(known ? known.die : c, c);
  }
  for (const die of dice) if (!shown.has(die)) card(die, quarriorsDieName(die));
  out.push(section("The Wilds", wilds));
  s.seats.forEach((seat, p) => {
    const zones = el("div", {class: "qzones"});
    const zone = (title, id, body) => zones.append(el("div", {class: "qzone", id: `q-${id}-${p}`}, el("h4", {}, title), body));
    zone("Active Pool", "active", quarriorsDice(seat.active));
    zone("Ready Area", "ready", seat.ready.length ? el("span", {class: "qdice"}, ...seat.ready.map((r, i) => {
      const notes = [];
      if (r.attached) notes.push("with " + r.attached.map((a) => quarriorsDieName(a[1])).join(", "));
      if (r.copy) notes.push(`copies ${r.copy[0]} (${r.copy[1]})`);
      if (r.damaged) notes.push("damaged");
      return quarriorsDie(`${r.die} ${r.face}`, {cls: r.damaged ? "damaged" : "", note: notes.join(", "), pick: `P${p + 1} r${i + 1}`});
    })) : el("span", {class: "none"}, "none"));
    zone("Spent Pile", "spent", quarriorsDice(seat.spent));
    zone("Used Pile", "used", quarriorsCounts(seat.used));
    if (seat.aside && Object.keys(seat.aside).length) zone("Set aside", "aside", quarriorsCounts(seat.aside));
    const bag = Object.values(seat.bag).reduce((a, b) => a + b, 0);
    out.push(section(`${name(p)}${p === s.current && !view.outcome ? " (turn)" : ""} · ${seat.glory} glory · ${bag} in the bag`, zones));
  });
  return out;
}

registerTable("quarriors", quarriorsTable, {
  score: "score the creatures in the Ready Area",
  cull: "cull dice from the Used Pile, or go on to the draw",
  main: "draw and roll, spend quiddity, summon creatures and ready spells, then attack",
  attack: "choose a creature to defend",
  capture: "capture a die from the Wilds, then end the turn",
}, {
  words: {done: "done culling", end: "end the turn", reroll: "re-roll"},
  topics: {roll: ["die", "face"], summon: ["die", "face"], spend: ["die", "face"], capture: ["die"], cull: ["die"]},
});
