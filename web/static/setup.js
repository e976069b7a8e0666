/* Camera setup page: unlock with the table PIN, then refresh the annotated snapshot and the
 * advice about once a second (the next request only after the last one finished). */
(function () {
  "use strict";
  const body = document.body;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;

  const form = document.getElementById("unlock");
  if (form) {
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const r = await fetch("/api/unlock", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify({ pin: document.getElementById("pin").value }),
      });
      if (r.ok) { location.reload(); return; }
      const doc = await r.json().catch(() => ({}));
      document.getElementById("pin-error").textContent = doc.message || "That did not work.";
    });
    return;
  }
  if (body.dataset.unlocked !== "1" || body.dataset.feed !== "1") return;

  const img = document.getElementById("shot");
  const status = document.getElementById("status");
  const advice = document.getElementById("advice");
  const figures = document.getElementById("figures");

  const stale = document.getElementById("stale");

  function show(doc) {
    // a frozen picture must not pass for live: say how old it is, above everything else
    stale.hidden = !doc.frame_stale;
    stale.textContent = doc.frame_stale
      ? `No new frame for ${Math.round(doc.frame_age_s)} s: is the camera connected?` : "";
    const ok = doc.ok && !doc.frame_stale;
    status.textContent = doc.frame_stale ? "No live picture" : ok ? "Camera ready" : "Camera needs attention";
    status.className = ok ? "ok" : "todo";
    advice.replaceChildren(...doc.advice.map((a) => {
      const li = document.createElement("li");
      li.textContent = a.text;
      li.dataset.code = a.code;
      return li;
    }));
    const px = doc.px_per_hex_side;
    const parts = [`markers found: ${doc.markers.found.join(", ") || "none"}`];
    if (px.farthest !== null) parts.push(`px per hex side: nearest ${px.nearest}, farthest ${px.farthest} (minimum ${px.minimum})`);
    if (doc.focus.laplacian_variance !== null) {
      parts.push(`focus (variance of the Laplacian): ${doc.focus.laplacian_variance}, ` +
                 (doc.focus.soft.length ? `soft at the ${doc.focus.soft.join(", ")}` : "sharp"));
    }
    figures.textContent = parts.join(" · ");
    body.dataset.rendered = "1";
  }

  async function tick() {
    try {
      const r = await fetch("/setup/report.json", { credentials: "same-origin", cache: "no-store" });
      const doc = await r.json();
      if (r.ok) {
        show(doc);
        await new Promise((resolve) => {
          img.onload = img.onerror = resolve;
          img.src = "/setup/snapshot.jpg?t=" + Date.now();
        });
      } else {
        status.textContent = doc.message || "No picture";
        status.className = "todo";
      }
    } catch (e) {
      status.textContent = "The companion does not answer";
      status.className = "todo";
    }
    setTimeout(tick, 1000);
  }
  tick();
})();
