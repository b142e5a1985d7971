// dicetable phone page: no build step. Talks to /api; live updates over a WebSocket.
"use strict";
const $ = (sel) => document.querySelector(sel);
const state = { matchId: null, view: null, ws: null, games: [], live: null };

async function api(path, options = {}) {
  const res = await fetch(path, {headers: {"Content-Type": "application/json"}, ...options});
  const body = res.headers.get("content-type")?.includes("json") ? await res.json() : null;
  if (!res.ok) {
    const err = new Error(body?.message || `HTTP ${res.status}`);
    err.status = res.status; err.body = body;
    throw err;
  }
  return body;
}

function toast(message) {
  const t = $("#toast");
  t.textContent = message; t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

function show(id) {
  for (const s of ["list-view", "new-view", "enrol-view", "match-view"]) $("#" + s).hidden = s !== id;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "onclick") e.addEventListener("click", v); else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// --- list --------------------------------------------------------------------------------
async function showList() {
  closeLive();
  state.matchId = null;
  show("list-view");
  const list = $("#matches");
  list.replaceChildren();
  const matches = await api("/api/matches");
  if (!matches.length) list.append(el("li", {}, "No match yet: start one."));
  for (const m of matches) {
    const when = new Date(m.updated * 1000).toLocaleString();
    list.append(el("li", {"data-id": m.id, onclick: () => { location.hash = "#/m/" + m.id; }},
      el("strong", {}, `${m.title || m.game}`), ` · ${m.players} players · ${m.entries} entries`,
      el("br"), el("small", {}, `${m.finished ? "finished" : "in play"} · ${when}`)));
  }
}

// --- new match ---------------------------------------------------------------------------
async function showNew() {
  show("new-view");
  if (!state.games.length) state.games = await api("/api/games");
  const select = $("#game-select");
  select.replaceChildren(...state.games.map((g) => el("option", {value: g.name}, g.title)));
  select.onchange = renderOptions;
  renderOptions();
}

function renderOptions() {
  const game = state.games.find((g) => g.name === $("#game-select").value);
  const box = $("#options");
  box.replaceChildren(el("legend", {}, "Options"));
  for (const o of game.options) {
    let input;
    if (typeof o.default === "boolean") {
      input = el("input", {type: "checkbox", name: "opt:" + o.name});
      input.checked = o.default;
    } else if (o.choices) {
      input = el("select", {name: "opt:" + o.name},
        ...o.choices.map((c) => el("option", {value: c}, String(c))));
      input.value = o.default;
    } else {
      input = el("input", {name: "opt:" + o.name, value: o.default});
    }
    box.append(el("label", {title: o.doc}, `${o.name} `, el("small", {}, `[${o.provenance}]`), input));
  }
  const players = document.querySelector("[name=players]");
  players.min = game.players[0]; players.max = game.players[1];
  if (+players.value < game.players[0]) players.value = game.players[0];
  $("#setup-label").hidden = game.name !== "pyramid_dice";
}

async function createMatch(ev) {
  ev.preventDefault();
  const form = new FormData(ev.target);
  const game = state.games.find((g) => g.name === form.get("game"));
  const options = {};
  for (const o of game.options) {
    const field = ev.target.elements["opt:" + o.name];
    if (typeof o.default === "boolean") options[o.name] = field.checked;
    else if (typeof o.default === "number") options[o.name] = Number(field.value);
    else options[o.name] = field.value;
  }
  const body = {game: game.name, players: Number(form.get("players")), options,
                title: form.get("title") || ""};
  const setup = (form.get("setup") || "").trim();
  if (setup) {
    try { body.setup = JSON.parse(setup); } catch (e) { toast("Setup is not valid JSON"); return; }
  }
  try {
    const created = await api("/api/matches", {method: "POST", body: JSON.stringify(body)});
    location.hash = "#/m/" + created.id;
  } catch (e) { toast(e.message); }
}

// --- teach a die (enrolment) ------------------------------------------------------------
async function showEnrol() {
  closeLive();
  state.matchId = null;
  show("enrol-view");
  let listed;
  try { listed = await api("/api/enrolment"); } catch (e) {
    $("#enrol-status").textContent = e.message;
    $("#enrol-form").hidden = true;
    return;
  }
  $("#enrol-form").hidden = false;
  const base = $("#enrol-base");
  if (base.options.length === 1) {
    base.append(...listed.bases.map((b) => el("option", {value: b}, b)));
  }
  renderEnrolled(listed.dice);
}

function renderEnrolled(dice) {
  const names = Object.keys(dice);
  $("#enrolled-names").replaceChildren(...names.map((n) => el("option", {value: n})));
  $("#enrolled").replaceChildren(...(names.length ? names.map((n) => el("li", {"data-die": n},
    el("strong", {}, n), dice[n].base ? ` (keeps ${dice[n].base})` : "", el("br"),
    el("small", {}, Object.entries(dice[n].shots).map(([f, k]) => `${f} ×${k}`).join(" · "))))
    : [el("li", {}, "No die taught yet.")]));
}

async function enrolPhotos(ev) {
  ev.preventDefault();
  const form = ev.target;
  const die = form.elements.die.value.trim(), face = form.elements.face.value.trim();
  const base = form.elements.base.value;
  const files = [...form.elements.photos.files];
  const status = $("#enrol-status");
  const query = base ? "?base=" + encodeURIComponent(base) : "";
  let done = 0;
  for (const file of files) {
    status.textContent = `Sending photo ${done + 1} of ${files.length}…`;
    const res = await fetch(`/api/enrolment/${encodeURIComponent(die)}/${encodeURIComponent(face)}${query}`,
      {method: "POST", headers: {"Content-Type": file.type || "image/jpeg"}, body: file});
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      status.textContent = `${file.name}: ${body?.message || "HTTP " + res.status}`;
      toast(status.textContent);
      break;
    }
    done += 1;
  }
  if (done === files.length) {
    status.textContent = `${die}: face ${face} learnt from ${done} photo${done === 1 ? "" : "s"}.`;
    form.elements.photos.value = "";
  }
  try { renderEnrolled((await api("/api/enrolment")).dice); } catch (e) { toast(e.message); }
}

// --- a match -----------------------------------------------------------------------------
async function showMatch(id) {
  show("match-view");
  if (state.matchId !== id) {
    closeLive();
    state.matchId = id;
    try { render(await api("/api/matches/" + id)); } catch (e) { toast(e.message); return; }
    openLive(id);
    pollPicture(id);
  }
}

function openLive(id) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/matches/${id}/live`);
  state.ws = ws;
  ws.onopen = () => $("#conn").classList.add("on");
  ws.onclose = () => {
    $("#conn").classList.remove("on");
    if (state.ws === ws && state.matchId === id) setTimeout(() => {
      if (state.matchId === id) openLive(id);
    }, 2000);
  };
  ws.onmessage = (msg) => render(JSON.parse(msg.data));
}

function closeLive() {
  const ws = state.ws; state.ws = null;
  if (ws) ws.close();
  if (state.live) { clearTimeout(state.live.timer); state.live = null; }
  $("#m-live-box").hidden = true;
}

// The camera's picture: polled (the ETag makes an unchanged picture a 304), slowly when
// the match has none (no camera) and not at all while the page is hidden.
function pollPicture(id) {
  const live = state.live = {etag: null, timer: null, url: null};
  const tick = async () => {
    if (state.live !== live || state.matchId !== id) return;
    let wait = 2000;
    if (!document.hidden) {
      try {
        const headers = live.etag ? {"If-None-Match": live.etag} : {};
        const res = await fetch(`/api/matches/${id}/live.jpg`, {headers, cache: "no-store"});
        if (res.status === 200 && state.live === live) {
          live.etag = res.headers.get("ETag");
          const url = URL.createObjectURL(await res.blob());
          $("#m-live").src = url;
          if (live.url) URL.revokeObjectURL(live.url);
          live.url = url;
          $("#m-live-box").hidden = false;
        } else if (res.status === 404) {
          wait = 10000;
        }
      } catch (e) { wait = 5000; }
    }
    if (state.live === live) live.timer = setTimeout(tick, wait);
  };
  tick();
}

function render(view) {
  if (view.id !== state.matchId) return;
  if (state.view && view.version < state.view.version) return;  // an old message
  state.view = view;
  $("#m-title").textContent = view.title;
  $("#m-title").dataset.version = view.version;
  $("#m-turn").textContent = view.outcome ? "Match over" : `P${view.to_move + 1} to play`;
  const out = $("#m-outcome");
  out.hidden = !view.outcome;
  if (view.outcome) {
    out.textContent = `Winner: ${view.outcome.winners.map((w) => "P" + (w + 1)).join(", ")} — ${view.outcome.reason}`;
  }
  const scores = $("#m-scores");
  scores.replaceChildren(...view.scores.map((s) => el("tr",
    {class: s.player === view.to_move ? "to-move" : ""},
    el("th", {}, "P" + (s.player + 1)), el("td", {class: "total"}, String(s.total)),
    el("td", {class: "breakdown"}, s.breakdown.filter((b) => b.points).map(
      (b) => `${b.rule} ${b.points}`).join(" · ")))));
  $("#m-table").replaceChildren(...tableRows(view.state));
  renderPending(view);
  renderActions();
  const log = $("#m-log");
  log.replaceChildren(...view.entries.slice().reverse().map((e) => el("li",
    {class: e.kind}, `${e.kind === "action" ? "" : e.kind + ": "}${e.text} `,
    el("span", {class: "src"}, e.source))));
}

// The state as readable rows: lists joined, per-player lists labelled P1, P2...
function tableRows(stateObj) {
  const rows = [];
  const text = (v) => Array.isArray(v) ? (v.length ? v.map(text).join(", ") : "—")
    : (v && typeof v === "object") ? JSON.stringify(v) : String(v);
  for (const [key, value] of Object.entries(stateObj)) {
    if (key === "game" || key === "options") continue;
    if (Array.isArray(value) && value.length && value.every(Array.isArray)) {
      value.forEach((v, i) => rows.push(el("div", {}, el("b", {}, `${key} P${i + 1}: `), text(v))));
    } else {
      rows.push(el("div", {}, el("b", {}, `${key}: `), text(value)));
    }
  }
  return rows;
}

function renderPending(view) {
  const box = $("#m-pending");
  const p = view.pending;
  box.hidden = !p;
  if (!p) return;
  box.className = "pending " + p.kind;
  const head = p.kind === "question" ? "The camera is not sure:" : "Rule broken?";
  const children = [el("strong", {}, head + " "), p.text];
  const candidates = (p.data && p.data.candidates) || [];
  if (candidates.length) {
    const row = el("div", {class: "row"});
    for (const c of candidates) {
      const text = c.actions.join("; ");
      if (c.actions.length === 1) {
        row.append(el("button", {class: "answer", onclick: () => send(c.actions[0], p.seq)}, text));
      }
    }
    children.push(row);
  }
  if (p.data && p.data.rule_text) children.push(el("blockquote", {}, p.data.rule_text));
  box.replaceChildren(...children);
}

function renderActions() {
  const view = state.view;
  const filter = $("#m-filter").value.trim().toLowerCase();
  const box = $("#m-actions");
  const actions = view.legal_actions.filter((a) => a.toLowerCase().includes(filter)).slice(0, 60);
  box.replaceChildren(...actions.map((a) => el("button", {onclick: () => send(a)}, a)));
}

async function send(action, answerTo) {
  const body = {action, version: state.view.version};
  if (answerTo !== undefined) body.answer_to = answerTo;
  try {
    render(await api(`/api/matches/${state.matchId}/actions`,
                     {method: "POST", body: JSON.stringify(body)}));
    $("#m-typed").value = "";
  } catch (e) {
    toast(e.status === 409 ? "The table changed meanwhile: look again." : e.message);
    if (e.status === 409) render(await api("/api/matches/" + state.matchId));
  }
}

async function undo() {
  try {
    render(await api(`/api/matches/${state.matchId}/undo`,
                     {method: "POST", body: JSON.stringify({version: state.view.version})}));
  } catch (e) { toast(e.message); }
}

// --- routing -----------------------------------------------------------------------------
function route() {
  const m = location.hash.match(/^#\/m\/([\w-]+)/);
  if (m) return showMatch(m[1]);
  if (location.hash === "#/new") return showNew();
  if (location.hash === "#/enrol") return showEnrol();
  return showList();
}

$("#new-btn").addEventListener("click", () => { location.hash = "#/new"; });
$("#enrol-btn").addEventListener("click", () => { location.hash = "#/enrol"; });
$("#cancel-enrol").addEventListener("click", () => { location.hash = ""; });
$("#enrol-form").addEventListener("submit", enrolPhotos);
$("#cancel-new").addEventListener("click", () => { location.hash = ""; });
$("#new-form").addEventListener("submit", createMatch);
$("#m-filter").addEventListener("input", renderActions);
$("#m-send").addEventListener("click", () => { const t = $("#m-typed").value.trim(); if (t) send(t); });
$("#m-typed").addEventListener("keydown", (e) => { if (e.key === "Enter") $("#m-send").click(); });
$("#m-undo").addEventListener("click", undo);
window.addEventListener("hashchange", () => route().catch((e) => toast(e.message)));
route().catch((e) => toast(e.message));
