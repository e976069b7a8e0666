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
  function toast(msg, bad) {
    const t = $("#toast");
    t.textContent = msg; t.className = bad ? "bad" : ""; t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 3000);
  }

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
        const restarted = (doc.seq || 0) < known;
        if (restarted || (S && doc.game !== S.game)) startOver();
        S = doc;
        if (restarted) { lastId = S.seq || 0; connect(); }
        render();
      }
    } catch (e) { /* the stream will reconnect */ }
    refreshing = false;
    if (again) { again = false; refresh(); }
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
  function connect() {
    if (es) es.close();
    es = new EventSource("/api/events?last=" + lastId);
    // every (re)connection reloads the state: after a server restart nothing else would
    es.onopen = () => { setLink(true); refresh(); };
    es.onmessage = (ev) => {
      let msg = {};
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.kind === "reset") {
        // a new game, missed messages or a restarted server: the id may go down
        lastId = Number(ev.lastEventId) || 0;
        startOver();
      } else lastId = Math.max(lastId, Number(ev.lastEventId) || 0);
      document.body.dataset.lastEvent = String(lastId);
      scheduleRefresh();
    };
    es.onerror = () => {
      setLink(false);
      if (es.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
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
  function openDialog(title, body, buttons) {
    $("#dlg-title").textContent = title;
    $("#dlg-body").replaceChildren(...body);
    $("#dlg-error").textContent = "";
    const bar = $("#dlg-buttons");
    bar.replaceChildren(...buttons.map(b => h("button", { type: "button", class: b.primary ? "primary" : "", id: b.id || null, onclick: b.onclick }, b.label)),
      h("button", { type: "button", class: "cancel", onclick: closeDialog }, "Close"));
    if (!dlg.open) dlg.showModal();
  }
  function closeDialog() { if (dlg.open) dlg.close(); }
  function dlgError(msg) { $("#dlg-error").textContent = msg; }
  /** Send a table input from a dialog: PIN first if needed, errors shown in the dialog. */
  function send(path, body, done) {
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
  function render() {
    if (!S) return;
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
    const lock = $("#btn-lock");
    lock.textContent = unlocked() ? "Lock" : "Unlock";
    lock.dataset.locked = unlocked() ? "0" : "1";
    if (!document.body.dataset.rendered) document.body.dataset.firstRenderMs = performance.now().toFixed(1);
    document.body.dataset.rendered = "1";
  }

  function renderTop(pos) {
    const turn = $("#turn");
    turn.replaceChildren();
    if (pos.result) turn.append("Game over");
    else if (!pos.board.spores || Object.keys(pos.board.spores).length < pos.players.length)
      turn.append("Set-up: ", chip(pos.active), " ", cap(pos.active), " places a spore");
    else turn.append(`Turn ${pos.turn && pos.turn.number || 1} · `, chip(pos.active), " ", cap(pos.active), " to play");
    const t = replay ? replayTargets() : (S.targets || {});
    const parts = [h("span", { class: "counter", id: "bag" }, `Bag ${pos.bag}`)];
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

  /** The replayed position's targets, from its players (cooperative total, team sums). */
  function replayTargets() {
    const t = Object.assign({}, S.targets || {}), ps = replay.players || [];
    t.vp = ps.reduce((s, p) => s + p.vp, 0);
    t.teams = {};
    for (const p of ps) if (p.team) t.teams[p.team] = (t.teams[p.team] || 0) + p.vp;
    return t;
  }

  function renderBanners(pos) {
    const ill = $("#illegal-banner");
    if (S.illegal && !replay) {
      const m = S.illegal.move || {};
      // the reason once: the rules' message (its rulebook wording stays in the tooltip)
      ill.replaceChildren(h("span", { class: "msg", title: S.illegal.explain || "" }, h("strong", {}, "✕ Illegal: "), S.illegal.message || S.illegal.explain || "",
        h("span", { class: "who" }, ` — ${cap(m.player)}'s ${m.action || "move"}, seen by the ${S.illegal.source}`)),
        h("button", { type: "button", class: "small", onclick: () => send("clear-illegal", {}, "Marked as put back.") }, "Put back"));
      ill.hidden = false;
    } else ill.hidden = true;
    const q = $("#question-banner");
    if (S.question && !replay) {
      q.replaceChildren(h("strong", {}, "? "), S.question.prompt,
        ...S.question.choices.map((c, i) => h("button", { type: "button", class: "answer", onclick: () => send("answer", { id: S.question.id, choice: i }, "Answered.") }, c.label)));
      q.hidden = false;
    } else q.hidden = true;
    const res = $("#result-banner");
    if (pos.result && !replay) {
      const w = pos.result.winners || [];
      res.replaceChildren(h("strong", {}, w.length ? "Winner: " + w.map(cap).join(", ") : "Game over"), " — " + (pos.result.reason || ""));
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
      const spore = !p.spore ? "no spore yet" : p.spore.at === null ? "spore displaced" : p.spore.used ? "spore used" : "spore ready";
      const row = h("div", { class: "player" + (p.active ? " active" : ""), "data-color": p.color },
        h("div", { class: "pname" }, chip(p.color), h("span", {}, cap(p.color) + (p.team ? ` (team ${p.team})` : "")), p.active ? h("span", { class: "turnmark" }, "▶ to play") : ""),
        hand,
        h("div", { class: "pstats" },
          h("span", { class: "nuts" }, ...nut, h("span", { class: "cap" + (full ? " full" : "") }, `${p.nutrient_total}/${p.nutrient_cap}`)),
          h("span", { class: "vp" }, `${p.cards.length} card${p.cards.length === 1 ? "" : "s"} · ${p.vp} VP`),
          h("span", { class: "spore-state " + (p.spore && !p.spore.used ? "ready" : "") }, spore)),
        p.active && !pos.result && p.open_actions.length
          ? h("div", { class: "open", title: p.open_actions.join(" · ") }, "Still open: ", p.open_actions.map(a => OPEN_SHORT[a] || a).join(" · ")) : "");
      return row;
    }));
  }

  function cost(card, pos) {
    const parts = [];
    if (card.mycelia) parts.push(h("span", { class: "swatch " + card.mycelia.color }, card.mycelia.color[0].toUpperCase()), ` ${card.mycelia.count} ${card.mycelia.color} tiles`);
    const nut = pos.mode === "competitive" ? card.nutrients : (card.nutrients_by_meeple || {})[pos.active] || card.nutrients;
    if (nut) for (const [c, l] of NUT) if (nut[c]) parts.push(" + ", h("span", { class: "nut " + c }, l, h("b", {}, String(nut[c]))));
    return parts;
  }

  function renderMarket(pos) {
    const box = $("#tab-market");
    const active = pos.active, decks = pos.decks || S.decks;
    box.replaceChildren(h("div", { class: "decks" }, `Decks: A ${decks.a} left · B ${decks.b} left · for ${cap(active)}:`),
      ...(replay ? replay.market : S.market).map(card => {
        const a = (card.afford || {})[active] || {};
        return h("div", { class: "card" + (a.can_buy ? " can" : ""), "data-card": card.id },
          h("div", { class: "cname" }, h("strong", {}, card.name), h("span", { class: "cvp" }, `${card.vp} VP`), h("span", { class: "cdeck" }, (card.deck || "").toUpperCase())),
          h("div", { class: "ccost" }, ...cost(card, pos), card.effect ? h("span", { class: "effect" }, " · " + card.effect.replace(/_/g, " ")) : ""),
          h("div", { class: "afford" }, a.can_buy ? h("span", { class: "yes" }, "✓ can buy") : h("span", { class: "no" }, "✗ " + (a.shortfall || "cannot buy"))),
          a.can_buy && !pos.result && !replay ? h("button", { type: "button", class: "buy", onclick: () => buyDialog(card, a) }, "Buy…") : "");
      }));
  }

  function renderGoals(pos) {
    const box = $("#tab-goals");
    const rows = replay ? [h("div", { class: "live-note" }, "Live game (the board shows a replay)")] : [];
    const t = S.targets || {};
    if (pos.mode === "cooperative") {
      rows.push(h("h3", {}, `Cooperative (${pos.difficulty}): ${t.vp} of ${t.target} VP`), bar(t.vp, t.target));
      for (const m of S.missions) rows.push(h("div", { class: "mission" + (m.done ? " done" : "") },
        h("strong", {}, (m.done ? "✓ " : "") + m.mission.replace(/_/g, " ")), ` ${m.value} / ${m.target}`, bar(m.value, m.target), h("div", { class: "detail" }, m.detail)));
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
    const items = S.log.slice().reverse().map(e => h("li", { "data-seq": e.seq, class: replay && replay.seq === e.seq ? "on" : "", onclick: () => goReplay(e.seq) },
      h("span", { class: "seq" }, e.seq), " ", e.text, e.notes.length ? h("ul", {}, ...e.notes.map(n => h("li", {}, n))) : ""));
    ol.replaceChildren(...items);
    $("#rp-pos").textContent = replay ? `${replay.seq} / ${replay.of}` : "live";
  }

  function renderActions() {
    const pos = S.position, over = !!pos.result;
    let note = $("#actions .live-note");
    if (replay && !note) $("#actions").prepend(h("div", { class: "live-note" }, "These act on the live game, not on the replay:"));
    else if (!replay && note) note.remove();
    $("#act-end").disabled = over;
    const u = $("#act-undo");
    u.disabled = !S.undo_allowed;
    u.title = S.undo_allowed ? "Take back the last move" : "The last event is a bag draw (or there is none): it cannot be undone";
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
  function buyDialog(card, a) {
    const sets = a.payable_sets || [];
    const body = [h("p", {}, `${cap(S.position.active)} buys ${card.name} (${card.vp} VP).`), h("p", {}, ...cost(card, S.position))];
    if (sets.length) body.push(h("p", { class: "detail" }, "Paid with " + sets.map(s => `${s.pick} of the ${s.color} tiles on ${s.tiles.length} spaces`).join(" or ") + "; take them off the board."));
    openDialog("Confirm purchase", body, [{ label: "Confirm purchase", primary: true, id: "buy-confirm", onclick: () => send("buy", { card: card.id }, `${card.name} bought.`) }]);
  }

  function otherColors() { return S.position.players.map(p => p.color).filter(c => c !== S.position.active); }

  function giveDialog() {
    const others = otherColors();
    let to = others[0], col = "pink", n = 1;
    openDialog(`${cap(S.position.active)} gives nutrients`, [
      h("label", {}, "To"), choiceRow("to", others.map(c => [c, cap(c)]), to, v => { to = v; }),
      h("label", {}, "Colour"), choiceRow("color", NUT.map(([c, l]) => [c, `${l} ${c}`]), col, v => { col = v; }),
      h("label", {}, "How many"), choiceRow("n", [[1, "1"], [2, "2"], [3, "3"]], n, v => { n = v; }),
    ], [{ label: "Give", primary: true, id: "give-ok", onclick: () => send("give", { to, nutrients: { [col]: n } }, "Given.") }]);
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
    const teams = {};
    S.position.players.forEach((p, i) => { teams[p.color] = p.team || String(1 + (i % 2)); });
    const orderBox = h("div", { class: "choices order" });
    const trees = h("p", { class: "detail" });
    const teamBox = h("div", {});
    function drawOrder() {
      orderBox.replaceChildren(...opts.colors.map(c => {
        const i = order.indexOf(c);
        return h("button", { type: "button", class: i >= 0 ? "on" : "", "data-color": c, onclick: () => {
          if (i >= 0) order.splice(i, 1); else order.push(c);
          drawOrder();
        } }, chip(c), " ", cap(c), i >= 0 ? h("b", { class: "ord" }, ` #${i + 1}`) : "");
      }));
      trees.textContent = "Trees on " + opts.trees[diff].map(t => `${t.id} ${t.label}`).join(", ");
      teamBox.replaceChildren(...(mode === "team" ? [h("label", {}, "Teams (turns must alternate)"), ...order.map(c => h("div", { class: "row" }, chip(c), " ",
        choiceRow("team-" + c, [["1", "Team 1"], ["2", "Team 2"]], teams[c], v => { teams[c] = v; })))] : []));
    }
    drawOrder();
    openDialog("New game", [
      h("label", {}, "Mode"), choiceRow("mode", opts.modes.map(m => [m, cap(m)]), mode, v => { mode = v; drawOrder(); }),
      h("label", {}, "Difficulty (places the trees)"), choiceRow("difficulty", opts.difficulties.map(d => [d, cap(d)]), diff, v => { diff = v; drawOrder(); }), trees,
      h("label", {}, "Players — tap in turn order, first player first"), orderBox, teamBox,
    ], [{ label: "Start new game", primary: true, id: "new-ok", onclick: () => {
      const body = { mode, difficulty: diff, players: order };
      if (mode === "team") body.teams = Object.fromEntries(order.map(c => [c, teams[c]]));
      confirmReplace(() => send("new-game", body, "New game set up."));
    } }]);
  }
  /** A game in progress is only replaced after a second, explicit yes. */
  function confirmReplace(go) {
    const pos = S.position, moves = S.log.length ? S.log[S.log.length - 1].seq : 0;
    if (pos.result || !moves) return go();
    openDialog("Replace the current game?", [
      h("p", {}, `The game in progress (turn ${pos.turn && pos.turn.number || 1}, ${moves} move${moves === 1 ? "" : "s"}) ends for everyone at the table. Its log is kept, but it cannot be continued here.`),
    ], [{ label: "Replace the game", primary: true, id: "new-confirm", onclick: go }]);
  }

  function joinDialog() {
    const tpl = $("#join-qr").content.cloneNode(true);
    openDialog("Join this table", [h("div", { class: "join" }, tpl)], []);
  }

  // --- wiring ---------------------------------------------------------------------------------
  function wire() {
    $("#btn-join").onclick = joinDialog;
    $("#btn-lock").onclick = async () => {
      if (unlocked()) { try { await post("lock", {}); toast("Locked: viewing only."); } catch (e) { toast(e.message, true); } refresh(); }
      else withPin(null);
    };
    $("#act-end").onclick = () => send("end-turn", {}, "Turn ended.");
    $("#act-undo").onclick = () => send("undo", {}, "Last move taken back.");
    $("#act-give").onclick = giveDialog;
    $("#act-swap").onclick = swapDialog;
    $("#act-fix").onclick = () => fixDialog(selected);
    $("#act-new").onclick = newGameDialog;
    for (const b of document.querySelectorAll("#tabs button")) {
      b.onclick = () => {
        for (const o of document.querySelectorAll("#tabs button")) o.setAttribute("aria-selected", String(o === b));
        for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== "tab-" + b.dataset.tab;
      };
    }
    $("#rp-first").onclick = () => goReplay(0);
    $("#rp-prev").onclick = () => goReplay((replay ? replay.seq : (S.log.length ? S.log[S.log.length - 1].seq : 0)) - 1);
    $("#rp-next").onclick = () => { if (replay) goReplay(replay.seq + 1); };
    $("#rp-live").onclick = () => { replay = null; render(); };
    dlg.addEventListener("cancel", () => closeDialog());
  }

  window.addEventListener("DOMContentLoaded", async () => {
    wire();
    await refresh();
    connect();
  });
  window.MycDashboard = { refresh, state: () => S, post };
})();
