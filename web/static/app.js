/* The dashboard: reads /api/state, follows /api/events (SSE), sends table inputs.
 * Plain DOM, no framework, no build step.  Every change is a POST with the page's CSRF
 * token; the server refuses it until this browser is unlocked with the table PIN.
 */
"use strict";
(() => {
  const $ = (sel) => document.querySelector(sel);
  const CSRF = document.querySelector('meta[name="csrf-token"]').content;
  const INITIAL = MycBoard.PLAYER_INITIAL;
  const NUT = [["pink", "P"], ["yellow", "Y"], ["white", "W"]];
  const cap = (s) => s ? s[0].toUpperCase() + s.slice(1) : "";
  // the missions as the rulebook's cards name them (7)
  const MISSION_TITLES = { funga: "Funga", forest_symbiosis: "Forest Symbiosis", forest_communication: "Forest Communication" };
  let S = null;             // the latest /api/state
  let selected = null;      // [q, r] tapped on the board
  let replay = null;        // {seq, of, position, text, last_move_at} while stepping through
  let es = null, lastId = 0, refreshTimer = null, refreshing = false, again = false;
  const HAND_PX = 52;       // hand tiles: big enough to tell apart across the table
  const OPEN_SHORT = { "place or discard a tile": "place", "move the meeple": "move", "remove a tile or rock": "remove",
    "use the spore ability": "spore", "give a nutrient": "give", "buy a mushroom card": "buy" };

  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "class") e.className = attrs[k];
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] === true) e.setAttribute(k, "");
      else if (attrs[k] !== false && attrs[k] != null) e.setAttribute(k, attrs[k]);
    }
    for (const c of kids.flat()) if (c != null) e.append(c.nodeType ? c : document.createTextNode(String(c)));
    return e;
  }
  function chip(color, extra) {
    return h("span", { class: "pchip p-" + color, title: color }, INITIAL[color] || "?", extra ? " " + extra : "");
  }
  /** A short message above the table inputs (never over a button a player needs: the inputs
   * sit at the bottom on every layout); a tap dismisses it. */
  function toast(msg, bad) {
    const t = $("#toast");
    if ($("#dlg").open) { if (bad) dlgError(msg); return; }   // nothing shows under a dialog: its errors go in it
    t.textContent = msg; t.className = bad ? "bad" : ""; t.hidden = false;
    const bar = $("#actions").getBoundingClientRect();
    t.style.bottom = bar.height ? `${Math.max(8, window.innerHeight - bar.top + 8)}px` : "";
    if (bar.height) {   // landscape: the inputs lie under the board only; keep the toast over the board too
      t.style.left = `${(bar.left + bar.right) / 2}px`;
      t.style.maxWidth = `${Math.max(200, bar.width - 16)}px`;
    }
    clearTimeout(toast.timer);
    toast.timer = setTimeout(hideToast, bad ? 6000 : 3000);
  }
  function hideToast() { clearTimeout(toast.timer); $("#toast").hidden = true; }

  // --- talking to the server ---------------------------------------------------------------
  async function post(path, body) {
    const r = await fetch("/api/" + path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
      body: JSON.stringify(body || {}),
    });
    let doc = {};
    try { doc = await r.json(); } catch (e) { doc = { message: "The server answered " + r.status }; }
    if (!r.ok) { const err = new Error(doc.message || ("refused: " + r.status)); err.code = doc.error; err.status = r.status; throw err; }
    return doc;
  }
  /** Load /api/state and draw it.  A state older than what this page has seen (its ``seq``
   * below the last message id known when asking) means the server restarted: start over from
   * it and follow the stream from its ``seq``.  Another ``game`` id means a new game. */
  async function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    try {
      const known = lastId;
      const r = await fetch("/api/state", { credentials: "same-origin", cache: "no-store" });
      if (r.ok) {
        const doc = await r.json();
        const restarted = applyState(doc, known);
        relay("state", { doc, restarted });  // the other tabs of this browser draw it without asking again
      }
    } catch (e) { /* the stream will reconnect */ }
    refreshing = false;
    if (again) { again = false; refresh(); }
  }
  function applyState(doc, known) {
    const restarted = (doc.seq || 0) < known;
    if (restarted || (S && doc.game !== S.game)) startOver();
    S = doc;
    if (restarted) { lastId = S.seq || 0; connect(); }
    render();
    return restarted;
  }
  /** A state relayed by the leader tab: its own restart verdict holds (a message relayed while
   * it loaded may have taken this tab's last id past the state's). */
  function applyRelayed(doc, restarted) {
    if (restarted || (S && doc.game !== S.game)) startOver();
    if (restarted) lastId = doc.seq || 0;
    S = doc;
    render();
  }
  /** Forget everything tied to the old game or the old server: replay, selection, dialogs
   * that act on it. */
  function startOver() {
    replay = null; selected = null;
    if (dlg.open && !$("#pin-input")) closeDialog();
  }
  function scheduleRefresh() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => { refreshTimer = null; refresh(); }, 30);
  }
  // --- one event stream per browser ------------------------------------------------------------
  /* A browser keeps at most six connections per host, and each QR scan opens a new tab: with
   * a stream per tab the seventh tab never loads.  So the tabs of one browser elect a leader
   * (a lease in localStorage, renewed every second) that alone holds the EventSource and
   * relays each message to the others over a BroadcastChannel.  When the leader closes, it
   * hands over at once; when it dies, another tab takes over after the lease runs out (4 s)
   * and resumes from the last message id it had relayed, so nothing is missed.  Web Locks
   * would be simpler but exist only on https or localhost, not on the table's Wi-Fi. */
  const TAB_ID = Date.now().toString(36) + Math.random().toString(36).slice(2);
  const LEASE_KEY = "mycelium-stream-leader", LEASE_MS = 4000, BEAT_MS = 1000;
  let chan = null, leading = false, streamOpened = false;
  try { chan = new BroadcastChannel("mycelium-events"); localStorage.getItem(LEASE_KEY); } catch (e) { chan = null; }
  function readLease() { try { return JSON.parse(localStorage.getItem(LEASE_KEY) || "null"); } catch (e) { return null; } }
  function beat() {
    if (!chan) { if (!leading) { leading = true; connect(); } return; }
    const now = Date.now(), lease = readLease();
    if (!lease || lease.until < now || lease.id === TAB_ID) {
      localStorage.setItem(LEASE_KEY, JSON.stringify({ id: TAB_ID, until: now + LEASE_MS }));
      const mine = (readLease() || {}).id === TAB_ID;
      if (mine && !leading) { leading = true; connect(); }
      if (mine) chan.postMessage({ type: "beat", id: TAB_ID });
    } else if (leading) stepDown();
  }
  function stepDown() {
    leading = false;
    if (es) { es.close(); es = null; }
  }
  function handLease(id) {
    const lease = readLease();
    if (lease && lease.id === TAB_ID) localStorage.setItem(LEASE_KEY, JSON.stringify({ id, until: Date.now() + LEASE_MS }));
  }
  /* A follower drew a relayed message; the state after it comes relayed too, unless the leader
   * stepped down or closed while loading it.  Then nobody would send it: load it here. */
  let catchUpTimer = null;
  function awaitRelayedState() {
    if (catchUpTimer) return;
    catchUpTimer = setTimeout(() => {
      catchUpTimer = null;
      if (!leading && (!S || (S.seq || 0) < lastId)) refresh();
    }, 1500);
  }
  function relay(type, extra) { if (chan && leading) chan.postMessage(Object.assign({ type, id: TAB_ID }, extra || {})); }
  function startStreamSharing() {
    if (chan) chan.onmessage = (ev) => {
      const m = ev.data || {};
      // two leaders after a race: the lower id stays, and the lease is handed to it, or it would
      // read this tab's lease at its next beat and step down too, leaving nobody for 4 s
      if (m.type === "beat" && leading && m.id < TAB_ID) { stepDown(); handLease(m.id); }
      else if (m.type === "msg" && !leading) { onMessage(m.data, m.lastEventId, false); awaitRelayedState(); }
      // a state relayed while this tab loads its own may be the newer one: load again after
      else if (m.type === "state" && !leading && m.doc) { if (!refreshing) applyRelayed(m.doc, m.restarted); else again = true; }
      else if (m.type === "open" && !leading) setLink(true);
      else if (m.type === "down" && !leading) setLink(false);
      else if (m.type === "bye" && !leading) setTimeout(beat, 20 + Math.random() * 80);
    };
    window.addEventListener("pagehide", () => {
      if (!leading) return;
      const lease = readLease();
      if (lease && lease.id === TAB_ID) localStorage.removeItem(LEASE_KEY);
      relay("bye");
      stepDown();
    });
    beat();
    setInterval(beat, BEAT_MS);
  }
  /** A message of the stream; ``fetch``: load the state (the leader does, and relays it). */
  function onMessage(data, eventId, fetch = true) {
    let msg = {};
    try { msg = JSON.parse(data); } catch (e) { return; }
    if (msg.kind === "full") { setLink(false); toast(msg.data.message, true); return; }   // too many screens
    if (msg.kind === "reset") {
      // a new game, missed messages or a restarted server: the id may go down
      lastId = Number(eventId) || 0;
      startOver();
    } else lastId = Math.max(lastId, Number(eventId) || 0);
    document.body.dataset.lastEvent = String(lastId);
    if (fetch) scheduleRefresh();
  }
  function connect() {
    if (!leading) return;
    if (es) es.close();
    es = new EventSource("/api/events?last=" + lastId);
    // every reconnection reloads the state: after a server restart nothing else would (the
    // first opening follows the state just loaded from its seq: nothing to reload)
    // a tab taking the stream over may hold messages whose state nobody relayed: load it too
    es.onopen = () => {
      setLink(true); relay("open");
      if (streamOpened || !S || (S.seq || 0) < lastId) refresh();
      streamOpened = true;
    };
    es.onmessage = (ev) => { relay("msg", { data: ev.data, lastEventId: ev.lastEventId }); onMessage(ev.data, ev.lastEventId); };
    es.onerror = () => {
      setLink(false);
      relay("down");
      if (es && es.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    };
  }
  function setLink(ok) { document.body.classList.toggle("offline", !ok); }

  // --- the PIN ---------------------------------------------------------------------------------
  function unlocked() { return S && S.viewer && S.viewer.unlocked; }
  function withPin(then) {
    if (unlocked()) return then();
    let entered = "";
    const shown = h("div", { class: "pin-shown", "aria-live": "polite" }, "······");
    const pad = h("div", { class: "pinpad" });
    const show = () => { shown.textContent = entered.replace(/./g, "●") || "······"; };
    for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"]) {
      pad.append(h("button", { type: "button", class: "pinkey", "data-key": d, onclick: async () => {
        if (d === "⌫") entered = entered.slice(0, -1);
        else if (d === "OK") return submit();
        else if (entered.length < 8) entered += d;
        show();
      } }, d));
    }
    const input = h("input", { type: "password", inputmode: "numeric", autocomplete: "off", id: "pin-input", "aria-label": "Table PIN",
      oninput: (e) => { entered = e.target.value.replace(/\D/g, "").slice(0, 8); show(); },
      onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); submit(); } } });
    async function submit() {
      try {
        await post("unlock", { pin: entered });
        closeDialog();
        await refresh();
        toast("Unlocked: this tablet can change the game.");
        if (then) then();
      } catch (e) { dlgError(e.message); entered = ""; input.value = ""; show(); }
    }
    openDialog("Table PIN", [h("p", {}, "Changes need the PIN shown where the companion was started."), input, shown, pad], []);
    setTimeout(() => input.focus(), 50);
  }

  // --- dialogs -------------------------------------------------------------------------------
  const dlg = $("#dlg");
  /** ``foot``: elements shown above the buttons, outside the part that scrolls (what a
   *  disabled button waits for stays beside it). */
  function openDialog(title, body, buttons, foot = []) {
    $("#dlg-title").textContent = title;
    $("#dlg-body").replaceChildren(...body);
    for (const e of document.querySelectorAll("#dlg-form > .dlg-foot")) e.remove();
    $("#dlg-error").before(...foot.map(e => { e.classList.add("dlg-foot"); return e; }));
    $("#dlg-error").textContent = "";
    hideToast();   // a toast would sit under the dialog's backdrop, half hidden
    const bar = $("#dlg-buttons");
    bar.replaceChildren(...buttons.map(b => h("button", { type: "button", class: b.primary ? "primary" : "", id: b.id || null, onclick: b.onclick }, b.label)),
      h("button", { type: "button", class: "cancel", onclick: closeDialog }, "Close"));
    if (!dlg.open) dlg.showModal();
  }
  function closeDialog() { if (dlg.open) dlg.close(); }
  function dlgError(msg) { $("#dlg-error").textContent = msg; }
  /** Send a table input from a dialog: PIN first if needed, errors shown in the dialog;
   * ``onRefused(error)`` after a refusal (the dialog stays open). */
  function send(path, body, done, onRefused) {
    const go = async () => {
      try {
        const r = await post(path, body);
        closeDialog();
        toast(done || "Done.");
        scheduleRefresh();
        return r;
      } catch (e) {
        if (e.code === "pin_required") { withPin(() => send(path, body, done)); return; }
        if (dlg.open) dlgError(e.message); else toast(e.message, true);
        if (onRefused) await onRefused(e);
      }
    };
    if (!unlocked()) return withPin(go);
    return go();
  }
  function choiceRow(name, values, current, onpick) {
    const row = h("div", { class: "choices", role: "radiogroup", "data-name": name });
    for (const [v, label] of values) {
      row.append(h("button", { type: "button", role: "radio", "aria-checked": String(v === current), "data-value": v,
        class: v === current ? "on" : "", onclick: (e) => {
          for (const b of row.children) { b.classList.remove("on"); b.setAttribute("aria-checked", "false"); }
          e.currentTarget.classList.add("on"); e.currentTarget.setAttribute("aria-checked", "true"); onpick(v);
        } }, label));
    }
    return row;
  }

  // --- rendering -------------------------------------------------------------------------------
  /* A tab in the background draws nothing until it is shown again: ten tabs of one tablet
   * would otherwise redraw the board ten times per move. */
  let renderPending = false;
  document.addEventListener("visibilitychange", () => { if (!document.hidden && renderPending) { renderPending = false; render(); } });
  function render() {
    if (!S) return;
    if (document.hidden) { renderPending = true; return; }
    lastId = Math.max(lastId, S.seq || 0);
    document.body.dataset.lastEvent = String(lastId);
    document.body.dataset.game = S.game || "";
    document.body.classList.toggle("replaying", !!replay);
    const pos = replay ? replay.position : S.position;
    renderTop(pos);
    renderBanners(pos);
    renderBoard();
    renderPlayers(pos);
    renderMarket(pos);
    renderGoals(S.position);
    renderLog();
    renderActions();
    renderSpacePanel();
    if (dlg.open && $("#hint-move") && Number(dlg.dataset.hintFor) !== hintKey()) hintDialog();
    redrawPicker();
    const lock = $("#btn-lock");
    lock.textContent = unlocked() ? "Lock" : "Unlock";
    lock.dataset.locked = unlocked() ? "0" : "1";
    if (!document.body.dataset.rendered) document.body.dataset.firstRenderMs = performance.now().toFixed(1);
    document.body.dataset.rendered = "1";
  }

  function renderTop(pos) {
    const turn = $("#turn");
    turn.replaceChildren();
    if (pos.result) {
      const w = pos.result.winners || [];
      turn.append("Game over", w.length ? " · " : "", ...w.flatMap(c => [chip(c), " "]), w.length ? (w.length > 1 ? "win" : "wins") : "");
    }
    else if (!pos.board.spores || Object.keys(pos.board.spores).length < pos.players.length) {
      // the set-up's next step for a player: the draws come before the spores (rulebook 3)
      // (the first spore waits for the substrate tokens while they are still to lay, 2.c)
      const ps = replay ? [] : S.players, next = ps.find(p => (p.setup || "").startsWith("draw"))
        || ps.find(p => p.setup === "place the spore" || p.setup === "place the spore after the substrate tokens");
      if (next) turn.append("Set-up: ", chip(next.color), " ", cap(next.color), ": " + next.setup);
      else turn.append("Set-up: ", chip(pos.active), " ", cap(pos.active), " places a spore");
    }
    else turn.append(`Turn ${pos.turn && pos.turn.number || 1} · `, chip(pos.active), " ", cap(pos.active), " to play");
    renderLastMove();
    const t = replay ? replayTargets() : (S.targets || {});
    const decks = pos.decks || S.decks || {};
    const parts = [h("span", { class: "counter", id: "bag" }, `Bag ${pos.bag}`), h("span", { class: "counter", id: "decks" }, `Decks A ${decks.a} · B ${decks.b}`)];
    if (pos.mode === "cooperative") parts.push(h("span", { class: "counter" }, `VP ${t.vp} / ${t.target}`));
    else if (pos.mode === "team") parts.push(h("span", { class: "counter" }, Object.entries(t.teams || {}).map(([k, v]) => `Team ${k}: ${v}`).join(" · ") + ` / ${t.target}`));
    else parts.push(h("span", { class: "counter" }, `Goal ${t.target} VP`));
    parts.push(h("span", { class: "counter mode" }, cap(pos.mode) + (pos.mode === "cooperative" ? " · " + cap(pos.difficulty) : "")));
    $("#counters").replaceChildren(...parts);
    const badge = $("#replay-badge");
    badge.hidden = !replay;
    badge.textContent = replay ? `REPLAY · move ${replay.seq} of ${replay.of} · not live` : "";
    const st = S.status || {};
    const detail = S.status_detail || {};
    $("#devices").replaceChildren(...["camera", "reader"].map(d => h("span", { class: "dev " + (st[d] === "ok" || st[d] === "connected" ? "ok" : st[d] === "none" ? "none" : "bad"), title: detail[d] || d }, `${cap(d)}: ${st[d] || "none"}`)));
    // a camera or reader problem is said in words, not only as a red chip
    const bad = ["camera", "reader"].filter(d => st[d] && !["ok", "connected", "none"].includes(st[d]) && detail[d]);
    const db = $("#device-banner");
    if (db) { db.textContent = bad.map(d => `${cap(d)}: ${detail[d]}`).join(" · "); db.hidden = !bad.length; }
  }

  /** The last move in words ("Blue places a pink-yellow tile at F8") with a small picture of
   * its tile, so nobody has to find the ★ on the board. */
  function renderLastMove() {
    const box = $("#lastmove");
    const ev = replay ? (replay.seq ? { text: replay.text, move: replay.move } : null) : (S.log.length ? S.log[S.log.length - 1] : null);
    if (!ev) { box.replaceChildren(); box.hidden = true; return; }
    const mv = ev.move || {}, code = mv.tile || mv.paths;
    box.hidden = false;
    box.title = ev.text;
    box.replaceChildren(h("span", { class: "lm-label" }, replay ? "Replayed: " : "Last: "),
      typeof code === "string" && /^([PYG]|ROCK)/.test(code) ? MycBoard.tileIcon(code, 30) : "",
      h("span", { class: "lm-text" }, cap(ev.text)));
  }

  /** The replayed position's targets, from its players (cooperative total, team sums). */
  function replayTargets() {
    const t = Object.assign({}, S.targets || {}), ps = replay.players || [];
    t.vp = ps.reduce((s, p) => s + p.vp, 0);
    t.teams = {};
    for (const p of ps) if (p.team) t.teams[p.team] = (t.teams[p.team] || 0) + p.vp;
    return t;
  }

  // where an illegal move came from, in words (serve's bots have no camera)
  const FROM_SOURCE = { camera: "seen by the camera", dashboard: "entered on the dashboard",
                        answer: "answered on the dashboard", bot: "played by a demo bot" };

  function renderBanners(pos) {
    const ill = $("#illegal-banner");
    if (S.illegal && !replay) {
      const m = S.illegal.move || {};
      // the reason once: the rules' message (its rulebook wording stays in the tooltip)
      ill.replaceChildren(h("span", { class: "msg", title: S.illegal.explain || "" }, h("strong", {}, "✕ Illegal: "), S.illegal.message || S.illegal.explain || "",
        h("span", { class: "who" }, ` — ${cap(m.player)}'s ${m.action || "move"}, ${FROM_SOURCE[S.illegal.source] || "from " + S.illegal.source}`)),
        h("button", { type: "button", class: "small", onclick: () => send("clear-illegal", {}, "Marked as put back.") }, "Put back"));
      ill.hidden = false;
    } else ill.hidden = true;
    const q = $("#question-banner");
    if (S.question && !replay) {
      // the heading says what is asked; why, in smaller type under it; the answers side by side
      q.replaceChildren(h("span", { class: "msg" }, h("strong", { class: "q-title" }, S.question.title || S.question.prompt),
        S.question.detail ? h("span", { class: "q-detail" }, " " + S.question.detail) : ""),
        h("div", { class: "answers" }, ...S.question.choices.map((c, i) => h("button", { type: "button", class: "answer",
          onclick: () => send("answer", { id: S.question.id, choice: i }, "Answered.") }, c.label))));
      q.hidden = false;
    } else q.hidden = true;
    renderChoices();
    renderSetup();
    const res = $("#result-banner");
    if (pos.result && !replay) {
      const w = pos.result.winners || [];
      // one flex item: wrapped on a phone, the reason must not start a line with a stray dash
      res.replaceChildren(h("span", { class: "msg" }, h("strong", {}, w.length ? "Winner: " + w.map(cap).join(", ") : "Game over"),
        pos.result.reason ? ": " + pos.result.reason : ""));
      res.hidden = false;
    } else res.hidden = true;
    const rb = $("#replay-banner");
    if (replay) {
      rb.replaceChildren(h("span", { class: "msg" }, h("strong", {}, `Replay: move ${replay.seq} of ${replay.of}`), " — " + replay.text,
        h("span", { class: "who" }, " · board, players and market as they stood then")),
        h("button", { type: "button", class: "small", onclick: () => { replay = null; render(); } }, "Back to live"));
      rb.hidden = false;
    } else rb.hidden = true;
  }

  function renderBoard() {
    const view = replay
      ? { board: S.board, position: replay.position, networks: [], last_move_at: replay.last_move_at, illegal: null, corrections: [], selected: null }
      : { board: S.board, position: S.position, networks: S.networks, last_move_at: S.last_move_at, illegal: S.illegal, corrections: S.corrections, selected };
    MycBoard.render($("#board"), view, { onSpace: (at) => {
      selected = selected && selected[0] === at[0] && selected[1] === at[1] ? null : at;
      if (!replay) { renderBoard(); renderSpacePanel(); }
    } });
  }

  function spaceInfo(at) {
    const pos = S.position, b = pos.board, k = (a) => a && a[0] + "," + a[1], key = k(at);
    const label = (S.board.spaces.find(s => k(s.at) === key) || {}).label || key;
    const bits = [];
    const t = (b.tiles || []).find(x => k(x.at) === key); if (t) bits.push("tile " + t.paths);
    if ((b.rocks || []).some(r => k(r) === key)) bits.push("rock");
    const tr = (b.trees || []).find(x => k(x.at) === key);
    if (tr) bits.push(`tree ${S.board.trees[key] || ""} (${tr.mycorrhizae.filter(Boolean).length}/4 mycorrhizae)`);
    const sb = (b.substrates || []).find(x => k(x.at) === key); if (sb) bits.push(sb.kind + " substrate");
    for (const c in b.spores || {}) if (b.spores[c] && k(b.spores[c].at) === key) bits.push(`${c}'s spore (${b.spores[c].used ? "used" : "ready"})`);
    for (const c in b.meeples || {}) if (k(b.meeples[c]) === key) bits.push(`${c}'s meeple`);
    const fix = (S.corrections || []).find(c => k(c.at) === key);
    return { label, bits, fix, nets: (S.networks || []).filter(n => n.spaces.some(a => k(a) === key)) };
  }

  function renderSpacePanel() {
    const p = $("#space-panel");
    if (!selected || replay) { p.hidden = true; return; }
    const info = spaceInfo(selected);
    p.replaceChildren(
      h("div", { class: "sp-title" }, h("strong", {}, "Space " + info.label), " — ", info.bits.length ? info.bits.join(", ") : "empty"),
      ...info.nets.map(n => h("div", { class: "sp-net" }, h("span", { class: "swatch " + n.color }, n.color[0].toUpperCase()),
        ` ${n.color} network: ${n.spaces.length} tile${n.spaces.length === 1 ? "" : "s"}` + (n.spores.length ? ", spores of " + n.spores.join(", ") : ""))),
      info.fix ? h("div", { class: "sp-fix" }, "✎ fixed by hand: " + describeContent(info.fix.content)) : "",
      h("div", { class: "sp-buttons" },
        h("button", { type: "button", id: "sp-fix", onclick: () => fixDialog(selected) }, "Fix this space"),
        h("button", { type: "button", onclick: () => { selected = null; render(); } }, "Close")));
    p.hidden = false;
  }
  function describeContent(c) {
    if (!c) return "trust the camera";
    return c.kind === "tile" ? "tile " + c.paths : c.kind;
  }

  function renderPlayers(pos) {
    const box = $("#players");
    const note = $("#side-note");
    note.hidden = !replay;
    note.textContent = replay ? `Players and market after move ${replay.seq} of ${replay.of} (replay)` : "";
    box.replaceChildren(...(replay ? replay.players : S.players).map(p => {
      const nut = NUT.map(([c, l]) => h("span", { class: "nut " + c, title: c }, l, h("b", {}, String(p.nutrients[c] || 0))));
      const full = p.nutrient_total >= p.nutrient_cap;
      const hand = h("span", { class: "hand", title: "hand" }, ...p.hand.map(code => MycBoard.tileIcon(code, HAND_PX)));
      const spore = !p.spore ? "no spore yet" : p.spore.at === null ? "spore off" : p.spore.used ? "spore used" : "spore ✓";
      const active = p.active && !pos.result;  // after the game nobody is to play
      const row = h("div", { class: "player" + (active ? " active" : ""), "data-color": p.color,
        title: `${cap(p.color)}: ${p.vp} VP, ${p.cards.length} card${p.cards.length === 1 ? "" : "s"}, ${spore}` },
        h("div", { class: "pname" }, chip(p.color), h("span", { class: "pn" }, cap(p.color)),
          p.team ? h("span", { class: "pteam", title: `${cap(p.color)} plays in team ${p.team}` }, `team ${p.team}`) : "", active ? h("span", { class: "turnmark" }, "▶ to play") : "",
          h("span", { class: "spore-state " + (p.spore && !p.spore.used ? "ready" : "") }, spore)),
        hand,
        h("div", { class: "pstats" },
          h("span", { class: "nuts" }, ...nut, h("span", { class: "cap" + (full ? " full" : "") }, `${p.nutrient_total}/${p.nutrient_cap}`)),
          h("span", { class: "vp" }, `${p.vp} VP`, h("span", { class: "ncards" }, ` · ${p.cards.length} card${p.cards.length === 1 ? "" : "s"}`))),
        (active && (p.open_actions.length || hintsOn())) || drawsHere(p.color) || p.setup
          ? h("div", { class: "open", title: p.open_actions.join(" · ") }, active && p.open_actions.length ? "Still open: " + p.open_actions.map(a => OPEN_SHORT[a] || a).join(" · ")
            : p.setup ? h("span", { class: "setup-task" }, "Set-up: " + p.setup) : "",
            drawsHere(p.color) ? h("button", { type: "button", id: "btn-draw", class: "draw", onclick: drawDialog }, "Drew a tile") : "",
            active && hintsOn() && !replay ? h("button", { type: "button", id: "btn-hint", class: "hint", onclick: hintDialog }, "What can I do?") : "") : "");
      return row;
    }));
  }

  function nutBits(nut) {
    const out = [];
    for (const [c, l] of NUT) if (nut && nut[c]) out.push(h("span", { class: "nut " + c }, l, h("b", {}, String(nut[c]))));
    return out;
  }
  /** The card's cost as printed: the mycelium it needs, and its nutrients (in cooperative and
   * team modes one line per meeple colour, as the card shows them). */
  function cost(card, pos) {
    const parts = [];
    if (card.mycelia) parts.push(h("span", { class: "myc", title: `${card.mycelia.count} ${card.mycelia.color} tiles in one network` },
      h("span", { class: "swatch " + card.mycelia.color }, card.mycelia.color[0].toUpperCase()), `×${card.mycelia.count}`));
    if (pos.mode !== "competitive" && card.nutrients_by_meeple) {
      for (const p of pos.players) {
        const bits = nutBits(card.nutrients_by_meeple[p.color]);
        if (bits.length) parts.push(h("span", { class: "permeeple" }, chip(p.color), ...bits));
      }
    } else parts.push(...nutBits(card.nutrients));
    return parts;
  }
  /** What a player (as buyer) still lacks for a card, in a few characters; the sentence in
   * the tooltip. */
  function lacks(a, color) {
    if (a.can_buy) return h("span", { class: "lack yes", title: `${cap(color)} can buy it` }, chip(color), "✓");
    const bits = [];
    if (a.missing_tiles) bits.push(`⬡${a.missing_tiles}`);
    const miss = (a.missing_nutrients || {})[color] || {};
    for (const [c, l] of NUT) if (miss[c]) bits.push(`${l}${miss[c]}`);
    return h("span", { class: "lack", title: `${cap(color)}: ${a.shortfall || a.reason || "cannot buy"}` }, chip(color), bits.length ? "−" + bits.join(" ") : "✗");
  }

  function renderMarket(pos) {
    const box = $("#tab-market");
    const active = pos.active, over = !!pos.result;
    const market = replay ? replay.market : S.market;
    const cardBox = (card) => {
      const a = (card.afford || {})[active] || {};
      const canBuy = a.can_buy && !over && !replay;
      return h("div", { class: "card" + (canBuy ? " can" : ""), "data-card": card.id, title: card.effect ? card.effect.replace(/_/g, " ") : "" },
        h("div", { class: "cname" }, h("strong", { class: card.name.length > 16 ? "long" : "" }, card.name), h("span", { class: "cvp" }, `${card.vp} VP`), h("span", { class: "cdeck" }, (card.deck || "").toUpperCase())),
        h("div", { class: "ccost" }, ...cost(card, pos)),
        h("div", { class: "afford" }, ...pos.players.map(p => lacks((card.afford || {})[p.color] || {}, p.color))),
        canBuy ? h("button", { type: "button", class: "buy", onclick: () => buyDialog(card, a) }, "Buy…") : "");
    };
    // a real table turns its cards up by hand: each free place of a row asks for its card
    const offer = replay ? null : S.reveal;
    const slot = (deck) => h("div", { class: "card slot", "data-deck": deck },
      h("div", { class: "cname" }, h("strong", {}, `Deck ${deck.toUpperCase()}: no card`)),
      h("button", { type: "button", class: "turnup", onclick: () => revealDialog(deck) }, "Turn up a card"));
    const inA = ((pos.market || {}).a || []).length;   // the market lists deck A's cards, then deck B's
    box.replaceChildren(...["a", "b"].flatMap(deck => [
      ...(deck === "a" ? market.slice(0, inA) : market.slice(inA)).map(cardBox),
      ...Array.from({ length: offer && offer[deck] ? offer[deck].missing : 0 }, () => slot(deck))]));
  }

  function renderGoals(pos) {
    const box = $("#tab-goals");
    const rows = replay ? [h("div", { class: "live-note" }, "Live game (the board shows a replay)")] : [];
    const t = S.targets || {};
    if (pos.mode === "cooperative") {
      rows.push(h("h3", {}, `Cooperative (${pos.difficulty}): ${t.vp} of ${t.target} VP`), bar(t.vp, t.target));
      for (const m of S.missions) rows.push(h("div", { class: "mission" + (m.done ? " done" : "") },
        h("strong", {}, (m.done ? "✓ " : "") + (MISSION_TITLES[m.mission] || m.mission.replace(/_/g, " "))), ` ${m.value} / ${m.target}`, bar(m.value, m.target), h("div", { class: "detail" }, m.detail)));
    } else if (pos.mode === "team") {
      rows.push(h("h3", {}, `Teams — first to ${t.target} VP`));
      for (const [k, v] of Object.entries(t.teams || {})) rows.push(h("div", { class: "score" }, `Team ${k}: ${v} VP`, bar(v, t.target)));
    } else {
      rows.push(h("h3", {}, `Scores — first to ${t.target} VP`));
      for (const [c, v] of Object.entries(t.scores || {})) rows.push(h("div", { class: "score" }, chip(c), ` ${cap(c)}: ${v} VP`, bar(v, t.target)));
    }
    rows.push(h("p", {}, `Tiles left in the bag: ${pos.bag}.`));
    if (pos.result) rows.push(h("p", { class: "result" }, `Result: ${(pos.result.winners || []).map(cap).join(", ") || "no winner"} — ${pos.result.reason}`));
    box.replaceChildren(...rows);
  }
  function bar(v, max) {
    const pct = Math.max(0, Math.min(100, max ? (100 * v) / max : 0));
    const b = h("div", { class: "bar", role: "progressbar", "aria-valuenow": v, "aria-valuemax": max }, h("span", {}));
    b.firstChild.style.width = pct + "%";
    return b;
  }

  function renderLog() {
    const ol = $("#log");
    // Fixes of misread spaces are events of the game too: shown after the move they followed.
    const fixesAfter = {};
    for (const f of S.fixes || []) (fixesAfter[f.after] = fixesAfter[f.after] || []).push(f);
    const fixItems = n => (fixesAfter[n] || []).slice().reverse().map(f => h("li", { class: "fix" }, h("span", { class: "seq" }, "✎"), " Fix: " + f.text));
    const items = [];
    for (const e of S.log.slice().reverse()) {
      items.push(...fixItems(e.seq));
      items.push(h("li", { "data-seq": e.seq, class: replay && replay.seq === e.seq ? "on" : "", onclick: () => goReplay(e.seq) },
        h("span", { class: "seq" }, e.seq), " ", e.text, e.notes.length ? h("ul", {}, ...e.notes.map(n => h("li", {}, n))) : ""));
    }
    const first = S.log.length ? S.log[0].seq - 1 : 0;
    items.push(...fixItems(first));
    ol.replaceChildren(...items);
    $("#rp-pos").textContent = replay ? `${replay.seq} / ${replay.of}` : "live";
  }

  function renderActions() {
    const pos = S.position, over = !!pos.result;
    let note = $("#actions .live-note");
    if (replay && !note) $("#actions").prepend(h("div", { class: "live-note" }, "These act on the live game, not on the replay:"));
    else if (!replay && note) note.remove();
    $("#act-end").disabled = over;
    // a substrate token waits (5.a, 2.c): its control is in the bar only then; while it is due
    // the turn ends only after it is laid, and End turn says so
    const sub = S.substrate;
    let lay = $("#act-substrate");
    if (sub && !lay) $("#act-end").before(lay = h("button", { id: "act-substrate", type: "button", onclick: substrateDialog }));
    else if (!sub && lay) lay.remove();
    if (sub) { lay.textContent = `Lay ${sub.kind} substrate`; lay.classList.toggle("due", sub.due); lay.title = cap(sub.token); }
    $("#act-end").title = sub && sub.due ? sub.message : "";
    const u = $("#act-undo");
    const last = S.log.length ? S.log[S.log.length - 1] : null;
    u.disabled = !S.undo_allowed || undoBusy;
    u.title = undoBusy ? "Taking the move back…" : S.undo_allowed && last ? `Take back move ${last.seq}: ${last.text}`
      : "The last event is a tile the bag reader saw drawn (or there is none): it cannot be undone";
    $("#act-give").disabled = over;
    $("#act-swap").disabled = over;
  }

  // --- replay ------------------------------------------------------------------------------------
  async function goReplay(seq) {
    const n = S.log.length ? S.log[S.log.length - 1].seq : 0;
    seq = Math.max(0, Math.min(n, seq));
    try {
      const r = await fetch("/api/replay/" + seq, { credentials: "same-origin" });
      const doc = await r.json();
      if (!r.ok) throw new Error(doc.message);
      replay = doc;
      render();
    } catch (e) { toast(e.message, true); }
  }

  // --- table inputs ----------------------------------------------------------------------------
  /** Undo names the move it takes back (the server refuses a stale number with 409), the
   * button stays disabled while the request is in flight, and another player's move is taken
   * back only after asking. */
  let undoBusy = false;
  function undoLast() {
    const last = S.log.length ? S.log[S.log.length - 1] : null;
    if (!last || undoBusy || !S.undo_allowed) return;
    const go = () => {
      undoBusy = true;
      renderActions();
      return Promise.resolve(send("undo", { seq: last.seq }, `Move ${last.seq} taken back: ${last.text}`))
        .finally(() => { undoBusy = false; renderActions(); });
    };
    const who = last.move && last.move.player;
    if (who && who !== "table" && who !== S.position.active) {
      openDialog(`Undo ${cap(who)}'s move?`, [h("p", {}, `Move ${last.seq} was ${cap(who)}'s: ${last.text}. Take it back?`)],
        [{ label: `Undo ${cap(who)}'s move`, primary: true, id: "undo-confirm", onclick: go }]);
    } else go();
  }
  function buyDialog(card, a) {
    const sets = a.payable_sets || [];
    const body = [h("p", {}, `${cap(S.position.active)} buys ${card.name} (${card.vp} VP).`), h("p", {}, ...cost(card, S.position))];
    if (sets.length) body.push(h("p", { class: "detail" }, "Paid with " + sets.map(s => `${s.pick} of the ${s.color} tiles on ${s.tiles.length} spaces`).join(" or ") + "; take them off the board."));
    const deck = (card.deck || "").toUpperCase();
    const next = S.real_table && S.decks[card.deck] > 0 ? ` Turn up the next card of deck ${deck}.` : "";
    openDialog("Confirm purchase", body, [{ label: "Confirm purchase", primary: true, id: "buy-confirm", onclick: () => send("buy", { card: card.id }, `${card.name} bought.${next}`) }]);
  }

  // --- a real table's market: the cards turned up are tapped in -----------------------------------
  /** The set-up still to do (rulebook 2.c, 2.d, 3), else the next card to turn up after a
   * purchase: one banner above the board, with the button that enters it. */
  function renderSetup() {
    const box = $("#setup-banner");
    const steps = replay ? [] : (S.setup || []);
    const decks = replay || !S.reveal ? [] : ["a", "b"].filter(d => S.reveal[d]);
    const turnUp = (d) => h("button", { type: "button", class: "small turnup", "data-deck": d, onclick: () => revealDialog(d) }, `Turn up deck ${d.toUpperCase()}`);
    if (steps.length) {
      box.replaceChildren(h("span", { class: "msg" }, h("strong", {}, "Set-up still to do:"),
        h("ul", { class: "setup-steps" }, ...steps.map(st => h("li", { "data-step": st.key }, cap(st.text))))),
        ...(steps.some(st => st.key === "market") ? decks.map(turnUp) : []));
      box.hidden = false;
    } else if (decks.length) {
      box.replaceChildren(h("span", { class: "msg" }, h("strong", {}, decks.map(d =>
        `Turn up the next card of deck ${d.toUpperCase()}`).join("; ") + ":"), " the market shows an empty place until it is entered."),
        ...decks.map(turnUp));
      box.hidden = false;
    } else box.hidden = true;
  }
  /** The cards that may lie face down in ``deck`` (neither face up nor bought), each with its
   * name, VP and cost as the market shows it, to tap; Confirm plays the ``reveal``.  A mistake
   * is taken back with Undo. */
  function revealDialog(deck) {
    const D = deck.toUpperCase();
    pickerDialog({
      id: "reveal", gridClass: "cardpick", gridLabel: `Cards of deck ${D}`,
      offer: () => S.reveal && S.reveal[deck],
      owner: () => deck,
      title: () => `Turn up a card of deck ${D}`,
      intro: (offer) => `Tap the card turned face up from deck ${D} (${S.decks[deck]} face down; ${offer.missing} place${offer.missing === 1 ? "" : "s"} free). A mistake is taken back with Undo.`,
      none: () => `No card of deck ${D} is to be turned up now: its row is full or its deck is empty.`,
      items: (offer) => offer.cards.map(card => ({ key: card.id, attrs: { "data-card": card.id },
        kids: [h("span", { class: "cname" }, h("strong", {}, card.name), h("span", { class: "cvp" }, `${card.vp} VP`)),
               h("span", { class: "ccost" }, ...cost(card, S.position))] })),
      confirm: (offer, id) => `Confirm: ${offer.cards.find(c => c.id === id).name}`,
      move: (offer, id) => ({ player: "table", action: "reveal", deck, card: id }),
      done: (offer, id) => `${offer.cards.find(c => c.id === id).name} is face up on deck ${D}.`,
    });
  }

  // --- a table without a bag reader: the drawn tile is tapped in ----------------------------------
  function drawsHere(color) { return !!(S && S.draw && !replay && S.draw.player === color); }
  /** The tiles still in the bag as the hand shows them (picture and code), in a grid to tap;
   * Confirm plays the draw.  A tap only picks, it never sends; a confirmed mis-tap is taken
   * back with Undo until another move is entered. */
  function drawDialog() {
    const tileWord = (code) => code === "ROCK" ? "a rock" : code;
    pickerDialog({
      id: "draw", gridClass: "drawpick", gridLabel: "Tiles in the bag", clearOnMove: true,
      offer: () => S.draw,
      owner: (offer) => offer.player,
      title: (offer) => offer ? `${cap(offer.player)} drew a tile` : "Drew a tile",
      intro: (offer) => `Tap the tile ${cap(offer.player)} took from the bag (${S.bag} left). A mis-tap is taken back with Undo until the next move.`,
      none: () => "No draw is due now" + (S.choices ? ": the table waits for the players' choices first." : S.position.result ? ": the game is over."
        : ": every hand that may draw is full."),
      items: (offer) => offer.tiles.map(t => ({ key: t.code, attrs: { "data-code": t.code, title: t.code === "ROCK" ? "a rock" : "tile " + t.code },
        kids: [MycBoard.tileIcon(t.code, HAND_PX), h("span", { class: "code" }, t.code === "ROCK" ? "Rock" : t.code), h("span", { class: "left" }, `×${t.left}`)] })),
      confirm: (offer, code) => `Confirm: ${cap(offer.player)} drew ${tileWord(code)}`,
      move: (offer, code) => ({ player: offer.player, action: "draw", tile: code }),
      done: (offer, code) => `${cap(offer.player)} drew ${tileWord(code)}.`,
    });
  }

  // --- a substrate token laid by hand (the camera off or wrong) -----------------------------------
  /** The space printed on the substrate token drawn (rulebook 2.c, 5.a), tapped among the spaces
   * of that kind's tokens; a space the token may not land on says what holds it and cannot be
   * picked (that token is discarded and another drawn).  Confirm plays the ``substrate`` move. */
  function substrateDialog() {
    const spaceOf = (offer, label) => offer.spaces.find(sp => sp.label === label);
    pickerDialog({
      id: "substrate", gridClass: "spacepick", gridLabel: "Spaces printed on the tokens",
      offer: () => S.substrate,
      owner: (offer) => offer.kind,
      title: (offer) => offer ? `Lay ${offer.kind} substrate` : "Lay a substrate token",
      intro: (offer) => `Lay ${offer.token} (5.a): draw one of the ${offer.kind} tokens and tap the space printed on it.`
        + " A token whose space holds a tree, a spore or a substrate is discarded and another drawn.",
      none: () => "No substrate token is waiting to be laid.",
      items: (offer) => offer.spaces.map(sp => ({ key: sp.label, attrs: { "data-at": sp.at.join(","), disabled: !!sp.holds },
        kids: [h("strong", {}, sp.label), sp.holds ? h("span", { class: "why" }, `holds ${sp.holds}: draw another token`) : ""] })),
      confirm: (offer, label) => `Confirm: the ${offer.kind} token on ${label}`,
      move: (offer, label) => ({ player: "table", action: "substrate", kind: offer.kind, at: spaceOf(offer, label).at }),
      done: (offer, label) => `The ${offer.kind} substrate token is on ${label}.`,
    });
  }

  // --- pickers that follow the game (the draw, the card turned up) --------------------------------
  function moveCount() { return S.log.length ? S.log[S.log.length - 1].seq : 0; }
  let picker = null;   // redraws the open picker dialog from the latest state
  /** A dialog of things to tap, then *Confirm*, that follows the game while it is open: when
   * the state changes (a move entered on another tablet) its heading, text and grid are drawn
   * again from ``spec.offer()`` (or ``spec.none()`` when nothing is offered), and a line says
   * what moved.  A pick is made against the game as it was when tapped: with
   * ``spec.clearOnMove`` (the draw: a tile has copies) a move coming in meanwhile clears it, as
   * it may be the very draw being entered here, entered on another tablet; otherwise the pick is
   * kept while it is still offered to the same ``spec.owner``.  Confirm sends the number of moves the
   * pick was made against as ``after`` (409 ``stale`` when a move came in first, "already entered
   * by another tablet": the dialog is drawn again from the new state, the pick cleared) and is
   * disabled while the request is out, so a double tap enters once. */
  function pickerDialog(spec) {
    let picked = null, pickedAt = null, owner = null, shown = null, seen = moveCount(), busy = false;
    const ok = h("button", { type: "button", class: "primary", id: spec.id + "-ok", disabled: true }, "Confirm");
    const intro = h("p", { class: "detail" });
    const grid = h("div", { class: spec.gridClass, role: "radiogroup", "aria-label": spec.gridLabel });
    const form = h("div", { id: "picker-form", "data-picker": spec.id }, intro, grid);
    const showPick = () => {
      const offer = spec.offer();
      for (const b of grid.querySelectorAll("button")) {
        const on = b.dataset.key === picked;
        b.classList.toggle("on", on); b.setAttribute("aria-checked", String(on));
      }
      ok.disabled = busy || !picked || !offer;
      ok.textContent = picked && offer ? spec.confirm(offer, picked) : "Confirm";
    };
    const redraw = () => {
      const offer = spec.offer() || null, moves = moveCount();
      const key = JSON.stringify([offer, moves, S.bag, S.decks]);
      if (key === shown) return;   // nothing the dialog shows changed
      shown = key;
      const items = offer ? spec.items(offer) : [];
      const now = offer ? spec.owner(offer) : null;
      if (picked && (now !== owner || !items.some(it => it.key === picked))) picked = null;
      owner = now;
      if (moves !== seen) {
        const last = S.log.length ? S.log[S.log.length - 1] : null;
        // a tile has copies: the draw that came in may be the one picked here, so the pick goes;
        // a card is one of a kind: one still offered was not entered, and stays picked
        const clear = picked && spec.clearOnMove;
        dlgError((moves > seen && last ? `Move ${last.seq} was entered meanwhile: ${last.text}.` : `Move ${seen} was taken back meanwhile.`)
          + (clear ? " Your pick was cleared: tap again only if it is still to enter." : " Look again before confirming."));
        if (clear) picked = null; else if (picked) pickedAt = moves;
        seen = moves;
      }
      $("#dlg-title").textContent = spec.title(offer);
      intro.textContent = offer ? spec.intro(offer) : spec.none();
      grid.replaceChildren(...items.map(it => h("button", Object.assign({ type: "button", role: "radio", "aria-checked": "false", "data-key": it.key,
        onclick: () => { picked = it.key; pickedAt = moveCount(); dlgError(""); showPick(); } }, it.attrs), ...it.kids)));
      grid.hidden = !offer;
      showPick();
    };
    openDialog(spec.title(spec.offer()), [form], []);
    $("#dlg-buttons").prepend(ok);
    ok.onclick = () => {
      const offer = spec.offer();
      if (!picked || busy || !offer) return;
      busy = true;
      showPick();
      send("move", { move: spec.move(offer, picked), after: pickedAt }, spec.done(offer, picked), async (e) => {
        if (e.code === "stale") { await refresh(); picked = null; if (dlg.open) dlgError(e.message); }   // drawn again from the new state
        busy = false;
        if (dlg.open) showPick();
      });
    };
    picker = redraw;
    redraw();
  }
  function redrawPicker() {
    if (picker && dlg.open && $("#picker-form")) picker();
    else picker = null;
  }

  // --- "What can I do?" (table rule ``hints``) -------------------------------------------------
  function hintKey() { return S.log.length ? S.log[S.log.length - 1].seq : 0; }
  function hintsOn() { return !!(S && S.position.options && S.position.options.hints) && !S.position.result; }
  /** The greedy bot's suggestion for the active player and a plan per face-up card, as
   * ``mycelium-companion hint`` prints them; a read, so no PIN. */
  async function hintDialog() {
    const who = S.position.active;
    openDialog(`What can ${cap(who)} do?`, [h("p", { class: "detail" }, "Working it out…")], []);
    let doc;
    try {
      const r = await fetch("/api/hint", { credentials: "same-origin", cache: "no-store" });
      doc = await r.json();
      if (!r.ok) throw new Error(doc.message || "No hint now.");
    } catch (e) { dlgError(e.message); return; }
    if (!dlg.open) return;
    dlg.dataset.hintFor = String(hintKey());
    // An affordable card says when it can be bought (now, or after the placement, 6) and, in
    // its own line, why the suggestion waits; a card still to afford lists its steps.
    const cards = doc.cards.map(c => h("li", { class: "hint-card" + (c.can_buy ? " can" : ""), "data-card": c.card },
      h("strong", {}, c.name), ` (${c.vp} VP): `,
      c.can_buy ? h("span", { class: "yes" }, "can be bought now ✓")
        : c.status ? h("span", { class: "when" }, c.status) : h("ul", {}, ...c.steps.map(st => h("li", {}, st))),
      c.wait ? h("div", { class: "wait" }, "Why it waits: " + c.wait) : ""));
    openDialog(`What can ${cap(doc.player)} do?`, [h("div", { class: "hint-body" },
      h("p", { id: "hint-move" }, h("strong", {}, "Suggested: "), cap(doc.text)),
      h("p", { id: "hint-reason", class: "detail" }, "Why: " + (doc.reason.startsWith(doc.text) ? doc.reason.slice(doc.text.length).replace(/^[:;]\s*/, "") : doc.reason)),
      ...((doc.goals || []).length ? [h("h3", {}, "The team still needs"),
        h("ul", { id: "hint-goals" }, ...doc.goals.map(g => h("li", {}, g)))] : []),
      ...(cards.length ? [h("h3", {}, "To afford each card"), h("ul", { id: "hint-cards" }, ...cards)] : []))], []);   // none during the set-up
  }

  // --- the players' choices a move waits for (7.c "of their choice", 5.b, 5) -----------------------
  /* Each tablet may say whose it is (kept in this browser): that player's chooser opens by
   * itself; answering for another player (their tablet is away) is confirmed first. */
  const SEAT_KEY = "mycelium-seat";
  let autoOpened = null;
  function seat() { try { return localStorage.getItem(SEAT_KEY) || null; } catch (e) { return null; } }
  function setSeat(c) { try { localStorage.setItem(SEAT_KEY, c); } catch (e) { /* private mode: ask each time */ } }
  const NUT_WORD = { pink: "P pink", yellow: "Y yellow", white: "W white" };
  function colorsWords(cs) { return cs.map(c => c).join(", "); }
  const VERB = { gain: "choose", discard: "return", pay: "pay" };
  /** "the tile at E4" from a removal's reason ("Mycophages: the tile at E4 (4.c)"). */
  function removed(g) { const m = /: (the (?:tile|rock) at \S+) \(4\.c\)$/.exec(g.parts[0].why); return m ? m[1] : "what was removed"; }
  const cubes = (n) => `${n} cube${n === 1 ? "" : "s"}`;
  /** How many cubes of each colour ``player`` holds (a payment names only those, 4.c). */
  function held(player) { const p = S.players.find(x => x.color === player); return p ? p.nutrients : {}; }

  function renderChoices() {
    const box = $("#choices-banner");
    const p = S.choices;
    if (!p || replay) {
      box.hidden = true;
      if (dlg.open && $("#choice-form")) closeDialog();
      return;
    }
    const mine = seat();
    box.replaceChildren(h("span", { class: "msg" }, h("strong", {}, "Choose: "), cap(p.text) + "."),
      ...p.asked.map(g => g.answer
        ? h("span", { class: "chosen", "data-player": g.player }, chip(g.player), ` ✓ ${colorsWords(g.answer)}`, g.by_other ? " (answered from another tablet)" : "")
        : h("button", { type: "button", class: "small choose" + (g.player === mine ? " mine" : ""), "data-player": g.player,
            onclick: () => whoAnswers(g) }, chip(g.player), ` ${cap(g.player)}: ${VERB[g.kind] || "choose"} ${g.count}…`)),
      h("button", { type: "button", class: "small", id: "choices-withdraw", onclick: withdrawChoices }, "Withdraw move"));
    box.hidden = false;
    // the chooser follows the prompt: closed when it is answered elsewhere or gone
    const open = $("#choice-form");
    if (dlg.open && open) {
      const g = p.asked.find(x => x.player === open.dataset.player && x.kind === open.dataset.kind);
      // an earlier player's answer changed what the supply still holds (7.c): offer it anew
      if (open.dataset.prompt !== p.id || !g || g.answer || open.dataset.offer !== offerKey(g)) {
        closeDialog();
        autoOpened = null;
      }
    }
    const own = p.asked.find(g => g.player === mine && !g.answer);
    if (own && !dlg.open && autoOpened !== p.id + own.player + own.kind) {
      autoOpened = p.id + own.player + own.kind;
      chooser(own, false);
    }
  }

  /** The colours offered to ``g``, part by part: they change when an earlier player's answer
   * takes the last cube of a colour from the supply. */
  function offerKey(g) { return g.parts.map(part => part.colors.join(",")).join(";"); }

  /** Who is answering for ``g.player``: this tablet's player, or someone answering for them. */
  function whoAnswers(g) {
    const mine = seat(), who = cap(g.player);
    if (mine === g.player) return chooser(g, false);
    if (!mine) {
      return openDialog(`Is this ${who}'s tablet?`, [h("p", {}, `${who} ${g.kind === "pay" ? "pays" : "chooses"} ${g.count} nutrient${g.count === 1 ? "" : "s"}: ${g.why.join("; ")}.`)],
        [{ label: `I am ${who}`, primary: true, id: "seat-me", onclick: () => { setSeat(g.player); chooser(g, false); } },
         { label: `Answer for ${who} (their tablet is away)`, id: "answer-other", onclick: () => chooser(g, true) }]);
    }
    openDialog(`Answer for ${who}?`, [h("p", {}, `This is ${cap(mine)}'s tablet. Answer for ${who} only when ${who}'s tablet is away: ` +
      "the table sees that the answer came from another tablet.")],
      [{ label: `Answer for ${who}`, primary: true, id: "answer-other", onclick: () => chooser(g, true) },
       { label: `This is ${who}'s tablet now`, id: "seat-me", onclick: () => { setSeat(g.player); chooser(g, false); } }]);
  }

  /** Tap the colours: one section per run of entries offering the same colours (three
   * mycorrhizae are one section of 3 cubes), a count per colour, Confirm once every cube
   * is picked. */
  function chooser(g, other) {
    const sections = [];
    for (const part of g.parts) {
      const last = sections[sections.length - 1];
      if (last && last.colors.join() === part.colors.join()) { last.count += part.count; last.why.push(part.why); }
      else sections.push({ colors: part.colors, count: part.count, why: [part.why], picked: [] });
    }
    const ok = h("button", { type: "button", class: "primary", id: "choice-ok", disabled: true }, "Confirm");
    const draw = () => {
      for (const sec of sections) {
        for (const b of sec.row.children) {
          const c = b.dataset.color;
          if (!c) continue;
          b.querySelector("b").textContent = String(sec.picked.filter(x => x === c).length);
        }
        sec.left.textContent = sec.picked.length < sec.count ? `${sec.count - sec.picked.length} to pick` : "✓";
      }
      ok.disabled = !sections.every(sec => sec.picked.length === sec.count);
    };
    const detail = { discard: "Above the cap of 8: tap the cubes to return.",
      pay: `Pay ${cubes(g.count)} for removing ${removed(g)}: tap the cubes that go back to the supply.` }[g.kind] || "Tap a colour once per cube.";
    const body = [h("p", { class: "detail" }, detail)];
    const most = g.kind === "pay" ? held(g.player) : null;   // never more cubes of a colour than are held
    for (const sec of sections) {
      sec.left = h("span", { class: "left" });
      sec.row = h("div", { class: "choices nutpick" }, ...sec.colors.map(c => h("button", { type: "button", class: "nut " + c, "data-color": c,
        onclick: () => { if (sec.picked.length < sec.count && (!most || sec.picked.filter(x => x === c).length < (most[c] || 0))) sec.picked.push(c); draw(); } },
        NUT_WORD[c] || c, " ", h("b", {}, "0"))),
        h("button", { type: "button", class: "clear", onclick: () => { sec.picked = []; draw(); } }, "Clear"));
      body.push(h("div", { class: "choice-section" }, h("label", {}, `${sec.why.join(", ")}: ${sec.count} cube${sec.count === 1 ? "" : "s"} `, sec.left), sec.row));
    }
    const form = h("div", { id: "choice-form", "data-player": g.player, "data-kind": g.kind, "data-prompt": S.choices.id,
      "data-offer": offerKey(g) }, ...body);
    const who = cap(g.player);
    const title = g.kind === "pay" ? `pay ${cubes(g.count)} for removing ${removed(g)}` : `${VERB[g.kind] || "choose"} ${g.count} nutrient${g.count === 1 ? "" : "s"}`;
    openDialog(`${who}: ${title}` + (other ? ` (for ${who})` : ""), [form], []);
    $("#dlg-buttons").prepend(ok);
    ok.onclick = () => send("choose", { id: S.choices.id, player: g.player, kind: g.kind, colors: sections.flatMap(sec => sec.picked),
      seat: seat(), confirm_other: !!other }, `${who}'s choice is in.`);
    draw();
  }
  function withdrawChoices() {
    const p = S.choices;
    openDialog("Withdraw the move?", [h("p", {}, "The move waiting for these choices is not in the log yet. Withdraw it when it was misread, " +
      "or put the pieces back first; the camera asks again if it still sees it.")],
      [{ label: "Withdraw the move", primary: true, id: "withdraw-ok", onclick: () => send("choose/withdraw", { id: p.id }, "Move withdrawn.") }]);
  }


  /** The gift the rules allow now (state ``give``): the receivers the rules accept now only (the
   * teammate in team play, 9.b; a player on one network with the giver, 5.c, or on green
   * mycelium with Forest Symbiosis, 7.a), else why nobody can receive; a button per colour the giver holds, tapped once per cube up
   * to the gift's size (two with the Funga mission, 7.b "any two nutrients": one colour or two),
   * never more cubes of a colour than are held. */
  function giveDialog() {
    const offer = S.give, who = cap(S.position.active);
    const none = !offer ? "No gift can be made now." : !offer.amounts.length ? `${who} holds no nutrient to give.`
      : !offer.to.length && !offer.refused.length ? `${who} has nobody to give to in this game (table rule give_in_competitive).`
      : !offer.to.length ? `Nobody can receive a gift from ${who} now:` : "";
    // why each player cannot receive now, in the rules' words (5.c, 7.a, 9.b)
    const why = offer && !offer.to.length && offer.amounts.length
      ? [h("ul", { class: "detail", id: "give-refused" }, ...offer.refused.map(r => h("li", { "data-player": r.player }, `${cap(r.player)}: ${r.message}`)))] : [];
    if (none) return openDialog(`${who} gives nutrients`, [h("p", { class: "detail", id: "give-none" }, none), ...why], []);
    const max = Math.max(...offer.amounts);
    let to = offer.to[0], picked = [];
    const ok = h("button", { type: "button", class: "primary", id: "give-ok", disabled: true }, "Give");
    const left = h("span", { class: "left" });
    const count = (c) => picked.filter(x => x === c).length;
    const row = h("div", { class: "choices nutpick", "data-name": "nutrients" }, ...Object.keys(offer.held).map(c =>
      h("button", { type: "button", class: "nut " + c, "data-color": c, title: `${who} holds ${offer.held[c]}`, onclick: () => {
        if (max === 1) picked = [c];
        else if (picked.length < max && count(c) < offer.held[c]) picked.push(c);
        draw();
      } }, NUT_WORD[c] || c, " ", h("b", {}, "0"))),
      h("button", { type: "button", class: "clear", onclick: () => { picked = []; draw(); } }, "Clear"));
    const draw = () => {
      for (const b of row.children) if (b.dataset.color) b.querySelector("b").textContent = String(count(b.dataset.color));
      left.textContent = picked.length ? `(${picked.length} of ${max} cube${max === 1 ? "" : "s"})` : `(tap a colour once per cube, up to ${max})`;
      ok.disabled = !picked.length;
    };
    openDialog(`${who} gives nutrients`, [
      h("label", {}, "To"), choiceRow("to", offer.to.map(c => [c, cap(c)]), to, v => { to = v; }),
      h("label", {}, "Nutrients ", left), row,
    ], []);
    $("#dlg-buttons").prepend(ok);
    ok.onclick = () => {
      const nutrients = {};
      for (const c of picked) nutrients[c] = (nutrients[c] || 0) + 1;
      send("give", { to, nutrients }, "Given.");
    };
    draw();
  }

  function swapDialog() {
    let give = "pink", take = "white";
    openDialog(`${cap(S.position.active)} swaps a nutrient`, [
      h("label", {}, "Give back"), choiceRow("give", NUT.map(([c, l]) => [c, `${l} ${c}`]), give, v => { give = v; }),
      h("label", {}, "Take"), choiceRow("take", NUT.map(([c, l]) => [c, `${l} ${c}`]), take, v => { take = v; }),
    ], [{ label: "Swap", primary: true, id: "swap-ok", onclick: () => send("swap", { give, take }, "Swapped.") }]);
  }

  function fixDialog(at) {
    if (!at) { toast("Tap the misread space on the board first."); return; }
    const info = spaceInfo(at);
    let kind = "tile";
    const code = h("input", { id: "fix-code", type: "text", autocomplete: "off", autocapitalize: "characters", placeholder: "e.g. P03.G1", "aria-label": "Tile path code" });
    const preview = h("span", { class: "preview" });
    code.addEventListener("input", () => { preview.replaceChildren(/^[PYG][0-5]/.test(code.value.toUpperCase()) ? MycBoard.tileIcon(code.value.toUpperCase(), 64) : ""); });
    openDialog(`Fix space ${info.label}`, [
      h("p", {}, "The board reader sees: " + (info.bits.join(", ") || "nothing") + ". What really stands there?"),
      choiceRow("kind", [["tile", "Tile"], ["rock", "Rock"], ["empty", "Empty"], ["camera", "Trust camera"]], kind, v => { kind = v; code.disabled = v !== "tile"; }),
      h("label", { for: "fix-code" }, "Tile paths as placed (P pink, Y yellow, G green; edges 0-5, 0 = east, counter-clockwise)"), h("div", { class: "row" }, code, preview),
    ], [{ label: "Save", primary: true, id: "fix-ok", onclick: () => {
      const content = kind === "camera" ? null : kind === "tile" ? { kind: "tile", paths: code.value.trim().toUpperCase() } : { kind };
      send("correct", { at, content }, `Space ${info.label} corrected.`);
    } }]);
  }

  async function newGameDialog() {
    let opts;
    try { opts = await (await fetch("/api/setup")).json(); } catch (e) { toast("Cannot load the set-up options.", true); return; }
    let mode = S.position.mode, diff = S.position.difficulty || "easy";
    let order = S.position.players.map(p => p.color);
    let hints = !!(S.position.options || {}).hints;
    const teams = {};
    S.position.players.forEach((p, i) => { teams[p.color] = p.team || String(1 + (i % 2)); });
    const orderBox = h("div", { class: "choices order" });
    const trees = h("p", { class: "detail" });
    const teamBox = h("div", {});
    const problem = h("p", { id: "new-problem", class: "detail bad", role: "status" });
    /** What the set-up chosen so far lacks, in the words the server would refuse it with (its
     *  own check stays the authority), so the dialog says it before the replace and the PIN. */
    function setupProblem() {
      if (order.length < 1 || (order.length < 2 && mode !== "cooperative")) return "Tap at least two players.";
      if (mode !== "team") return "";
      if (order.length !== 4) return "Team mode needs 4 players, 2 vs 2 (rulebook 9).";
      const t = order.map(c => teams[c]);
      if (t.some(v => v !== "1" && v !== "2")) return "Give each player a team.";
      if (t.filter(v => v === "1").length !== 2) return "Team mode needs two teams of two.";
      if (t.some((v, i) => i && v === t[i - 1])) return "Turns alternate between the teams (rulebook 9.a): reorder the players.";
      return "";
    }
    function showProblem() {
      problem.textContent = setupProblem();
      const ok = document.getElementById("new-ok");
      if (ok) ok.disabled = !!problem.textContent;
    }
    function drawOrder() {
      orderBox.replaceChildren(...opts.colors.map(c => {
        const i = order.indexOf(c);
        return h("button", { type: "button", class: i >= 0 ? "on" : "", "data-color": c, onclick: () => {
          if (i >= 0) order.splice(i, 1); else order.push(c);
          drawOrder();
        } }, chip(c), " ", cap(c), i >= 0 ? h("b", { class: "ord" }, ` #${i + 1}`) : "");
      }));
      trees.textContent = "Trees on " + opts.trees[diff].map(t => `${t.id} ${t.label}`).join(", ");
      teamBox.replaceChildren(...(mode === "team" ? [h("label", {}, "Teams (turns must alternate)"), h("div", { class: "team-rows" }, ...order.map(c => h("div", { class: "row" }, chip(c), " ",
        choiceRow("team-" + c, [["1", "Team 1"], ["2", "Team 2"]], teams[c], v => { teams[c] = v; showProblem(); }))))] : []));
      showProblem();
    }
    drawOrder();
    openDialog("New game", [
      h("label", {}, "Mode"), choiceRow("mode", opts.modes.map(m => [m, cap(m)]), mode, v => { mode = v; drawOrder(); }),
      h("label", {}, "Difficulty (places the trees)"), choiceRow("difficulty", opts.difficulties.map(d => [d, cap(d)]), diff, v => { diff = v; drawOrder(); }), trees,
      h("label", {}, "Players — tap in turn order, first player first"), orderBox, teamBox,
      h("label", {}, "Table rule: the \u201cWhat can I do?\u201d hint button"),
      choiceRow("hints", [["off", "Off"], ["on", "On"]], hints ? "on" : "off", v => { hints = v === "on"; }),
    ], [{ label: "Start new game", primary: true, id: "new-ok", onclick: () => {
      if (setupProblem()) return showProblem();
      const body = { mode, difficulty: diff, players: order, options: { hints } };
      if (mode === "team") body.teams = Object.fromEntries(order.map(c => [c, teams[c]]));
      confirmReplace(() => send("new-game", body, "New game set up."));
    } }], [problem]);
    showProblem();
  }
  /** A game in progress is only replaced after a second, explicit yes. */
  function confirmReplace(go) {
    const pos = S.position, moves = S.log.length ? S.log[S.log.length - 1].seq : 0;
    if (pos.result || !moves) return go();
    openDialog("Replace the current game?", [
      h("p", {}, `The game in progress (turn ${pos.turn && pos.turn.number || 1}, ${moves} move${moves === 1 ? "" : "s"}) ends for everyone at the table. Its log is kept, but it cannot be continued here.`),
    ], [{ label: "Replace the game", primary: true, id: "new-confirm", onclick: go }]);
  }

  function selectTab(name) {
    document.body.dataset.tab = name;
    for (const o of document.querySelectorAll("#tabs button")) o.setAttribute("aria-selected", String(o.dataset.tab === name));
    for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== "tab-" + name;
  }

  function joinDialog() {
    const tpl = $("#join-qr").content.cloneNode(true);
    openDialog("Join this table", [h("div", { class: "join" }, tpl)], []);
  }

  // --- wiring ---------------------------------------------------------------------------------
  function wire() {
    $("#btn-join").onclick = joinDialog;
    $("#toast").onclick = hideToast;
    $("#btn-lock").onclick = async () => {
      if (!unlocked()) return withPin(null);
      // the unlock lives on the server: Lock ends it there, for this tablet or for all of them
      const lock = async (everyone) => {
        try {
          const r = await post("lock", { everyone });
          closeDialog();
          toast(everyone ? `Every tablet locked (${r.ended}): the PIN is needed again.` : "Locked: viewing only.");
        } catch (e) { dlgError(e.message); }
        refresh();
      };
      openDialog("Lock", [h("p", {}, "Changes will need the table PIN again.")],
        [{ label: "Lock this tablet", primary: true, id: "lock-this", onclick: () => lock(false) },
         { label: "Lock every tablet", id: "lock-all", onclick: () => lock(true) }]);
    };
    $("#act-end").onclick = () => send("end-turn", {}, "Turn ended.");
    $("#act-undo").onclick = undoLast;
    $("#act-give").onclick = giveDialog;
    $("#act-swap").onclick = swapDialog;
    $("#act-fix").onclick = () => fixDialog(selected);
    $("#act-new").onclick = newGameDialog;
    for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => selectTab(b.dataset.tab);
    // portrait screens show the board as a tab (it fills the width); landscape ones beside the panel
    const portrait = window.matchMedia("(orientation: portrait)");
    selectTab(portrait.matches ? "board" : "market");
    portrait.addEventListener("change", () => { if (!portrait.matches && document.body.dataset.tab === "board") selectTab("market"); });
    $("#rp-first").onclick = () => goReplay(0);
    $("#rp-prev").onclick = () => goReplay((replay ? replay.seq : (S.log.length ? S.log[S.log.length - 1].seq : 0)) - 1);
    $("#rp-next").onclick = () => { if (replay) goReplay(replay.seq + 1); };
    $("#rp-live").onclick = () => { replay = null; render(); };
    dlg.addEventListener("cancel", () => closeDialog());
  }

  window.addEventListener("DOMContentLoaded", async () => {
    wire();
    await refresh();
    startStreamSharing();
  });
  window.MycDashboard = { refresh, state: () => S, post, leading: () => leading, selectTab, seat, setSeat };
})();
