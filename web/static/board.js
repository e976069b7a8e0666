/* The board as SVG, drawn from the state JSON (docs/position.md).
 * Pointy-top hexes in axial coordinates; x right, y down (companion/hexgrid.py).
 * Edge i of a space faces the neighbour at DIRS[i]; its midpoint lies at angle -60*i degrees.
 */
"use strict";
const MycBoard = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const SIZE = 50;                       // centre-to-corner, SVG units
  const S3 = Math.sqrt(3);
  const DIRS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
  const PATH_COLOR = { P: "pink", Y: "yellow", G: "green" };
  const PLAYER_INITIAL = { blue: "B", orange: "O", red: "R", black: "K" };

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, x, y, str, cls, attrs) {
    const t = el("text", Object.assign({ x: x.toFixed(1), y: y.toFixed(1), class: cls }, attrs || {}), parent);
    t.textContent = str;
    return t;
  }
  function hexToPixel(q, r, size) {
    size = size || SIZE;
    return [size * (S3 * q + S3 / 2 * r), size * 1.5 * r];
  }
  function corners(cx, cy, size) {
    const pts = [];
    for (let i = 0; i < 6; i++) {
      const a = Math.PI / 180 * (60 * i - 30);
      pts.push([cx + size * Math.cos(a), cy + size * Math.sin(a)]);
    }
    return pts;
  }
  function hexPoints(cx, cy, size) {
    return corners(cx, cy, size).map(p => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ");
  }
  function edgeMid(cx, cy, edge, size) {
    const a = -Math.PI / 3 * edge, d = size * S3 / 2;
    return [cx + d * Math.cos(a), cy + d * Math.sin(a)];
  }
  /** "P03.G1" -> [{color: "pink", letter: "P", edges: [0, 3]}, ...]; rotation turns edge e to e+k. */
  function parsePaths(code, rotation) {
    if (!code || code === "ROCK") return [];
    return code.split(".").map(p => ({
      letter: p[0], color: PATH_COLOR[p[0]] || "grey",
      edges: p.slice(1).split("").map(d => (Number(d) + (rotation || 0)) % 6).sort(),
    }));
  }
  const key = (at) => at[0] + "," + at[1];

  /** Draw the paths of tile ``code`` centred on (cx, cy); returns the group. */
  function drawTile(parent, code, cx, cy, size, opts) {
    opts = opts || {};
    const g = el("g", { class: "tile" + (opts.ghost ? " ghost" : "") }, parent);
    el("polygon", { points: hexPoints(cx, cy, size * 0.96), class: "tile-bg" }, g);
    const paths = parsePaths(code, opts.rotation);
    for (const p of paths) {
      const mids = p.edges.map(e => edgeMid(cx, cy, e, size));
      let d;
      let label;
      if (mids.length === 1) {
        const m = mids[0], end = [cx + (m[0] - cx) * 0.25, cy + (m[1] - cy) * 0.25];
        d = `M${m[0].toFixed(1)} ${m[1].toFixed(1)} L${end[0].toFixed(1)} ${end[1].toFixed(1)}`;
      } else if (mids.length === 2) {
        d = `M${mids[0][0].toFixed(1)} ${mids[0][1].toFixed(1)} Q${cx.toFixed(1)} ${cy.toFixed(1)} ${mids[1][0].toFixed(1)} ${mids[1][1].toFixed(1)}`;
      } else {
        const jx = cx + mids.reduce((s, m) => s + m[0] - cx, 0) / mids.length * 0.5;
        const jy = cy + mids.reduce((s, m) => s + m[1] - cy, 0) / mids.length * 0.5;
        d = mids.map(m => `M${m[0].toFixed(1)} ${m[1].toFixed(1)} L${jx.toFixed(1)} ${jy.toFixed(1)}`).join(" ");
      }
      el("path", { d, class: "path-casing" }, g);
      el("path", { d, class: "path " + p.color, "data-color": p.color }, g);
      if (mids.length === 1) el("circle", { cx: (cx + (mids[0][0] - cx) * 0.25).toFixed(1), cy: (cy + (mids[0][1] - cy) * 0.25).toFixed(1), r: (size * 0.11).toFixed(1), class: "spur " + p.color }, g);
      if (!opts.noLetters) {
        // icons are small on screen: bigger letters, nearer the edge so they keep apart
        const m = mids[0], big = !!opts.bigLetters, f = big ? 0.3 : 0.42;
        label = [m[0] + (cx - m[0]) * f, m[1] + (cy - m[1]) * f];
        el("circle", { cx: label[0].toFixed(1), cy: label[1].toFixed(1), r: (size * (big ? 0.25 : 0.2)).toFixed(1), class: "path-letter-bg" }, g);
        text(g, label[0], label[1], p.letter, "path-letter", { "font-size": (size * (big ? 0.4 : 0.3)).toFixed(1) });
      }
    }
    return g;
  }

  /** A small standalone SVG of a tile code (hands, correction picker). */
  function tileIcon(code, px) {
    const svg = el("svg", { viewBox: "-52 -52 104 104", width: px, height: px, class: "tile-icon", role: "img", "aria-label": code });
    const t = el("title", {}, svg);
    t.textContent = code === "ROCK" ? "rock" : code;
    if (code === "ROCK") {
      drawRock(svg, 0, 0, SIZE, 0.3);
    } else {
      drawTile(svg, code, 0, 0, SIZE, { bigLetters: true });
    }
    return svg;
  }

  function drawRock(parent, cx, cy, size, letters) {
    const g = el("g", { class: "rock" }, parent);
    const pts = [[-0.5, -0.2], [-0.2, -0.5], [0.3, -0.45], [0.55, -0.05], [0.4, 0.4], [-0.1, 0.5], [-0.5, 0.3]]
      .map(p => (cx + p[0] * size).toFixed(1) + "," + (cy + p[1] * size).toFixed(1)).join(" ");
    el("polygon", { points: pts, class: "rock-body" }, g);
    text(g, cx, cy + 2, "ROCK", "piece-label", { "font-size": (size * (letters || 0.24)).toFixed(1) });
    return g;
  }

  function drawMeeple(parent, cx, cy, color, size) {
    const g = el("g", { class: "meeple " + color, "data-color": color }, parent);
    const s = size / 50;
    const d = `M${cx} ${cy - 20 * s} a${9 * s} ${9 * s} 0 1 1 0.1 0 Z M${cx - 17 * s} ${cy + 16 * s} L${cx - 12 * s} ${cy - 6 * s} Q${cx} ${cy - 12 * s} ${cx + 12 * s} ${cy - 6 * s} L${cx + 17 * s} ${cy + 16 * s} Z`;
    el("path", { d, class: "meeple-body p-" + color }, g);
    text(g, cx, cy + 6 * s, PLAYER_INITIAL[color] || color[0].toUpperCase(), "meeple-letter", { "font-size": (16 * s).toFixed(1) });
    return g;
  }

  /** A spore on a space of ``size``: kept below the space's label (top of the hex); "USED"
   * across its lower edge once flipped. */
  function drawSpore(parent, cx, cy, color, used, size) {
    const g = el("g", { class: "spore " + color + (used ? " used" : ""), "data-color": color }, parent);
    const pts = [];
    cy += size * 0.16;
    for (let i = 0; i < 16; i++) {
      const a = Math.PI / 8 * i, rr = (i % 2 ? 0.34 : 0.5) * size;
      pts.push((cx + rr * Math.cos(a)).toFixed(1) + "," + (cy + rr * Math.sin(a)).toFixed(1));
    }
    el("polygon", { points: pts.join(" "), class: "spore-body p-" + color + (used ? " used" : "") }, g);
    text(g, cx, cy, PLAYER_INITIAL[color] || "?", used ? "spore-letter used" : "spore-letter", { "font-size": (size * 0.34).toFixed(1) });
    if (used) text(g, cx, cy + size * 0.46, "USED", "spore-used", { "font-size": (size * 0.26).toFixed(1) });
    return g;
  }

  function drawTree(parent, cx, cy, id, slots, size) {
    const g = el("g", { class: "tree" }, parent);
    el("circle", { cx, cy, r: (size * 0.52).toFixed(1), class: "tree-body" }, g);
    text(g, cx, cy, "Tree " + (id || ""), "tree-label", { "font-size": (size * 0.24).toFixed(1) });
    const pos = [[-0.5, -0.55], [0.5, -0.55], [0.5, 0.55], [-0.5, 0.55]];
    (slots || []).forEach((c, i) => {
      const p = pos[i % 4], x = cx + p[0] * size, y = cy + p[1] * size;
      el("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: (size * 0.17).toFixed(1), class: "slot" + (c ? " p-" + c : " empty") }, g);
      if (c) text(g, x, y, PLAYER_INITIAL[c] || "?", "slot-letter", { "font-size": (size * 0.2).toFixed(1) });
    });
    return g;
  }

  /** Render the whole board into ``svg``.
   * view: {board, position, networks, last_move_at, illegal, corrections, selected}
   * handlers: {onSpace(at)}.
   */
  function render(svg, view, handlers) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const pos = view.position, bd = pos.board;
    const spaces = view.board.spaces;
    let minX = 1e9, maxX = -1e9, minY = 1e9, maxY = -1e9;
    for (const s of spaces) {
      const [x, y] = hexToPixel(s.at[0], s.at[1]);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    const padX = SIZE * S3 / 2 + 5, padY = SIZE + 5;  // a hex reaches sqrt(3)/2 size sideways, size up and down
    svg.setAttribute("viewBox", `${(minX - padX).toFixed(0)} ${(minY - padY).toFixed(0)} ${(maxX - minX + 2 * padX).toFixed(0)} ${(maxY - minY + 2 * padY).toFixed(0)}`);
    const defs = el("defs", {}, svg);
    const pat = el("pattern", { id: "wood", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(30)" }, defs);
    el("rect", { width: 8, height: 8, fill: "#b07a4a" }, pat);
    el("line", { x1: 0, y1: 0, x2: 0, y2: 8, stroke: "#7a4e2a", "stroke-width": 3 }, pat);
    const pat2 = el("pattern", { id: "soil", width: 9, height: 9, patternUnits: "userSpaceOnUse" }, defs);
    el("rect", { width: 9, height: 9, fill: "#c9b48a" }, pat2);
    el("circle", { cx: 3, cy: 3, r: 1.6, fill: "#6b5536" }, pat2);
    el("circle", { cx: 7.5, cy: 7.5, r: 1.2, fill: "#6b5536" }, pat2);

    const tiles = {}, rocks = new Set(), trees = {}, subs = {}, sporesAt = {}, meeplesAt = {}, fixed = {};
    for (const t of bd.tiles || []) tiles[key(t.at)] = t.paths;
    for (const r of bd.rocks || []) rocks.add(key(r));
    for (const t of bd.trees || []) trees[key(t.at)] = t.mycorrhizae;
    for (const s of bd.substrates || []) subs[key(s.at)] = s.kind;
    for (const c in bd.spores || {}) { const s = bd.spores[c]; if (s && s.at) sporesAt[key(s.at)] = { color: c, used: s.used }; }
    for (const c in bd.meeples || {}) { const m = bd.meeples[c]; if (m) meeplesAt[key(m)] = c; }
    for (const c of view.corrections || []) fixed[key(c.at)] = c.content;
    const treeIds = view.board.trees || {};

    // networks through the selected space, for the highlight
    const lit = {};
    const selected = view.selected ? key(view.selected) : null;
    if (selected) {
      for (const n of view.networks || []) {
        if (n.spaces.some(a => key(a) === selected)) for (const a of n.spaces) (lit[key(a)] = lit[key(a)] || new Set()).add(n.color);
      }
    }
    const dim = selected && Object.keys(lit).length > 0;
    const gSpaces = el("g", { class: "spaces" + (dim ? " dimmed" : "") }, svg);
    const gMarks = el("g", { class: "marks" }, svg);
    for (const s of spaces) {
      const k = key(s.at), [cx, cy] = hexToPixel(s.at[0], s.at[1]);
      const g = el("g", { class: "space" + (lit[k] ? " lit" : "") + (k === selected ? " sel" : ""), "data-at": k, "data-label": s.label, tabindex: "-1" }, gSpaces);
      const sub = subs[k];
      // hover names the space even under a tile, and the substrate token it holds
      el("title", {}, g).textContent = s.label + (sub ? ` (${sub} substrate)` : "");
      // the token fills its own hex, striped (wood) or dotted (soil): the fill comes from the
      // stylesheet (.hex.sub-wood), since a CSS fill on .hex would hide a fill attribute
      el("polygon", { points: hexPoints(cx, cy, SIZE), class: "hex" + (sub ? " sub-" + sub : "") }, g);
      // its name in the middle of the hex, far from the tip next to the next row's label
      const bare = !(tiles[k] || rocks.has(k) || trees[k] || sporesAt[k] || meeplesAt[k]);
      if (sub && bare) text(g, cx, cy + SIZE * 0.12, sub === "wood" ? "WOOD" : "SOIL", "sub-label", { "font-size": (SIZE * 0.3).toFixed(1) });
      if (tiles[k]) drawTile(g, tiles[k], cx, cy, SIZE);
      else if (rocks.has(k)) drawRock(g, cx, cy, SIZE);
      else if (trees[k]) drawTree(g, cx, cy, treeIds[k], trees[k], SIZE);
      if (sporesAt[k]) drawSpore(g, cx, cy, sporesAt[k].color, sporesAt[k].used, SIZE);
      if (meeplesAt[k]) drawMeeple(g, cx, cy + (tiles[k] ? 0 : 14), meeplesAt[k], SIZE * (tiles[k] ? 0.9 : 0.8));
      // the label last and at the top of the hex, so a spore or a meeple never hides it
      // a covered space shows its label on hover or tap (CSS), on a badge over the piece
      const covered = !!(tiles[k] || rocks.has(k) || trees[k]);
      if (covered) el("rect", { x: (cx - SIZE * 0.36).toFixed(1), y: (cy - SIZE * 0.84).toFixed(1), width: (SIZE * 0.72).toFixed(1), height: (SIZE * 0.5).toFixed(1), rx: 4, class: "space-label-bg" }, g);
      text(g, cx, cy - SIZE * 0.58, s.label, "space-label" + (covered ? " covered" : ""), { "font-size": (SIZE * 0.46).toFixed(1) });
      if (lit[k]) for (const c of lit[k]) el("polygon", { points: hexPoints(cx, cy, SIZE * 0.9), class: "net-ring " + c }, gMarks);
      if (k in fixed) {
        el("polygon", { points: hexPoints(cx, cy, SIZE * 0.94), class: "fixed-ring" }, gMarks);
        el("circle", { cx: (cx + SIZE * 0.6).toFixed(1), cy: (cy - SIZE * 0.4).toFixed(1), r: (SIZE * 0.27).toFixed(1), class: "fixed-badge-bg" }, gMarks);
        text(gMarks, cx + SIZE * 0.6, cy - SIZE * 0.4, "✎", "fixed-badge", { "font-size": (SIZE * 0.38).toFixed(1) });
      }
      g.addEventListener("click", () => handlers && handlers.onSpace && handlers.onSpace(s.at, s.label));
    }
    if (view.last_move_at) {
      const [cx, cy] = hexToPixel(view.last_move_at[0], view.last_move_at[1]);
      el("polygon", { points: hexPoints(cx, cy, SIZE * 0.92), class: "last-ring", "data-at": key(view.last_move_at) }, gMarks);
      el("polygon", { points: hexPoints(cx, cy, SIZE * 0.92), class: "last-ring-inner" }, gMarks);
      el("circle", { cx: (cx - SIZE * 0.6).toFixed(1), cy: (cy - SIZE * 0.4).toFixed(1), r: (SIZE * 0.25).toFixed(1), class: "last-badge" }, gMarks);
      text(gMarks, cx - SIZE * 0.6, cy - SIZE * 0.4, "★", "last-badge-text", { "font-size": (SIZE * 0.3).toFixed(1) });
    }
    const ill = view.illegal;
    if (ill && ill.move) {
      const at = ill.move.at || ill.move.to;
      if (at) {
        const [cx, cy] = hexToPixel(at[0], at[1]);
        if (ill.move.action === "place" && ill.move.tile) drawTile(gMarks, ill.move.tile, cx, cy, SIZE, { ghost: true, rotation: ill.move.rotation || 0, noLetters: true });
        el("polygon", { points: hexPoints(cx, cy, SIZE * 0.98), class: "illegal-ring", "data-at": key(at) }, gMarks);
        const t = text(gMarks, cx, cy + SIZE * 0.05, "✕", "illegal-x", { "font-size": (SIZE * 0.9).toFixed(1) });
        t.setAttribute("aria-label", "illegal");
      }
    }
  }

  return { render, tileIcon, drawTile, parsePaths, hexToPixel, PLAYER_INITIAL, DIRS };
})();
