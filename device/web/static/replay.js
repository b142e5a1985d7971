// Replay of a recorded match: step through its log entry by entry. Each step's table is
// replayed by the rules on the server (GET /replay/{step}); the camera's picture of each
// accepted move is shown when it was kept.
"use strict";

async function showReplay(id, step) {
  leaveMatch();
  show("replay-view");
  let index;
  try { index = await api(`/api/matches/${id}/replay`); } catch (e) {
    toast(e.status === 404 ? "This match is not on this table." : e.message);
    return;
  }
  let r = state.replay;
  if (!r || r.id !== id || r.index.version !== index.version) {
    // a match still in play grows: a new index, and the steps computed so far still hold
    const cache = r && r.id === id ? r.cache : new Map();
    r = state.replay = {id, index, cache, step: null};
  }
  $("#r-title").textContent = `Replay: ${index.match_title || index.title}`;
  $("#r-open").href = "#/m/" + id;
  $("#r-jsonl").href = `/api/matches/${id}/export?format=jsonl`;
  $("#r-bgstats").href = `/api/matches/${id}/export?format=bgstats`;
  $("#r-slider").max = String(index.steps);
  await goTo(step === null ? r.index.steps : step);
}

async function goTo(step) {
  const r = state.replay;
  if (!r) return;
  step = Math.max(0, Math.min(r.index.steps, step));
  r.step = step;
  $("#r-slider").value = String(step);
  $("#r-step").textContent = `${step} / ${r.index.steps}`;
  for (const [sel, off] of [["#r-first", step === 0], ["#r-prev", step === 0],
                            ["#r-next", step === r.index.steps], ["#r-last", step === r.index.steps]]) {
    $(sel).disabled = off;
  }
  if (location.hash !== `#/r/${r.id}/${step}`) history.replaceState(null, "", `#/r/${r.id}/${step}`);
  let view = r.cache.get(step);
  if (!view) {
    try { view = await api(`/api/matches/${r.id}/replay/${step}`); } catch (e) { toast(e.message); return; }
    r.cache.set(step, view);
  }
  if (r.step !== step || state.replay !== r) return;  // the user moved on meanwhile
  drawStep(r, view);
}

function drawStep(r, view) {
  const shown = {...view, game: r.index.game, names: view.names};
  const entry = view.entry;
  const box = $("#r-entry");
  if (!entry) {
    box.replaceChildren(el("strong", {}, "Start of the match"));
  } else {
    const info = r.index.entries[entry.seq] || entry;
    const conf = entry.confidence != null ? ` · ${Math.round(entry.confidence * 100)}%` : "";
    box.replaceChildren(
      el("span", {class: `kind ${entry.kind}`}, entry.kind === "action" ? "move" : entry.kind),
      el("strong", {}, " " + entry.text),
      el("small", {}, ` — ${entry.source}${conf}`));
    if (info.evidence) {
      const img = el("img", {class: "evidence", alt: "the table when the camera read this move",
        src: withKey(`/api/matches/${r.id}/evidence/${entry.seq}`)});
      img.addEventListener("click", () => img.classList.toggle("big"));
      box.append(img);
    }
  }
  $("#r-turn").textContent = turnText(shown);
  $("#r-phase").textContent = phaseText(shown);
  const out = $("#r-outcome");
  out.hidden = !view.outcome;
  out.textContent = outcomeText(shown);
  $("#r-scores").replaceChildren(el("caption", {}, "Scores"), ...drawScores(shown));
  $("#r-table").replaceChildren(...drawTable(shown));
}

document.addEventListener("DOMContentLoaded", () => {
  const step = (d) => () => state.replay && goTo(d === "first" ? 0 : d === "last" ? state.replay.index.steps : state.replay.step + d);
  $("#r-first").addEventListener("click", step("first"));
  $("#r-prev").addEventListener("click", step(-1));
  $("#r-next").addEventListener("click", step(1));
  $("#r-last").addEventListener("click", step("last"));
  let timer = null;
  $("#r-slider").addEventListener("input", (ev) => {
    const value = Number(ev.target.value);
    $("#r-step").textContent = `${value} / ${state.replay ? state.replay.index.steps : 0}`;
    clearTimeout(timer);
    timer = setTimeout(() => goTo(value), 120);  // not a request per pixel of the drag
  });
  document.addEventListener("keydown", (ev) => {
    if ($("#replay-view").hidden || ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowLeft") step(-1)();
    if (ev.key === "ArrowRight") step(1)();
  });
});
