// Pyradice's Token Reference Sheet and Objective Cards, entered on the new-match page:
// each entry a shape from the engine's vocabulary with its parameters (the form is built
// from the vocabulary the server sends, so a new shape needs no change here).
"use strict";

const SHEET_KINDS = {skills: "skill", objectives: "objective", cards: "card"};

function sheetModel(form) {
  const sheet = {};
  for (const key of Object.keys(SHEET_KINDS)) sheet[key] = form.sheet[key].map((d) => ({...d}));
  return {kind: "sheet", form, sheet, edited: false};
}

function sheetSetup(m) {
  if (!m.edited) return {};
  const out = {};
  for (const key of Object.keys(SHEET_KINDS)) out[key] = m.sheet[key].map((d) => cleanDefinition(m, key, d));
  return {sheet: out};
}

function cleanDefinition(m, key, d) {
  const schema = m.form.shapes[SHEET_KINDS[key]][d.shape] || {};
  const out = {id: d.id, shape: d.shape};
  for (const [name, p] of Object.entries(schema)) {
    const v = d[name];
    if (v === undefined || v === "" || v === null) continue;
    if (["values", "levels", "deltas", "ints"].includes(p.type)) {
      out[name] = Array.isArray(v) ? v : String(v).split(/[ ,]+/).filter(Boolean).map(numberOr);
    } else if (p.type === "colours") {
      out[name] = Array.isArray(v) ? v : String(v).split(/[ ,]+/).filter(Boolean);
    } else if (p.type === "int") {
      out[name] = numberOr(String(v));
    } else {
      out[name] = v;
    }
  }
  out.text = d.text || "";
  if (d.provenance) out.provenance = d.provenance;
  return out;
}

function definitionRow(m, key, d, i) {
  const kind = SHEET_KINDS[key];
  const path = (f) => `sheet.${key}.${i}${f ? "." + f : ""}`;
  const edited = () => { m.edited = true; delete d.provenance; };
  const shapes = m.form.shapes[kind];
  const shape = el("select", {"data-path": path("shape"), "aria-label": `${kind} ${d.id} shape`,
    onchange: (ev) => { d.shape = ev.target.value; edited(); drawSetup(); }},
    ...Object.keys(shapes).map((s) => el("option", {value: s}, s.replaceAll("_", " "))));
  shape.value = d.shape;
  const params = Object.entries(shapes[d.shape] || {}).map(([name, p]) => {
    const value = d[name] ?? (p.default ?? "");
    let input;
    if (p.type === "bool") {
      input = el("input", {type: "checkbox", checked: value === true ? true : null,
        onchange: (ev) => { d[name] = ev.target.checked; edited(); formChanged(); }});
    } else if (p.choices) {
      input = el("select", {onchange: (ev) => { d[name] = ev.target.value; edited(); formChanged(); }},
        ...p.choices.map((c) => el("option", {value: c}, c)));
      input.value = value;
    } else {
      input = el("input", {value: Array.isArray(value) ? value.join(", ") : value,
        placeholder: p.required ? "required" : "optional",
        oninput: (ev) => { d[name] = ev.target.value; edited(); formChanged(); }});
    }
    input.setAttribute("data-path", path(name));
    input.setAttribute("aria-label", `${kind} ${d.id} ${name}`);
    return el("label", {}, el("span", {}, name), input);
  });
  const verified = /VERIFIED/.test(d.provenance || "");
  return el("li", {class: "def-row"},
    el("div", {class: "row-head"},
      el("label", {class: "f-id"}, el("span", {}, "id"), el("input", {value: d.id, "data-path": path("id"),
        "aria-label": `${kind} id`, oninput: (ev) => { d.id = ev.target.value; edited(); formChanged(); }})),
      el("label", {}, el("span", {}, "shape"), shape),
      el("span", {class: verified ? "prov ok" : d.provenance ? "prov" : "prov mine"},
        verified ? "verified" : d.provenance ? "example" : "yours")),
    el("div", {class: "row-body"}, ...params),
    el("label", {class: "f-text"}, el("span", {}, "wording"), el("input", {value: d.text || "",
      oninput: (ev) => { d.text = ev.target.value; edited(); formChanged(); }})),
    msg(path("")));
}

function drawSheetSetup(m) {
  return [el("fieldset", {id: "sheet-box"}, el("legend", {}, "Token Reference Sheet and Objective Cards"),
    el("p", {class: "warning"}, `${m.form.provenance}.`),
    el("p", {class: "hint"}, "Edit an entry to match your own sheet; what you change is marked as yours."),
    ...Object.keys(SHEET_KINDS).map((key) => el("details", {}, el("summary", {}, `${key} (${m.sheet[key].length})`),
      msg(`sheet.${key}`),
      el("ol", {class: "def-rows"}, ...m.sheet[key].map((d, i) => definitionRow(m, key, d, i))))))];
}

