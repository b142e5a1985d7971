// New match: game, players and their names, options, and the setup the players enter —
// Pyramid Dice's cards, layout and where each card lies; the Pyradice token sheet. Every
// change is checked by the engine on the server (POST /api/games/{game}/setup/check) and
// its messages are shown next to the field they are about. The JSON box stays for power
// users: once edited, it is what is sent.
"use strict";

const setupState = {game: null, form: null, model: null, jsonDirty: false, timer: null, seq: 0, errors: []};

async function showNew() {
  leaveMatch();
  show("new-view");
  if (!state.games.length) state.games = await api("/api/games");
  const select = $("#game-select");
  if (!select.options.length) {
    select.replaceChildren(...state.games.map((g) => el("option", {value: g.name}, g.title)));
    // the game this table serves (serve --game, the demo's) comes first
    if (state.games.some((g) => g.name === state.servedGame)) select.value = state.servedGame;
  }
  await gameChanged();
}

function currentGame() { return state.games.find((g) => g.name === $("#game-select").value); }

async function gameChanged() {
  const game = currentGame();
  renderOptions(game);
  renderNameInputs(); renderSeatInputs();
  setupState.jsonDirty = false;
  setupState.errors = [];
  $("#setup-json").value = "";
  $("#setup-box").replaceChildren();
  setupState.game = game.name; setupState.model = null; setupState.form = null;
  const form = await api(`/api/games/${game.name}/setup`).catch(() => ({game: game.name}));
  if (setupState.game !== game.name) return;
  setupState.form = form;
  // the form says what the game's setup is made of: a box of cards, or a token sheet
  if (form.cards) setupState.model = pyramidModel(form);
  else if (form.sheet) setupState.model = sheetModel(form);
  else if (form.power_cards) setupState.model = {kind: "power", form, chosen: []};
  $("#json-box").hidden = !setupState.model;
  drawSetup();
  scheduleCheck(0);
}

function renderOptions(game) {
  const box = $("#options");
  box.replaceChildren();
  for (const o of game.options) {
    let input;
    if (typeof o.default === "boolean") {
      input = el("input", {type: "checkbox", name: "opt:" + o.name});
      input.checked = o.default;
    } else if (o.choices) {
      input = el("select", {name: "opt:" + o.name}, ...o.choices.map((c) => el("option", {value: c}, String(c))));
      input.value = o.default;
    } else {
      input = el("input", {name: "opt:" + o.name, value: o.default,
        inputmode: typeof o.default === "number" ? "numeric" : null});
    }
    input.addEventListener("change", () => scheduleCheck());
    const label = el("label", {class: typeof o.default === "boolean" ? "check" : ""},
      typeof o.default === "boolean" ? input : "", ` ${o.name.replaceAll("_", " ")} `,
      el("span", {class: "prov"}, o.provenance.split(" ")[0]), typeof o.default === "boolean" ? "" : input);
    box.append(el("div", {class: "option"}, label, el("small", {class: "doc"}, o.doc)));
  }
  // a game whose rules set no limit (IceDice: players [2, null]) takes as many as the API
  // does: 8 (device/web/schemas.py, MatchIn.players)
  const most = game.players[1] ?? 8;
  const players = $("[name=players]");
  players.min = game.players[0]; players.max = most;
  if (+players.value < game.players[0]) players.value = game.players[0];
  if (+players.value > most) players.value = most;
}

function renderNameInputs() {
  const box = $("#names");
  const n = Math.max(1, Math.min(8, Number($("[name=players]").value) || 1));
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren(el("legend", {}, "Names (optional)"), ...Array.from({length: n}, (_, i) =>
    el("input", {name: "player-name", maxlength: 24, "aria-label": `name of player ${i + 1}`,
      placeholder: `P${i + 1}`, value: old[i] || "", oninput: relabelSeats})));
}

// Seats: the edge of the camera's picture each player sits at, so that the camera can tell
// who threw by the side the arm comes from (engine/thrower.py). Prefilled as
// engine.thrower.default_seats; "not set" for anyone leaves seats out.
const EDGES = ["bottom", "left", "top", "right"];
function defaultSeat(i, n) { return n === 2 ? ["bottom", "top"][i] : n <= 4 ? EDGES[i] : ""; }

// each seat is labelled with its player's name as typed (P1, P2... until then)
function seatLabel(i) {
  const name = (document.querySelectorAll("[name=player-name]")[i] || {}).value;
  return `${(name || "").trim() || `P${i + 1}`} sits at`;
}

function renderSeatInputs() {
  const box = $("#seats");
  const n = Math.max(1, Math.min(8, Number($("[name=players]").value) || 1));
  const old = [...box.querySelectorAll("select")].map((i) => i.value);
  box.replaceChildren(el("legend", {}, "Seats"),
    el("p", {class: "hint"}, "The edge of the camera's picture each player sits at: the camera tells who threw by it."),
    ...Array.from({length: n}, (_, i) => {
      const select = el("select", {name: "player-seat", "aria-label": `seat of player ${i + 1}`},
        ...["", ...EDGES].map((e) => el("option", {value: e}, e || "not set")));
      select.value = old.length === n ? old[i] : defaultSeat(i, n);
      return el("label", {class: "seat"}, el("span", {class: "who"}, seatLabel(i)), select);
    }));
}

function relabelSeats() {
  document.querySelectorAll("#seats label.seat .who").forEach((node, i) => { node.textContent = seatLabel(i); });
}

function options(game) {
  const out = {};
  const form = $("#new-form");
  for (const o of game.options) {
    const field = form.elements["opt:" + o.name];
    if (typeof o.default === "boolean") out[o.name] = field.checked;
    else if (typeof o.default === "number") out[o.name] = /^-?\d+$/.test(field.value.trim()) ? Number(field.value) : field.value;
    else out[o.name] = field.value;
  }
  return out;
}

// --- the setup the form builds ------------------------------------------------------------
function formSetup() {
  const m = setupState.model;
  if (!m) return null;
  if (m.kind === "power") return m.chosen.length ? {cards: [...m.chosen]} : {};
  return m.kind === "pyramid" ? pyramidSetup(m) : sheetSetup(m);
}

function currentSetup() {
  if (setupState.jsonDirty) {
    const text = $("#setup-json").value.trim();
    if (!text) return {setup: null};
    try { return {setup: JSON.parse(text)}; } catch (e) { return {error: `The setup JSON is not valid: ${e.message}`}; }
  }
  return {setup: formSetup()};
}

function formChanged() {
  if (!setupState.jsonDirty) {
    const setup = formSetup();
    $("#setup-json").value = setup && Object.keys(setup).length ? JSON.stringify(setup, null, 1) : "";
  }
  scheduleCheck();
}

function scheduleCheck(wait = 350) {
  clearTimeout(setupState.timer);
  setupState.timer = setTimeout(checkSetup, wait);
}

async function checkSetup() {
  const game = currentGame();
  const {setup, error} = currentSetup();
  const seq = ++setupState.seq;
  if (error) { showErrors([{path: [], message: error}]); return false; }
  let verdict;
  try {
    verdict = await api(`/api/games/${game.name}/setup/check`, {method: "POST",
      body: JSON.stringify({players: Number($("[name=players]").value), options: options(game), setup})});
  } catch (e) {
    if (seq === setupState.seq) showErrors([{path: [], message: e.message}]);
    return false;
  }
  if (seq !== setupState.seq) return null;  // a newer check is on its way
  showErrors(verdict.errors);
  return verdict.ok;
}

function showErrors(errors) {
  setupState.errors = errors;
  for (const n of document.querySelectorAll("#new-form [aria-invalid]")) n.removeAttribute("aria-invalid");
  for (const n of document.querySelectorAll("#new-form .msg")) { n.textContent = ""; n.hidden = true; }
  const general = [];
  for (const err of errors) {
    const key = err.path.join(".");
    const field = document.querySelector(`#new-form [data-path="${CSS.escape(key)}"]`);
    if (field) {
      field.setAttribute("aria-invalid", "true");
      const folded = field.closest("details");  // a wrong card is shown, not folded away
      if (folded) folded.open = true;
    }
    // the message goes under the nearest enclosing part that has a place for it
    let path = err.path.slice();
    let msg = null;
    while (path.length && !msg) {
      msg = document.querySelector(`#new-form .msg[data-for="${CSS.escape(path.join("."))}"]`);
      path = path.slice(0, -1);
    }
    if (msg) { msg.textContent = msg.textContent ? msg.textContent + " " + err.message : err.message; msg.hidden = false; }
    else general.push(err.message);
  }
  const status = $("#setup-status");
  status.textContent = general.join(" ");
  status.className = general.length ? "error" : "";
  $("#setup-summary").textContent = errors.length ? `${errors.length} problem${errors.length > 1 ? "s" : ""} to fix before the match can start.` : "";
}

async function createMatch(ev) {
  ev.preventDefault();
  const game = currentGame();
  const form = ev.target;
  const {setup, error} = currentSetup();
  if (error) { showErrors([{path: [], message: error}]); toast(error); return; }
  const ok = setupState.model || setupState.jsonDirty ? await checkSetup() : true;
  if (ok === false) {
    toast("The setup has problems: see the messages in red.");
    const first = document.querySelector("#new-form [aria-invalid], #new-form .msg:not([hidden])");
    if (first) first.scrollIntoView({block: "center"});
    return;
  }
  const names = [...form.querySelectorAll("[name=player-name]")].map((i) => i.value.trim());
  const body = {game: game.name, players: Number(form.elements.players.value), options: options(game),
                title: form.elements.title.value.trim()};
  if (names.some(Boolean)) body.names = names;
  const seats = [...form.querySelectorAll("[name=player-seat]")].map((i) => i.value);
  if (seats.length && seats.every(Boolean)) body.seats = seats;
  if (setup && Object.keys(setup).length) body.setup = setup;
  try {
    const created = await api("/api/matches", {method: "POST", body: JSON.stringify(body)});
    location.hash = "#/m/" + created.id;
  } catch (e) { toast(e.message); showErrors([{path: [], message: e.message}]); }
}

function drawSetup() {
  const m = setupState.model;
  if (!m) { $("#setup-box").replaceChildren(); return; }
  $("#setup-box").replaceChildren(...(m.kind === "pyramid" ? drawPyramidSetup(m)
    : m.kind === "power" ? drawPowerSetup(m) : drawSheetSetup(m)));
  formChanged();
}

// --- a box of Power Cards: the ones the table shows, by category ----------------------------
function drawPowerSetup(m) {
  const f = m.form;
  const wanted = Object.entries(f.counts).map(([k, n]) => `${n} ${k}`).join(" and ");
  const have = (cat) => m.chosen.filter((n) => (f.power_cards.find((c) => c.name === n) || {}).category === cat).length;
  const groups = Object.keys(f.counts).map((cat) => el("fieldset", {class: "power-cards", "data-category": cat},
    el("legend", {}, `${cat} cards (${have(cat)} of ${f.counts[cat]})`),
    ...f.power_cards.filter((c) => c.category === cat).map((c) => {
      const box = el("input", {type: "checkbox", name: "power-card", value: c.name, disabled: c.playable ? null : ""});
      box.checked = m.chosen.includes(c.name);
      box.addEventListener("change", () => {
        m.chosen = box.checked ? [...m.chosen, c.name] : m.chosen.filter((n) => n !== c.name);
        drawSetup();
      });
      return el("label", {class: "power-card", title: c.playable ? c.text.join(" / ") : c.why_not},
        box, ` ${c.name} `, el("small", {}, `${c.class} · cost ${c.cost} · ${c.glory} glory${c.playable ? "" : " · not played yet"}`));
    })));
  return [el("fieldset", {id: "power-box"}, el("legend", {}, "Cards in play"),
    el("p", {class: "hint"}, `${f.doc} Tick the ${wanted} cards your table shows.`),
    el("p", {class: "hint", id: "power-tally"}, m.chosen.length ? `Chosen: ${m.chosen.length} cards.` : "None chosen: the cards are dealt at random."),
    msg("cards"), ...groups)];
}

// --- Pyramid Dice: cards, layout, placement ----------------------------------------------
function pyramidModel(form) {
  return {kind: "pyramid", form, cards: form.cards.example.map((c) => ({...c})),
          counts: {...form.cards.counts}, rows: form.layout.rows, placement: null};
}

function triangle(rows) {
  const slots = [];
  for (let r = 1; r <= rows; r++) for (let c = 1; c <= r; c++) {
    slots.push({slot: `r${r}c${c}`, covered_by: r < rows ? [`r${r + 1}c${c}`, `r${r + 1}c${c + 1}`] : []});
  }
  return {slots, order: slots.map((s) => s.slot)};
}

const numberOr = (v) => (/^\s*-?\d+\s*$/.test(v) ? Number(v) : v === "" ? null : v);

function cleanCard(c) {
  const out = {id: c.id, kind: c.kind, number: numberOr(String(c.number ?? "")),
    points: numberOr(String(c.points ?? "")), back: numberOr(String(c.back ?? ""))};
  if (c.kind === "god") out.ability = c.ability || null;
  return out;
}

function pyramidSetup(m) {
  const setup = {};
  const cards = m.cards.map(cleanCard);
  const example = m.form.cards.example.map(cleanCard);
  if (JSON.stringify(cards) !== JSON.stringify(example)) setup.cards = cards;
  const d = m.form.cards.counts;
  if (m.counts.treasure !== d.treasure || m.counts.god !== d.god) setup.card_counts = {...m.counts};
  if (m.rows !== m.form.layout.rows) setup.layout = triangle(m.rows);
  if (m.placement) setup.placement = {...m.placement};
  return setup;
}

function msg(path) { return el("div", {class: "msg", "data-for": path, role: "alert", hidden: true}); }

function cardRow(m, card, i) {
  const path = (f) => `cards.${i}.${f}`;
  const set = (f) => (ev) => { card[f] = ev.target.value; if (f === "kind") { drawSetup(); return; } formChanged(); };
  const field = (f, label, input) => el("label", {class: "f-" + f}, el("span", {}, label), input);
  const god = card.kind === "god";
  const input = (f, attrs) => el("input", {"data-path": path(f), "aria-label": `card ${i + 1} ${f}`,
    value: card[f] ?? "", oninput: set(f), ...attrs});
  const select = (f, values, attrs = {}) => {
    const s = el("select", {"data-path": path(f), "aria-label": `card ${i + 1} ${f}`, onchange: set(f), ...attrs},
      ...values.map((v) => el("option", {value: v}, String(v))));
    s.value = card[f] ?? values[0];
    return s;
  };
  return el("li", {class: "card-row", "data-row": i},
    el("div", {class: "row-head"}, el("b", {}, `${i + 1}`),
      field("id", "id", input("id", {maxlength: 24, autocapitalize: "off", spellcheck: "false"})),
      field("kind", "kind", select("kind", m.form.cards.kinds)),
      el("button", {type: "button", class: "remove", "aria-label": `remove card ${i + 1}`,
        onclick: () => { m.cards.splice(i, 1); m.placement = null; drawSetup(); }}, "✕")),
    el("div", {class: "row-body"},
      field("number", "number", input("number", {inputmode: "numeric", size: 3})),
      field("points", "points", input("points", {inputmode: "numeric", size: 3})),
      field("back", "back", select("back", m.form.cards.backs)),
      god ? field("ability", "ability", select("ability", m.form.cards.abilities)) : el("span", {class: "f-ability"})),
    msg(`cards.${i}`));
}

function drawPyramidSetup(m) {
  const example = JSON.stringify(m.cards.map(cleanCard)) === JSON.stringify(m.form.cards.example.map(cleanCard));
  const counts = ["treasure", "god"].map((k) => el("label", {class: "count"}, `${k} cards `,
    el("input", {type: "number", min: 0, inputmode: "numeric", value: m.counts[k], "data-path": "card_counts",
      oninput: (ev) => { m.counts[k] = Number(ev.target.value); formChanged(); }})));
  const have = {treasure: m.cards.filter((c) => c.kind === "treasure").length, god: m.cards.filter((c) => c.kind === "god").length};
  return [
    el("fieldset", {id: "cards-box"}, el("legend", {}, "Cards"),
      el("p", {class: example ? "warning" : "hint"}, example
        ? `${m.form.cards.provenance}. These are an example to try the game; enter your box's cards (number, points, back, and each god card's ability).`
        : "Your cards, as entered (not the example)."),
      el("div", {class: "row wrap"}, ...counts),
      el("p", {class: "hint", id: "card-tally"}, `Entered: ${have.treasure} treasure + ${have.god} god = ${m.cards.length} cards.`),
      msg("card_counts"), msg("cards"),
      // folded while the example is loaded: the form stays short and Start in sight
      el("details", {id: "card-rows-box", open: !example || m.rowsOpen ? true : null,
        ontoggle: (ev) => { m.rowsOpen = ev.target.open; }},
      el("summary", {}, `${example ? "Enter your box's cards" : "Your cards"} (${m.cards.length})`),
      el("ol", {class: "card-rows"}, ...m.cards.map((c, i) => cardRow(m, c, i))),
      el("div", {class: "row wrap"},
        el("button", {type: "button", id: "add-card", onclick: () => {
          m.cards.push({id: `c${m.cards.length + 1}`, kind: "treasure", number: "", points: 1, back: 1});
          m.placement = null; drawSetup();
          const rows = document.querySelectorAll(".card-row"); rows[rows.length - 1].scrollIntoView({block: "center"});
        }}, "Add a card"),
        el("button", {type: "button", class: "quiet", onclick: () => { Object.assign(m, pyramidModel(m.form)); drawSetup(); }}, "Back to the example")))),
    // the example's layout and a seeded shuffle are fine to try the game: folded too
    el("details", {id: "pyramid-box", open: m.rows !== m.form.layout.rows || m.placement || m.pyramidOpen ? true : null,
      ontoggle: (ev) => { m.pyramidOpen = ev.target.open; }},
    el("summary", {}, "The pyramid: rows, and where each card lies"),
    el("fieldset", {id: "layout-box"}, el("legend", {}, "Pyramid"),
      el("label", {}, "Rows (1 card at the apex, one more each row) ",
        el("input", {type: "number", min: 1, max: 12, value: m.rows, inputmode: "numeric", "data-path": "layout",
          oninput: (ev) => { m.rows = Number(ev.target.value) || 1; m.placement = null; drawPlacement(m); formChanged(); }})),
      el("p", {class: "hint"}, `${m.form.layout.provenance}: ${m.form.layout.doc}`),
      msg("layout")),
    el("fieldset", {id: "placement-box"}, el("legend", {}, "Where each card lies"),
      el("label", {class: "check"}, el("input", {type: "checkbox", id: "placement-on", checked: m.placement ? true : null,
        onchange: (ev) => { m.placement = ev.target.checked ? defaultPlacement(m) : null; drawPlacement(m); formChanged(); }}),
        " Enter the cards as they lie on the table (else the match assumes a seeded shuffle — fine for trying, wrong for a real table)"),
      el("div", {id: "placement-grid"}), msg("placement"))),
  ];
}

function defaultPlacement(m) {
  const {order} = triangle(m.rows);
  const ids = [...m.cards.filter((c) => String(c.back) === "2"), ...m.cards.filter((c) => String(c.back) !== "2")].map((c) => c.id);
  return Object.fromEntries(order.map((s, i) => [s, ids[i] || ""]));
}

function drawPlacement(m) {
  const grid = $("#placement-grid");
  if (!grid) return;
  if (!m.placement) { grid.replaceChildren(); return; }
  const ids = m.cards.map((c) => c.id);
  // players see the numbers on the table: a card is picked by its number (and its id when
  // two cards share a number)
  const count = {};
  for (const c of m.cards) count[c.number] = (count[c.number] || 0) + 1;
  const label = (id) => { const c = m.cards.find((x) => x.id === id); return !c ? id : count[c.number] > 1 ? `${c.number} ${id}` : String(c.number); };
  const rows = [];
  for (let r = 1; r <= m.rows; r++) {
    rows.push(el("div", {class: "pyr-row"}, ...Array.from({length: r}, (_, k) => {
      const slot = `r${r}c${k + 1}`;
      const s = el("select", {"aria-label": `card in ${slot}`, "data-slot": slot, "data-path": "placement",
        onchange: (ev) => {  // picking a card that lies elsewhere swaps the two
          const other = Object.keys(m.placement).find((x) => x !== slot && m.placement[x] === ev.target.value);
          if (other) m.placement[other] = m.placement[slot];
          m.placement[slot] = ev.target.value;
          drawPlacement(m); formChanged();
        }}, el("option", {value: ""}, "—"), ...ids.map((id) => el("option", {value: id}, label(id))));
      s.value = m.placement[slot] || "";
      return s;
    })));
  }
  grid.replaceChildren(el("p", {class: "hint"}, "Row 1 is the apex (far side). Picking a card that lies elsewhere swaps the two."), ...rows);
}

document.addEventListener("DOMContentLoaded", () => {
  $("#cancel-new").addEventListener("click", () => { location.hash = ""; });
  $("#new-form").addEventListener("submit", createMatch);
  $("#game-select").addEventListener("change", () => gameChanged().catch((e) => toast(e.message)));
  $("[name=players]").addEventListener("input", () => { renderNameInputs(); renderSeatInputs(); scheduleCheck(); });
  $("#setup-json").addEventListener("input", () => { setupState.jsonDirty = true; scheduleCheck(); });
  $("#json-reset").addEventListener("click", () => { setupState.jsonDirty = false; formChanged(); });
});
