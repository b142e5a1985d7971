// Teach a die: photos of one face, taken with the phone's camera, sent one per request.
"use strict";

async function showEnrol() {
  leaveMatch();
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
    let res;
    try {
      res = await fetch(`/api/enrolment/${encodeURIComponent(die)}/${encodeURIComponent(face)}${query}`,
        {method: "POST", headers: keyHeaders({"Content-Type": file.type || "image/jpeg"}), body: file});
    } catch (e) {
      status.textContent = `${file.name}: no connection to the table; ${done} photo(s) sent.`;
      toast(status.textContent);
      break;
    }
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

document.addEventListener("DOMContentLoaded", () => {
  $("#cancel-enrol").addEventListener("click", () => { location.hash = ""; });
  $("#enrol-form").addEventListener("submit", enrolPhotos);
});
