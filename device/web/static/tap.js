// Scoring by hand on the drawn table: the player taps the objects a move is made with (a
// quarry die, then a pyramid space; a card; a piece), in order. Each game's script says which
// marks of its drawing (data-pick) make each action (`taps`, table.js); the legal actions
// come from the server, so the page judges nothing: it only narrows the list by the taps.
// What can be tapped next is ringed; a tap that completes one action sends it, one that
// completes several (the same die and space with or without a skill) offers them in words.
"use strict";

const tapState = {picks: [], version: null};

function tapsOf(view, action) {
  const taps = tableOf(view.game).taps;
  return taps ? taps(action, view) : [];
}

// the legal actions whose taps start with `picks`
function tapCandidates(view, picks) {
  return view.legal_actions.filter((a) => {
    const t = tapsOf(view, a);
    return t.length >= picks.length && picks.every((p, i) => t[i] === p);
  });
}

function canTap(view) {
  return !view.outcome && state.access !== "spectator" && !!tableOf(view.game).taps;
}

// Ring what may be tapped now, mark what was tapped, and say what to do.
function markTaps(view) {
  const hint = $("#m-tap");
  if (tapState.version !== view.version) tapState.picks = [];  // the match moved on
  tapState.version = view.version;
  const table = $("#m-table");
  const any = canTap(view) && view.legal_actions.some((a) => tapsOf(view, a).length);
  table.classList.toggle("tapping", any);
  for (const node of table.querySelectorAll("[data-pick]")) {
    const token = node.dataset.pick;
    const ok = any && tapCandidates(view, [...tapState.picks, token]).length > 0;
    node.classList.toggle("tappable", ok);
    node.classList.toggle("picked", tapState.picks.includes(token) && any);
    if (ok) { node.setAttribute("role", "button"); node.tabIndex = 0; }
    else { node.removeAttribute("role"); node.removeAttribute("tabindex"); }
  }
  hint.hidden = !any;
  if (!any) return;
  const next = (tableOf(view.game).tapHint || (() => "Tap the table to make a move."))(tapState.picks, view);
  hint.replaceChildren(el("span", {}, next),
    tapState.picks.length ? el("button", {class: "quiet", onclick: () => { tapState.picks = []; markTaps(view); }}, "Start again") : "");
}

function tapped(node) {
  const view = state.view;
  if (!view || !canTap(view) || !node.classList.contains("tappable")) return;
  const picks = [...tapState.picks, node.dataset.pick];
  const cands = tapCandidates(view, picks);
  const done = cands.filter((a) => tapsOf(view, a).length === picks.length);
  tapState.picks = picks;
  if (done.length === 1 && cands.length === 1) {
    tapState.picks = [];
    send(done[0], state.answerTo ?? undefined);
    return;
  }
  markTaps(view);
  if (done.length) offerChoice(view, done);
}

// Several actions made by the same taps: the player says which, in words.
function offerChoice(view, actions) {
  const fix = $("#m-fix");
  fix.hidden = false;
  fix.replaceChildren(el("p", {}, el("strong", {}, "Which move?")),
    el("div", {class: "faces choices"}, ...actions.map((a) => el("button", {class: "answer",
      "data-action": a, onclick: () => { fix.hidden = true; tapState.picks = []; send(a, state.answerTo ?? undefined); }},
      say(view.game, a)))),
    el("button", {class: "quiet", onclick: () => { fix.hidden = true; tapState.picks = []; markTaps(view); }}, "Cancel"));
  fix.scrollIntoView({block: "nearest"});
}

document.addEventListener("DOMContentLoaded", () => {
  const table = $("#m-table");
  table.addEventListener("click", (ev) => {
    const node = ev.target.closest("[data-pick]");
    if (node && table.contains(node)) tapped(node);
  });
  table.addEventListener("keydown", (ev) => {
    const node = ev.target.closest("[data-pick]");
    if (node && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); tapped(node); }
  });
});
