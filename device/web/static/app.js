// dicetable phone page: no build step. Core: talking to /api, the connection banner,
// small DOM helpers, the list of matches and routing. The views live in match.js,
// replay.js, setup.js, enrol.js; table.js draws each game's table.
"use strict";
const $ = (sel, root = document) => root.querySelector(sel);
const state = { matchId: null, view: null, ws: null, games: [], live: null, replay: null,
  access: "open", tableMatch: null, servedGame: null, answerTo: null, shown: null, routed: false,
  gamesReady: null };

// --- the table's key ---------------------------------------------------------------------
// The players' link carries the table's key (?key=...). The page keeps it in this phone's
// storage and takes it out of the address bar (a screenshot or a shared link of the page then
// does not give it away). Without it the server lets this phone watch only.
const KEY_STORE = "dicetable-key";
const tableKey = (() => {
  const params = new URLSearchParams(location.search);
  const given = params.get("key");
  if (given) {
    try { localStorage.setItem(KEY_STORE, given); } catch (e) { /* private browsing: this page only */ }
    params.delete("key");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
    return given;
  }
  try { return localStorage.getItem(KEY_STORE); } catch (e) { return null; }
})();

function keyHeaders(headers = {}) { return tableKey ? {...headers, "X-Table-Key": tableKey} : headers; }
// for what cannot send a header: the live WebSocket and pictures (<img src>)
function withKey(url) {
  return tableKey ? `${url}${url.includes("?") ? "&" : "?"}key=${encodeURIComponent(tableKey)}` : url;
}

// What this phone may do: "open" (no key needed), "players" or "spectator" (watch only: the
// controls that change the table are hidden).
async function checkAccess() {
  let access = "spectator", text = "";
  try {
    const health = await api("/api/health");
    access = health.access || "open";
    tableHealth(health);
    if (access === "spectator") {
      text = tableKey ? "Watching only: this is not the table's key any more. Scan the players' QR code again to play."
        : "Watching only. To play, scan the players' QR code shown where the table's server runs.";
    }
  } catch (e) {
    if (e.status === 401 || e.status === 403) text = "This table is private: scan the players' QR code to see it.";
    else return;  // no connection: the banner says so
  }
  state.access = access;
  document.body.classList.toggle("spectator", access === "spectator");
  $("#watching").hidden = !text;
  $("#watching").textContent = text;
}

// What the server says of its table: the match its camera (or the demo) follows, the game it
// serves, whether dice can be taught here.
function tableHealth(health) {
  state.tableMatch = health.match || null;
  state.servedGame = health.game || null;
  // "Teach a die" only where the server keeps what is taught (serve --profile)
  $("#enrol-btn").hidden = !health.enrolment;
}

// When the table's match ends, the table plays on (the demo starts the next match): the page
// follows it, saying so, instead of sitting on "Match over".
function followNext(view) {
  clearTimeout(followNext.timer);
  if (!view.outcome || view.id !== state.tableMatch) { $("#m-next").hidden = true; return; }
  $("#m-next").hidden = false;
  $("#m-next").textContent = "Match over. The page follows the table's next match as soon as it starts.";
  followNext.timer = setTimeout(async () => {
    if (state.matchId !== view.id) return;
    try { tableHealth(await api("/api/health")); } catch (e) { /* the banner says so */ }
    if (state.tableMatch && state.tableMatch !== view.id && state.matchId === view.id) {
      toast("The next match has started: following it.", "ok");
      location.replace("#/m/" + state.tableMatch);
    } else if (state.matchId === view.id) {
      followNext(state.view || view);
    }
  }, 2500);
}

// --- the connection ------------------------------------------------------------------------
const conn = {lost: false, since: 0};

function setConnection(ok, text, action = null) {
  const banner = $("#net");
  conn.lost = !ok;
  $("#conn").classList.toggle("on", ok);
  $("#conn").textContent = ok ? "live" : "offline";
  liveBadge();
  banner.hidden = ok;
  if (!ok) banner.replaceChildren(text, action ? " " : "", action || "");
}

// Away from a match (where the live socket retries), ask the server again now and then, and
// refresh the list when it answers.
function retryLater() {
  if (conn.retry) return;
  conn.retry = setTimeout(async () => {
    conn.retry = null;
    if (!conn.lost || state.ws) return;
    try {
      const res = await fetch("/api/health", {cache: "no-store"});
      if (!res.ok) throw new Error(String(res.status));
    } catch (e) { retryLater(); return; }
    setConnection(true);
    if (!$("#list-view").hidden) showList();
  }, 4000);
}

async function api(path, options = {}) {
  let res;
  try {
    res = await fetch(path, {...options,
      headers: keyHeaders({"Content-Type": "application/json", ...(options.headers || {})})});
  } catch (e) {  // the network, not the server: the table's computer is off or out of reach
    setConnection(false, "No connection to the table. Check the Wi-Fi; retrying…");
    if (!state.ws) retryLater();
    const err = new Error("No connection to the table: nothing was sent.");
    err.status = 0;
    throw err;
  }
  // the server answered: the banner goes unless the live socket is still down
  if (conn.lost && (!state.ws || state.ws.socket.readyState === WebSocket.OPEN)) setConnection(true);
  const body = res.headers.get("content-type")?.includes("json") ? await res.json() : null;
  if (!res.ok) {
    const err = new Error(body?.message || `The table answered ${res.status}`);
    err.status = res.status; err.body = body;
    throw err;
  }
  return body;
}

function toast(message, kind = "") {
  const t = $("#toast");
  t.textContent = message; t.hidden = false;
  t.className = "toast " + kind;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

const VIEWS = ["list-view", "new-view", "enrol-view", "match-view", "replay-view"];
function show(id) {
  for (const s of VIEWS) $("#" + s).hidden = s !== id;
  state.shown = id;
  document.body.dataset.view = id;
  liveBadge();
  window.scrollTo(0, 0);
}

// "live" is said of a match followed live only; "offline" wherever the connection is lost
function liveBadge() { $("#conn").hidden = !conn.lost && state.shown !== "match-view"; }

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else if (k === "oninput") e.addEventListener("input", v);
    else if (k === "onchange") e.addEventListener("change", v);
    else if (k === "ontoggle") e.addEventListener("toggle", v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

function playerName(names, i) { return (names && names[i]) || `P${i + 1}`; }

// --- the list of matches -------------------------------------------------------------------
async function showList() {
  leaveMatch();
  show("list-view");
  const list = $("#matches");
  let matches;
  try { matches = await api("/api/matches"); } catch (e) {
    list.replaceChildren(el("li", {class: "empty"}, e.message));
    return;
  }
  list.replaceChildren();
  if (!matches.length) list.append(el("li", {class: "empty"}, "No match yet: start one."));
  for (const m of matches) {
    const when = new Date(m.updated * 1000).toLocaleString([], {dateStyle: "medium", timeStyle: "short"});
    const game = state.games.find((g) => g.name === m.game);
    list.append(el("li", {"data-id": m.id},
      el("a", {href: "#/m/" + m.id, class: "open"},
        el("strong", {}, m.title || (game ? game.title : m.game)),
        el("span", {class: "meta"}, `${game ? game.title + " · " : ""}${m.players} players · ${m.entries} entries`),
        el("span", {class: "meta"}, `${m.finished ? "finished" : "in play"} · ${when}`)),
      el("a", {href: "#/r/" + m.id, class: "button replay-link", "aria-label": "replay " + (m.title || m.game)}, "Replay")));
  }
}

function leaveMatch() {
  if (typeof closeLive === "function") closeLive();
  state.matchId = null; state.view = null;
}

// --- routing ---------------------------------------------------------------------------------
async function route() {
  // the games and their drawings, loaded once; every route waits for them, the first as
  // much as one a hash change starts while they load (a match drawn before its game's
  // table.js came drew rows and said "make a move"; a CI run failed so)
  state.gamesReady = state.gamesReady || (async () => {
    try { state.games = await api("/api/games"); } catch (e) { /* shown where needed */ }
    await loadTables(state.games);  // each game's drawing of its table (table.js)
    if (!state.games.length) state.gamesReady = null;  // asked again by the next route
  })();
  await state.gamesReady;
  // first run: the demo (or a camera's table) opens straight on the match being played
  const first = !state.routed;
  state.routed = true;
  if (first && !location.hash && state.tableMatch) {
    location.replace("#/m/" + state.tableMatch);
    return;
  }
  const m = location.hash.match(/^#\/([mr])\/([\w-]+)(?:\/(\d+))?/);
  if (m && m[1] === "m") return showMatch(m[2]);
  if (m && m[1] === "r") return showReplay(m[2], m[3] === undefined ? null : Number(m[3]));
  if (location.hash === "#/new") return showNew();
  if (location.hash === "#/enrol") return showEnrol();
  return showList();
}

window.addEventListener("hashchange", () => route().catch((e) => toast(e.message)));
window.addEventListener("offline", () => setConnection(false, "This phone is offline; retrying when it is back…"));
window.addEventListener("online", () => { if (state.matchId) reconnectNow(); else setConnection(true); });
document.addEventListener("DOMContentLoaded", () => {
  $("#new-btn").addEventListener("click", () => { location.hash = "#/new"; });
  $("#enrol-btn").addEventListener("click", () => { location.hash = "#/enrol"; });
  checkAccess().finally(() => route().catch((e) => toast(e.message)));
});
