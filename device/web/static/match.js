// A live match: whose turn, scores, the table, questions and alerts, the camera's last
// reading with its corrections, actions, undo and the log. Live over a WebSocket that
// reconnects by itself (the banner says when it is lost).
"use strict";

async function showMatch(id) {
  show("match-view");
  // opened already, or being opened (the first route and a hash change can both ask)
  if (state.matchId === id && (state.view || state.opening === id)) return;
  closeLive();
  state.matchId = id; state.view = null; state.opening = id;
  $("#m-replay").href = "#/r/" + id;
  $("#m-fix").hidden = true;
  $("#m-next").hidden = true;  // the last match's "Match over" is not this one's
  try { render(await api("/api/matches/" + id)); } catch (e) {
    state.opening = null;
    toast(e.status === 404 ? "This match is not on this table." : e.message);
    if (e.status === 404) { location.hash = ""; return; }
  }
  state.opening = null;
  openLive(id, 0);
  pollPicture(id);
  $("#m-live-box").hidden = true;
  $("#match-view").classList.toggle("has-picture", false);
}

// --- live updates --------------------------------------------------------------------------
function openLive(id, attempt) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(withKey(`${proto}://${location.host}/api/matches/${id}/live`));
  const live = state.ws = {socket: ws, id, attempt, timer: null};
  ws.onopen = () => { live.attempt = 0; setConnection(true); };
  ws.onmessage = (msg) => render(JSON.parse(msg.data));
  ws.onclose = (ev) => {
    if (state.ws !== live || state.matchId !== id) return;
    if (ev.code === 4404) {  // the server is back but without this match
      setConnection(false, "This match is not on the table's server any more.",
        el("a", {href: "#", onclick: () => setConnection(true)}, "See the matches"));
      return;
    }
    const wait = Math.min(10000, 1000 * 2 ** Math.min(live.attempt, 4));
    setConnection(false, `Live updates lost — reconnecting in ${Math.round(wait / 1000)} s…`);
    live.timer = setTimeout(() => { if (state.ws === live) openLive(id, live.attempt + 1); }, wait);
  };
}

function reconnectNow() {
  const live = state.ws;
  if (!live || live.socket.readyState === WebSocket.OPEN) return;
  clearTimeout(live.timer);
  openLive(live.id, 0);
}

function closeLive() {
  const live = state.ws; state.ws = null;
  if (live) { clearTimeout(live.timer); live.socket.onclose = null; live.socket.close(); }
  if (state.live) { clearTimeout(state.live.timer); state.live = null; }
  $("#m-live-box").hidden = true;
  setConnection(true);
}

document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });

// The camera's picture: polled (the ETag makes an unchanged picture a 304), slowly when
// the match has none (no camera) and not at all while the page is hidden.
const noPicture = new Set();  // matches that had none and are not the camera's

function pollPicture(id) {
  if (noPicture.has(id) && id !== state.tableMatch) return;
  const live = state.live = {etag: null, timer: null, url: null};
  const tick = async () => {
    if (state.live !== live || state.matchId !== id) return;
    let wait = 2000;
    if (!document.hidden) {
      try {
        const headers = keyHeaders(live.etag ? {"If-None-Match": live.etag} : {});
        const res = await fetch(`/api/matches/${id}/live.jpg`, {headers, cache: "no-store"});
        if (res.status === 200 && state.live === live) {
          live.etag = res.headers.get("ETag");
          const url = URL.createObjectURL(await res.blob());
          $("#m-live").src = url;
          if (live.url) URL.revokeObjectURL(live.url);
          live.url = url;
          $("#m-live-box").hidden = false;
          $("#match-view").classList.add("has-picture");
        } else if (res.status === 404) {
          // no picture: asked again only for the match the table's camera follows (it has
          // not read the table yet); a hand-scored match is asked once (it was every 10 s)
          if (id !== state.tableMatch) { noPicture.add(id); state.live = null; return; }
          wait = 5000;
        }
      } catch (e) { wait = 5000; }
    }
    if (state.live === live) live.timer = setTimeout(tick, wait);
  };
  tick();
}

// --- drawing -------------------------------------------------------------------------------
function render(view) {
  if (view.id !== state.matchId) return;
  if (state.view && view.version < state.view.version) return;  // an old message
  const changed = !state.view || state.view.version !== view.version;
  state.view = view;
  $("#m-title").textContent = view.title;
  $("#m-title").dataset.version = view.version;
  $("#m-subtitle").textContent = view.match_title || "";
  $("#m-turn").textContent = turnText(view);
  $("#m-phase").textContent = phaseText(view);
  const out = $("#m-outcome");
  out.hidden = !view.outcome;
  out.textContent = outcomeText(view);
  // the players may end a stalled match (Pyramid Dice's stall rule): a match action, not
  // a table move, offered only where the rules allow it
  $("#m-end-box").hidden = !view.can_end;
  $("#m-scores").replaceChildren(el("caption", {}, "Scores"), ...drawScores(view));
  $("#m-table").replaceChildren(...drawTable(view));
  markTaps(view);
  followNext(view);
  renderPending(view);
  renderCamera(view, changed);
  renderActions();
  renderLog(view);
  renderNames(view);
}

function renderPending(view) {
  const box = $("#m-pending");
  const p = view.pending;
  box.hidden = !p;
  if (!p) { state.answerTo = null; return; }
  if (state.answerTo !== null && state.answerTo !== undefined && state.answerTo !== p.seq) state.answerTo = null;
  box.className = "pending " + p.kind;
  const data = p.data || {};
  const children = [];
  // the doubtful die or piece, cut from the camera's picture and ringed (device.matches.questions)
  const crop = data.crop ? el("img", {class: "crop", alt: "the doubtful die or piece, ringed, in the camera's picture",
    src: withKey(`/api/matches/${view.id}/evidence/${p.seq}`)}) : "";
  if (p.kind === "question" && data.confirm && (data.candidates || []).length === 1) {
    // the camera saw the move; only the players know its unseen part (Pyramid Dice: did the
    // players before the snatcher pass?): yes records the move with the answer, no nothing
    const seen = data.candidates[0].actions.join("; ");
    children.push(el("strong", {}, "Please confirm. "), data.confirm,
      el("p", {class: "hint"}, `The camera saw: ${say(view.game, seen)}`));
    children.push(el("div", {class: "row wrap"},
      el("button", {class: "answer", onclick: () => send(seen, p.seq)}, "Yes"),
      el("button", {class: "answer quiet", onclick: async () => {
        if (await dismiss(p.seq, "no")) toast("Not recorded: put the table back as the rules allow.");
      }}, "No")));
  } else if (p.kind === "question" && (data.type === "repair" || data.type === "table")) {
    // the camera lost track of the record (device.matches.recovery): each of its proposals
    // is one tap (POST /repairs); "no" keeps the record and is not asked again
    const lost = "The camera lost track. ";  // the proposals' words may start with it too
    const words = (t) => (t.startsWith(lost) ? t.slice(lost.length) : t);
    children.push(el("p", {class: "ask"}, el("strong", {}, lost),
      data.type === "table" ? "Take the table as the camera sees it?" : "Put the record back as the table shows?"), crop);
    const row = el("div", {class: "row wrap choices"});
    (data.choices || []).forEach((c, i) => row.append(el("button", {class: "answer repair",
      "data-choice": String(i), onclick: () => post("repairs", {question: p.seq, choice: i})},
      words(c.words || `Repair ${i + 1}`))));
    row.append(el("button", {class: "answer quiet", onclick: () => dismiss(p.seq, "no")},
      "No, the record is right"));
    children.push(row);
  } else if (p.kind === "question") {
    const cands = (data.candidates || []).filter((c) => c.actions && c.actions.length);
    const texts = cands.map((c) => c.actions.join("; "));
    const {question, choices} = plainQuestion(view.game, texts);
    children.push(el("p", {class: "ask"}, el("strong", {}, "The camera is not sure. "), question), crop);
    const row = el("div", {class: "row wrap choices"});
    texts.forEach((t, i) => row.append(el("button", {class: "answer", "data-action": t, title: t,
      onclick: () => send(t, p.seq)}, choices[i])));
    row.append(el("button", {class: "answer quiet", onclick: () => noneOfThese(view, p.seq)}, "None of these"),
      el("button", {class: "answer quiet", onclick: () => dismiss(p.seq, "nothing happened")}, "Nothing happened"));
    children.push(row);
    if (state.answerTo === p.seq) {
      children.push(el("p", {class: "todo correcting"}, "What happened, then? Tap it on the table below, or pick it from the list of moves: it answers this question."));
    }
  } else {
    const unexplained = !data.rule || data.rule === "core.unexplained";
    const cite = ruleCitation(data.rule_source, view.title);
    if (unexplained) {
      const closest = (data.actions || []).length ? ` The closest move: ${brief(view.game, data.actions)}.` : "";
      children.push(el("strong", {}, "The camera cannot explain the table. "),
        `What it sees fits no move the rules allow from the recorded state.${closest}`);
    } else {
      children.push(el("strong", {}, `Rule broken: ${ruleName(data.rule)}. `), p.text);
      if (data.rule_text) children.push(el("blockquote", {}, data.rule_text, cite ? el("cite", {}, ` — ${cite}`) : ""));
    }
    children.push(el("p", {class: "todo"},
      "What to do: put the table back as the rules allow — this alert closes by itself when the camera sees it. ",
      "If the camera is wrong, tap what really happened on the table or in the list, or override it."));
    children.push(el("div", {class: "row wrap"},
      el("button", {class: "answer", onclick: () => dismiss(p.seq, "override: the camera misread the table")}, "Override: the camera is wrong"),
      el("button", {class: "answer quiet", onclick: undo}, "Undo the last move")));
  }
  box.replaceChildren(...children);
}

// "None of these": the players say what happened instead, on the drawn table or in the
// list; their move is recorded as the answer to the question.
function noneOfThese(view, seq) {
  state.answerTo = seq;
  renderPending(view);
  $("#m-actions-box").open = true;
  $("#m-table-box").scrollIntoView({block: "start", behavior: "smooth"});
}

// The camera's last accepted move, each changeable word a button: tap the die the camera
// got wrong, pick what it shows; the server replaces the move in one correction.
function renderCamera(view, changed) {
  const box = $("#m-camera");
  const last = view.last_camera;
  box.hidden = !last;
  if (!last) { $("#m-fix").hidden = true; return; }
  if (changed) $("#m-fix").hidden = true;
  const lines = last.actions.map((a) => {
    const words = a.text.split(" ").map((w) => document.createTextNode(w.replace(/_/g, " ") + " "));
    for (const part of a.parts) {
      words[part.index] = el("button", {class: `part ${part.object || ""}`, "data-seq": a.seq,
        "aria-label": `${part.object || "part"} read as ${part.word}: correct it`,
        onclick: () => offerFix(a, part)}, part.word.replace(/_/g, " "));
    }
    const conf = a.confidence != null ? el("small", {class: "conf"}, ` ${Math.round(a.confidence * 100)}%`) : "";
    return el("div", {class: "read-action"}, ...words.flatMap((w) => [w, " "]), conf);
  });
  const img = el("img", {class: "evidence", alt: "the table when the camera read this move",
    src: withKey(`/api/matches/${view.id}/evidence/${last.evidence}`)});
  img.addEventListener("error", () => img.remove());
  img.addEventListener("click", () => img.classList.toggle("big"));
  box.replaceChildren(el("h2", {}, "The camera read"), img, ...lines,
    el("p", {class: "hint"}, last.actions.some((a) => a.parts.length) ? "Wrong? Tap the die (or piece) the camera misread." : ""));
}

function swatch(value) {
  if (!COLOURS[value]) return "";
  const s = el("span", {class: "swatch", "aria-hidden": "true"});
  s.style.background = COLOURS[value];
  return s;
}

function offerFix(action, part) {
  const fix = $("#m-fix");
  fix.hidden = false;
  fix.replaceChildren(
    el("p", {}, el("strong", {}, `The camera read ${part.word}.`), " It really shows:"),
    el("div", {class: "faces"}, ...part.options.map((o) => el("button", {class: `face ${part.object || ""}`,
      onclick: () => correct(action.seq, o.action, o.value)}, swatch(o.value), o.value))),
    el("button", {class: "quiet", onclick: () => { fix.hidden = true; }}, "Cancel"));
  fix.scrollIntoView({block: "nearest"});
}

async function correct(seq, action, value) {
  try {
    const view = await api(`/api/matches/${state.matchId}/corrections`,
      {method: "POST", body: JSON.stringify({seq, action, version: state.view.version})});
    $("#m-fix").hidden = true;
    render(view);
    const note = view.entries.filter((e) => e.kind === "correction").pop();
    const dropped = note && note.data && note.data.dropped && note.data.dropped.length
      ? ` Taken back, as it no longer follows: ${note.data.dropped.join("; ")}.` : "";
    toast(`Corrected to ${value}: ${action}.${dropped}`, "ok");
  } catch (e) { await refused(e); }
}

// The legal actions as buttons. The few decisions come first; a large family (56 re-rolls)
// is one button that filters to it, so "take r7c6" is never buried under dice values.
function renderActions() {
  const view = state.view;
  if (!view) return;
  const filter = $("#m-filter").value.trim().toLowerCase();
  // (an id's underscores are said as spaces: "draw basic quiddity"; the filter takes either)
  const spaced = (a) => a.replace(/_/g, " ");
  const actions = view.legal_actions.filter((a) => a.toLowerCase().includes(filter)
    || spaced(a).toLowerCase().includes(filter));
  const verb = (a) => a.split(" ")[0];
  const family = {};
  for (const a of actions) family[verb(a)] = (family[verb(a)] || 0) + 1;
  const big = (a) => !filter && family[verb(a)] > 12;
  const buttons = [];
  const seen = new Set();
  for (const a of actions.slice().sort((x, y) => family[verb(x)] - family[verb(y)])) {
    if (!big(a)) {
      buttons.push(el("button", {"data-action": a, title: a, onclick: () => send(a)}, spaced(a)));
      continue;
    }
    if (seen.has(verb(a))) continue;
    seen.add(verb(a));
    buttons.push(el("button", {class: "family", onclick: () => {
      $("#m-filter").value = verb(a) + " "; renderActions(); $("#m-filter").focus();
    }}, `${verb(a)} … (${family[verb(a)]})`));
  }
  $("#m-actions-title").textContent = actions.length && !view.outcome
    ? `All ${view.legal_actions.length} moves as a list` : "Moves";
  const shown = buttons.slice(0, 60);
  $("#m-actions").replaceChildren(...shown,
    buttons.length > shown.length ? el("small", {}, `${buttons.length - shown.length} more: filter to find them`) : "",
    !actions.length ? el("small", {}, view.outcome ? "The match is over." : "Nothing matches the filter.") : "");
}

function renderLog(view) {
  const live = new Set(view.live);
  const last = view.live.length ? view.live[view.live.length - 1] : null;
  $("#m-log").replaceChildren(...view.entries.slice().reverse().map((e) => {
    const isLive = e.kind === "action" && live.has(e.seq);
    // a move taken back is struck through and says so; the undo itself is a plain note
    const undone = e.kind === "action" && !isLive;
    const li = el("li", {class: e.kind + (isLive ? " live" : "") + (undone ? " undone" : ""), "data-seq": e.seq},
      el("span", {class: "text"}, `${e.kind === "action" ? "" : e.kind + ": "}${e.text.replace(/_/g, " ")}`),
      undone ? el("small", {class: "src"}, " (taken back)") : "",
      el("span", {class: "src"}, ` ${e.source}`));
    if (isLive) {
      const count = view.live.length - view.live.indexOf(e.seq);
      const back = el("button", {class: "back danger", hidden: true,
        onclick: (ev) => { ev.stopPropagation(); undoTo(e.seq); }},
        e.seq === last ? "Undo this move" : `Undo back to here (${count} moves)`);
      li.append(back);
      li.addEventListener("click", () => { back.hidden = !back.hidden; });
    }
    return li;
  }));
}

function renderNames(view) {
  const form = $("#names-form");
  if (form.contains(document.activeElement) && form.dataset.match === view.id) return;  // being edited
  form.dataset.match = view.id;
  form.replaceChildren(...view.names.map((n, i) => el("label", {}, `Player ${i + 1}${view.seats ? ` (sits at the ${view.seats[i]})` : ""} `,
    el("input", {name: "name", maxlength: 24, value: /^P\d+$/.test(n) ? "" : n, placeholder: `P${i + 1}`}))),
    el("button", {type: "submit"}, "Save names"));
}

// --- changes -------------------------------------------------------------------------------
async function refused(e) {
  if (e.status === 409) {
    toast("The match changed meanwhile (the camera or another phone): look again and retry.");
    try { render(await api("/api/matches/" + state.matchId)); } catch (_) { /* banner shows */ }
  } else {
    toast(e.message);
  }
}

async function post(path, body) {
  try {
    render(await api(`/api/matches/${state.matchId}/${path}`,
      {method: "POST", body: JSON.stringify({...body, version: state.view.version})}));
    return true;
  } catch (e) { await refused(e); return false; }
}

async function send(action, answerTo) {
  const body = {action};
  // after "None of these", the players' move answers the open question
  if (answerTo === undefined && state.answerTo !== null && state.answerTo !== undefined) answerTo = state.answerTo;
  if (answerTo !== undefined && answerTo !== null) body.answer_to = answerTo;
  if (await post("actions", body)) { $("#m-typed").value = ""; state.answerTo = null; }
}

const dismiss = (seq, text) => post("answers", {question: seq, text});
const undo = () => post("undo", {});
const endMatch = () => post("end", {});
const undoTo = (seq) => post("undo", {to: seq});

async function saveNames(ev) {
  ev.preventDefault();
  const names = [...ev.target.querySelectorAll("[name=name]")].map((i) => i.value.trim());
  try {
    render(await api(`/api/matches/${state.matchId}/names`,
      {method: "PUT", body: JSON.stringify({names, version: state.view.version})}));
    toast("Names saved.", "ok");
  } catch (e) { await refused(e); }
}

document.addEventListener("DOMContentLoaded", () => {
  $("#m-filter").addEventListener("input", renderActions);
  $("#m-send").addEventListener("click", () => { const t = $("#m-typed").value.trim(); if (t) send(t); });
  $("#m-typed").addEventListener("keydown", (e) => { if (e.key === "Enter") $("#m-send").click(); });
  $("#m-undo").addEventListener("click", undo);
  $("#m-end").addEventListener("click", endMatch);
  $("#names-form").addEventListener("submit", saveNames);
});
