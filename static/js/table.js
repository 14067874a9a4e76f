// The table's interactions, shared by the scenario editor and the move stepper (issue 6).
//
// Works on an SVG drawn by battlefield.pictures.table_svg(..., interactive=True) inside a
// <form data-placement> (or outside it: the form's data-table="#selector" names the element
// holding it; with one placement form and one interactive table on a page they pair up anyway). A model is movable when the form has its `pose-<model id>-x` input
// (and -y, -facing); every change writes those inputs and dispatches `table:moved` (bubbling,
// detail {model, x, y, facing}) on the form. The inputs are also the visible, no-drag way to
// type coordinates (WCAG 2.2, 2.5.7).
//
// - Pointer: drag a model; or click a model to select it, then click the destination (a second
//   click on it lets it go). A click on the table with nothing selected fills the page's
//   [data-from-table="x"|"y"] fields (where new terrain or units go).
// - Terrain: a piece whose edit form is on the page (form[data-terrain-form="<terrain id>"] with
//   x / y inputs) can be dragged too; on drop its form is submitted with the new centre.
// - Keyboard: the table is one tab stop (roving tabindex over the models); [ and ] (or Page Up /
//   Page Down) choose a model, arrows move it 0.1 unit (Shift: 1), Q / E turn it 15 degrees
//   (Shift: 1), Enter submits the form's default button ([data-default], else its first submit
//   button), Escape clears the selection and the ruler.
// - Ruler: with the form's [data-tool="ruler"] pressed, click two models or points (or press R
//   on two models); the server measures (form's data-ruler-url, ?a=...&b=...) and its answer goes
//   into [data-ruler-output]; the line is drawn on the table. A form with data-measure-only
//   (templates/battlefield/_ruler.html) holds only the ruler, for a table that is looked at.
// - Buttons with data-turn="<degrees>" in the form turn the selected model (the whole unit
//   about its centre while "whole unit" is on).
// - Moving groups (issue 13): with the form's [data-group] button pressed (or G), a drag, an
//   arrow nudge or a turn (Q / E) moves every movable model of the selected model's unit
//   together, keeping their formation. [data-snap] (or S) snaps the selected model into base
//   contact with the closest enemy model: round and oval bases along the line between them;
//   rectangular stands (Warmaster) turned to face the enemy stand's closest edge and put flush
//   against it. With "whole unit" on, the rest of the unit follows the snapped model. A snap or
//   a nudge tells the table's view ("table:moved" on the svg) so a zoomed view follows.
// - Rings: overlays with classes `rings ring-<model id>` are shown for the selected unit.
// - `data-autosave` on the form: a drag or a click-to-place submits the form when it ends.
//
// No inline scripts anywhere (CSP): this file holds all of it. After an htmx swap the new table
// picks up the previous selection, tool and focus (by form id and model id).
(() => {
  "use strict";
  const SVGNS = "http://www.w3.org/2000/svg";
  const DRAG_PX = 4; // a press that moves less than this is a click
  const remembered = new Map(); // form id -> {selected, tool, focused, pending}: kept over swaps
  const live = new WeakMap(); // form element -> {selected, tool, ruler, drag, dirty, inflight, queued}

  const fmt = (v) => String(Math.round(v * 1000) / 1000);
  const placementForms = () => Array.from(document.querySelectorAll("form[data-placement]"));
  const interactiveTables = () => Array.from(document.querySelectorAll('svg.table[role="group"]'));

  // A form's table: the svg inside it; else the one its data-table selector names (an svg or
  // an element holding one, e.g. a board swapped on its own); else, with one placement form and
  // one interactive table on the page, that table.
  function svgOf(form) {
    const inside = form.querySelector("svg.table");
    if (inside) return inside;
    if (form.dataset.table) {
      const host = document.querySelector(form.dataset.table);
      if (host) return host.matches("svg.table") ? host : host.querySelector("svg.table");
    }
    const tables = interactiveTables();
    return placementForms().length === 1 && tables.length === 1 ? tables[0] : null;
  }

  // The placement form an element belongs to: its own form, or the form whose table holds it.
  function formOf(el) {
    if (!el || !el.closest) return null;
    const inside = el.closest("form[data-placement]");
    if (inside) return inside;
    const svg = el.closest("svg.table");
    return svg ? placementForms().find((form) => svgOf(form) === svg) || null : null;
  }

  const models = (form) => {
    const svg = svgOf(form);
    return svg ? Array.from(svg.querySelectorAll("g.model[data-model]")) : [];
  };
  const poseInput = (form, id, part) => form.elements.namedItem(`pose-${id}-${part}`);
  const movable = (form, g) => !!poseInput(form, g.dataset.model, "x");
  const cssEscape = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : s.replace(/[^\w-]/g, "\\$&"));

  function stateOf(form) {
    let s = live.get(form);
    if (!s) {
      const kept = remembered.get(form.id) || {};
      s = { selected: kept.selected || null, tool: kept.tool || "move", group: !!kept.group, ruler: [], drag: null, dirty: new Set() };
      live.set(form, s);
    }
    return s;
  }

  function keep(form) {
    const s = stateOf(form);
    const focused = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest("g.model") : null;
    const pending = {};
    if (s.queued) {
      for (const id of s.dirty) {
        const g = modelById(form, id);
        if (g) pending[id] = poseOf(g);
      }
    }
    remembered.set(form.id, {
      selected: s.selected, tool: s.tool, group: s.group,
      focused: focused && svgOf(form) && svgOf(form).contains(focused) ? focused.dataset.model : null,
      pending: s.queued ? pending : null,
    });
  }

  function modelById(form, id) {
    const svg = svgOf(form);
    return id && svg ? svg.querySelector(`g.model[data-model="${cssEscape(id)}"]`) : null;
  }

  // -- poses ---------------------------------------------------------------------------------
  function poseOf(g) {
    const t = g.getAttribute("transform") || "";
    const m = /translate\(\s*([-\d.eE]+)[\s,]+([-\d.eE]+)\s*\)/.exec(t);
    const r = /rotate\(\s*([-\d.eE]+)/.exec(t);
    return { x: m ? +m[1] : 0, y: m ? +m[2] : 0, facing: r ? +r[1] : 0 };
  }

  function tableSize(svg) {
    return { width: parseFloat(svg.dataset.width) || Infinity, height: parseFloat(svg.dataset.height) || Infinity };
  }

  function setPose(form, g, pose) {
    const svg = svgOf(form);
    const size = tableSize(svg);
    const x = Math.min(Math.max(pose.x, 0), size.width);
    const y = Math.min(Math.max(pose.y, 0), size.height);
    const facing = ((pose.facing % 360) + 360) % 360;
    if (!g.dataset.x0) {
      const start = poseOf(g);
      g.dataset.x0 = start.x;
      g.dataset.y0 = start.y;
    }
    g.setAttribute("transform", `translate(${fmt(x)} ${fmt(y)})${facing ? ` rotate(${fmt(facing)})` : ""}`);
    const id = g.dataset.model;
    stateOf(form).dirty.add(id);
    const parts = { x, y, facing };
    for (const part of ["x", "y", "facing"]) {
      const input = poseInput(form, id, part);
      if (input) input.value = fmt(parts[part]);
      // the full value beside the shown one: a snap to contact must not open a gap by rounding
      const exact = form.elements.namedItem(`exact-pose-${id}-${part}`);
      if (exact) exact.value = String(parts[part]);
    }
    // The model's rings follow it (their shapes are drawn around where it was saved).
    const ring = svg.querySelector(`g.overlay.ring-${cssEscape(id)}`);
    if (ring) ring.setAttribute("transform", `translate(${fmt(x - g.dataset.x0)} ${fmt(y - g.dataset.y0)})`);
    form.classList.add("is-changed");
    status(form, `${id} at ${fmt(x)}, ${fmt(y)}${facing ? `, facing ${fmt(facing)}°` : ""}`);
    form.dispatchEvent(new CustomEvent("table:moved", { bubbles: true, detail: { model: id, x, y, facing } }));
  }

  function status(form, text) {
    const out = form.querySelector("[data-status]");
    if (out) out.textContent = text;
  }

  // -- moving groups -----------------------------------------------------------------------------
  // The models a move of `g` carries: its whole unit's movable models while "whole unit" is on.
  function carried(form, g) {
    if (!stateOf(form).group) return [g];
    const svg = svgOf(form);
    const mates = Array.from(svg.querySelectorAll(`g.model[data-unit="${cssEscape(g.dataset.unit)}"]`));
    return mates.filter((m) => movable(form, m));
  }

  // Move the models by (dx, dy) and turn them by `turn` degrees about (cx, cy): formation kept.
  function moveGroup(form, group, { dx = 0, dy = 0, turn = 0, cx = 0, cy = 0 }) {
    const a = (turn * Math.PI) / 180;
    const cos = Math.cos(a);
    const sin = Math.sin(a);
    for (const m of group) {
      const p = poseOf(m);
      const rx = p.x - cx;
      const ry = p.y - cy;
      const x = turn ? cx + rx * cos - ry * sin : p.x;
      const y = turn ? cy + rx * sin + ry * cos : p.y;
      setPose(form, m, { x: x + dx, y: y + dy, facing: p.facing + turn });
    }
    if (group.length > 1) {
      const ids = group.map((m) => m.dataset.model);
      status(form, `${group[0].dataset.unit}: ${ids.length} models moved together`);
    }
  }

  // Tell the table's view (static/js/table-view.js) which models a jump moved, so a zoomed
  // view follows them (a snap or a nudge may carry them out of it; a drag is followed by the
  // finger itself).
  function moved(form, group) {
    const svg = svgOf(form);
    if (svg) svg.dispatchEvent(new CustomEvent("table:moved", { bubbles: true, detail: { models: group.map((m) => m.dataset.model) } }));
  }

  function centreOf(group) {
    const poses = group.map(poseOf);
    return {
      x: poses.reduce((t, p) => t + p.x, 0) / poses.length,
      y: poses.reduce((t, p) => t + p.y, 0) / poses.length,
    };
  }

  function turnGroup(form, g, degrees) {
    const group = carried(form, g);
    const c = group.length > 1 ? centreOf(group) : poseOf(g);
    moveGroup(form, group, { turn: degrees, cx: c.x, cy: c.y });
  }

  function setGroup(form, on) {
    const s = stateOf(form);
    s.group = on;
    for (const b of form.querySelectorAll("[data-group]")) b.setAttribute("aria-pressed", String(on));
    status(form, on ? "Whole unit: moves carry every model of the unit" : "One model at a time");
    keep(form);
  }

  // -- snapping into base contact ------------------------------------------------------------------
  // A base's outline in table coordinates: for round and oval bases, its radius towards a
  // direction; for polygons (stands), its corners.
  function baseOf(g) {
    const base = g.querySelector(".base");
    const pose = poseOf(g);
    const a = (pose.facing * Math.PI) / 180;
    if (!base) return null;
    if (base.tagName === "circle") return { kind: "round", pose, rx: +base.getAttribute("r"), ry: +base.getAttribute("r"), a };
    if (base.tagName === "ellipse") return { kind: "round", pose, rx: +base.getAttribute("rx"), ry: +base.getAttribute("ry"), a };
    const pts = (base.getAttribute("points") || "").trim().split(/[\s]+/).map((xy) => xy.split(",").map(Number));
    const corners = pts.map(([lx, ly]) => ({
      x: pose.x + lx * Math.cos(a) - ly * Math.sin(a),
      y: pose.y + lx * Math.sin(a) + ly * Math.cos(a),
    }));
    const depth = Math.max(...pts.map(([lx]) => lx));
    return { kind: "stand", pose, corners, depth, a };
  }

  // The distance from a round (or oval) base's centre to its edge along the table angle `t`.
  function reach(b, t) {
    const u = t - b.a;
    return 1 / Math.sqrt((Math.cos(u) / b.rx) ** 2 + (Math.sin(u) / b.ry) ** 2);
  }

  function closestEnemy(form, g) {
    const svg = svgOf(form);
    const me = poseOf(g);
    let best = null;
    for (const other of svg.querySelectorAll("g.model[data-army]")) {
      if (other.dataset.army === g.dataset.army) continue;
      const p = poseOf(other);
      const d = Math.hypot(p.x - me.x, p.y - me.y);
      if (!best || d < best.d) best = { g: other, d };
    }
    return best && best.g;
  }

  // Where `g` goes to touch `target`: {x, y, facing}, or null when the bases cannot be read.
  function contactPose(g, target) {
    const mine = baseOf(g);
    const theirs = baseOf(target);
    if (!mine || !theirs) return null;
    const me = mine.pose;
    if (mine.kind === "stand" && theirs.kind === "stand") {
      // Flush against the enemy stand's edge closest to the mover, facing it, centred on the
      // point of that edge nearest the mover (kept within the edge).
      let best = null;
      const cs = theirs.corners;
      for (let i = 0; i < cs.length; i++) {
        const p = cs[i];
        const q = cs[(i + 1) % cs.length];
        const ex = q.x - p.x;
        const ey = q.y - p.y;
        const len = Math.hypot(ex, ey);
        if (!len) continue;
        const t = Math.min(Math.max(((me.x - p.x) * ex + (me.y - p.y) * ey) / (len * len), 0), 1);
        const cx = p.x + t * ex;
        const cy = p.y + t * ey;
        let nx = ey / len;
        let ny = -ex / len;
        const mx = (p.x + q.x) / 2 - theirs.pose.x;
        const my = (p.y + q.y) / 2 - theirs.pose.y;
        if (nx * mx + ny * my < 0) { nx = -nx; ny = -ny; } // outward
        const d = Math.hypot(me.x - cx, me.y - cy);
        if ((me.x - cx) * nx + (me.y - cy) * ny < 0) continue; // an edge facing away
        if (!best || d < best.d) best = { d, cx, cy, nx, ny };
      }
      if (!best) return null;
      return {
        x: best.cx + best.nx * mine.depth,
        y: best.cy + best.ny * mine.depth,
        facing: (Math.atan2(-best.ny, -best.nx) * 180) / Math.PI,
      };
    }
    if (mine.kind === "round" && theirs.kind === "round") {
      const t = Math.atan2(me.y - theirs.pose.y, me.x - theirs.pose.x);
      const gap = reach(theirs, t) + reach(mine, t + Math.PI);
      return { x: theirs.pose.x + gap * Math.cos(t), y: theirs.pose.y + gap * Math.sin(t), facing: me.facing };
    }
    return null;
  }

  function snap(form, g) {
    if (!g || !movable(form, g)) {
      status(form, "Select a model of the moving unit first.");
      return;
    }
    const target = closestEnemy(form, g);
    const pose = target && contactPose(g, target);
    if (!pose) {
      status(form, "No enemy base to snap to.");
      return;
    }
    const start = poseOf(g);
    const group = carried(form, g);
    const turn = pose.facing - start.facing;
    // the snapped model goes exactly to its contact pose; its unit turns and moves with it
    moveGroup(form, group, { turn, cx: start.x, cy: start.y, dx: pose.x - start.x, dy: pose.y - start.y });
    status(form, `${g.dataset.model} in base contact with ${target.dataset.model}`);
    moved(form, group);
  }

  // -- selection, focus and rings ---------------------------------------------------------------
  function select(form, g, { focus = false } = {}) {
    const s = stateOf(form);
    const svg = svgOf(form);
    for (const other of svg.querySelectorAll("g.model.selected")) {
      other.classList.remove("selected");
      other.setAttribute("aria-pressed", "false");
    }
    for (const ring of svg.querySelectorAll("g.overlay.rings.shown")) ring.classList.remove("shown");
    s.selected = g ? g.dataset.model : null;
    if (!g) {
      keep(form);
      return;
    }
    g.classList.add("selected");
    g.setAttribute("aria-pressed", "true");
    for (const mate of svg.querySelectorAll(`g.model[data-unit="${cssEscape(g.dataset.unit)}"]`)) {
      const ring = svg.querySelector(`g.overlay.ring-${cssEscape(mate.dataset.model)}`);
      if (ring) ring.classList.add("shown");
    }
    rove(form, g);
    form.dispatchEvent(new CustomEvent("table:selected", { bubbles: true, detail: { model: g.dataset.model } }));
    if (focus) g.focus({ preventScroll: true });
    const pose = poseOf(g);
    status(form, `Selected ${g.dataset.model}${movable(form, g) ? "" : " (not movable here)"} at ${fmt(pose.x)}, ${fmt(pose.y)}`);
    keep(form);
  }

  function rove(form, current) {
    for (const g of models(form)) g.setAttribute("tabindex", g === current ? "0" : "-1");
  }

  function init(form) {
    const svg = svgOf(form);
    if (!svg || svg.dataset.tableReady) return;
    svg.dataset.tableReady = "1";
    svg.classList.add("interactive");
    const s = stateOf(form);
    const all = models(form);
    for (const g of all) g.setAttribute("aria-pressed", "false");
    const kept = remembered.get(form.id) || {};
    const current = modelById(form, s.selected) || all.find((g) => movable(form, g)) || all[0];
    if (current) rove(form, current);
    if (s.selected && modelById(form, s.selected)) select(form, modelById(form, s.selected));
    setTool(form, s.tool);
    for (const b of form.querySelectorAll("[data-group]")) b.setAttribute("aria-pressed", String(!!s.group));
    const focusTarget = modelById(form, kept.focused);
    if (focusTarget && (!document.activeElement || document.activeElement === document.body)) {
      focusTarget.focus({ preventScroll: true });
    }
    if (kept.pending && Object.keys(kept.pending).length) {
      // Moves made while the previous save was on its way: put them back and save them too.
      remembered.set(form.id, { ...kept, pending: null });
      for (const [id, pose] of Object.entries(kept.pending)) {
        const g = modelById(form, id);
        if (g) setPose(form, g, pose);
      }
      if (s.selected && modelById(form, s.selected)) select(form, modelById(form, s.selected));
      submit(form);
    }
  }

  function initAll() {
    for (const form of document.querySelectorAll("form[data-placement]")) init(form);
  }

  // -- submitting ----------------------------------------------------------------------------------
  function submit(form) {
    const s = stateOf(form);
    if (s.inflight) {
      // A save is on its way: this one goes after it, from the redrawn form (new version).
      s.queued = true;
      keep(form);
      return;
    }
    keep(form);
    const button = form.querySelector("[data-default]") ||
      form.querySelector('button[type="submit"], button:not([type]), input[type="submit"]');
    if (form.requestSubmit) form.requestSubmit(button || undefined);
    else form.submit();
  }

  // -- tools and the ruler -----------------------------------------------------------------------
  function setTool(form, tool) {
    const s = stateOf(form);
    s.tool = tool;
    for (const b of form.querySelectorAll("[data-tool]")) {
      b.setAttribute("aria-pressed", String(b.dataset.tool === tool));
    }
    const svg = svgOf(form);
    if (svg) svg.classList.toggle("ruler-mode", tool === "ruler");
    if (tool !== "ruler") clearRuler(form);
    keep(form);
  }

  function rulerLayer(svg) {
    let layer = svg.querySelector("g.ruler-layer");
    if (!layer) {
      layer = document.createElementNS(SVGNS, "g");
      layer.setAttribute("class", "ruler-layer");
      layer.setAttribute("aria-hidden", "true");
      svg.appendChild(layer);
    }
    return layer;
  }

  function clearRuler(form) {
    const s = stateOf(form);
    s.ruler = [];
    const svg = svgOf(form);
    const layer = svg && svg.querySelector("g.ruler-layer");
    if (layer) layer.replaceChildren();
  }

  function mark(svg, x, y) {
    const layer = rulerLayer(svg);
    const r = svg.dataset.unit === "in" ? 0.3 : 0.8;
    for (const cls of ["ruler-halo", "ruler-end"]) {
      const c = document.createElementNS(SVGNS, "circle");
      c.setAttribute("class", cls);
      c.setAttribute("cx", fmt(x));
      c.setAttribute("cy", fmt(y));
      c.setAttribute("r", fmt(r));
      layer.appendChild(c);
    }
  }

  function line(svg, x1, y1, x2, y2) {
    const layer = rulerLayer(svg);
    for (const cls of ["ruler-halo", "ruler-line"]) {
      const l = document.createElementNS(SVGNS, "line");
      l.setAttribute("class", cls);
      for (const [k, v] of Object.entries({ x1, y1, x2, y2 })) l.setAttribute(k, fmt(v));
      layer.appendChild(l);
    }
  }

  function rulerEnd(form, g, point) {
    const s = stateOf(form);
    const svg = svgOf(form);
    if (s.ruler.length >= 2) clearRuler(form);
    let end;
    if (g) {
      const p = poseOf(g);
      end = { spec: `model:${g.dataset.model}@${fmt(p.x)},${fmt(p.y)},${fmt(p.facing)}`, x: p.x, y: p.y, name: g.dataset.model };
    } else {
      end = { spec: `point:${fmt(point.x)},${fmt(point.y)}`, x: point.x, y: point.y, name: `${fmt(point.x)}, ${fmt(point.y)}` };
    }
    s.ruler.push(end);
    mark(svg, end.x, end.y);
    const out = form.querySelector("[data-ruler-output]");
    if (s.ruler.length === 1) {
      if (out) out.textContent = `Ruler: from ${end.name}; now click the second model or point.`;
      return;
    }
    measure(form, s.ruler[0], s.ruler[1]);
  }

  async function measure(form, a, b) {
    const out = form.querySelector("[data-ruler-output]");
    const url = form.dataset.rulerUrl;
    if (!url) return;
    const query = new URLSearchParams({ a: a.spec, b: b.spec });
    try {
      const response = await fetch(`${url}?${query}`, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      const html = await response.text();
      if (out) out.innerHTML = html; // our own server's escaped fragment (editor_ruler.html)
      const figure = out && out.querySelector(".ruler-figure");
      if (figure) {
        const d = figure.dataset;
        const svg = svgOf(form);
        line(svg, +d.x1, +d.y1, +d.x2, +d.y2);
        // the reading on the table too, beside the line's middle, 13 px whatever the zoom
        const strong = figure.querySelector("strong");
        if (strong) {
          const size = 13 / ((svg.getScreenCTM() || { a: 1 }).a || 1);
          const text = document.createElementNS(SVGNS, "text");
          text.setAttribute("class", "ruler-reading");
          text.setAttribute("x", fmt((+d.x1 + +d.x2) / 2));
          text.setAttribute("y", fmt((+d.y1 + +d.y2) / 2 - size * 0.6));
          text.setAttribute("font-size", fmt(size));
          text.setAttribute("stroke-width", fmt(size / 4));
          text.setAttribute("text-anchor", "middle");
          text.textContent = strong.textContent;
          rulerLayer(svg).appendChild(text);
        }
      }
    } catch (error) {
      if (out) out.textContent = "The ruler could not reach the server.";
    }
  }

  // -- pointer -------------------------------------------------------------------------------------
  function tablePoint(svg, event) {
    const ctm = svg.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(ctm.inverse());
    return { x: p.x, y: p.y };
  }

  function onTable(svg, p) {
    const size = tableSize(svg);
    return p && p.x >= 0 && p.y >= 0 && p.x <= size.width && p.y <= size.height;
  }

  document.addEventListener("pointerdown", (event) => {
    const form = formOf(event.target);
    if (!form || event.button !== 0) return;
    const svg = event.target.closest("svg.table");
    if (!svg) return;
    init(form);
    const s = stateOf(form);
    const g = event.target.closest("g.model");
    s.drag = null;
    s.pressSelected = s.selected; // before a press focuses (and so selects) the model
    s.press = { id: event.pointerId, type: event.pointerType, x: event.clientX, y: event.clientY };
    if (s.tool !== "move") return;
    const p = tablePoint(svg, event);
    if (!p) return;
    const piece = !g && event.target.closest("path[data-terrain]");
    const terrainForm = piece && document.querySelector(`form[data-terrain-form="${cssEscape(piece.dataset.terrain)}"]`);
    if (terrainForm && !modelById(form, s.selected)) {
      // A terrain piece with an edit form on the page: dragging it moves it (saved on drop).
      s.drag = { piece, terrainForm, id: event.pointerId, sx: event.clientX, sy: event.clientY, px: p.x, py: p.y, moving: false };
      return;
    }
    if (!g || !movable(form, g)) return;
    const pose = poseOf(g);
    const group = carried(form, g);
    s.drag = { g, group, id: event.pointerId, sx: event.clientX, sy: event.clientY, dx: p.x - pose.x, dy: p.y - pose.y, moving: false };
    event.preventDefault(); // no text selection or scrolling while dragging a model
  });

  function dragTerrain(form, d, event) {
    const p = tablePoint(svgOf(form), event);
    if (!p) return;
    d.ox = p.x - d.px;
    d.oy = p.y - d.py;
    d.piece.setAttribute("transform", `translate(${fmt(d.ox)} ${fmt(d.oy)})`);
    status(form, `${d.piece.dataset.terrain} moved by ${fmt(Math.round(d.ox * 10) / 10)}, ${fmt(Math.round(d.oy * 10) / 10)}`);
  }

  function dropTerrain(d) {
    const x = d.terrainForm.elements.namedItem("x");
    const y = d.terrainForm.elements.namedItem("y");
    if (!x || !y || !Number.isFinite(d.ox)) return;
    x.value = fmt(Math.round((parseFloat(x.value) + d.ox) * 100) / 100);
    y.value = fmt(Math.round((parseFloat(y.value) + d.oy) * 100) / 100);
    const turn = d.terrainForm.elements.namedItem("rotate_by");
    if (turn) turn.value = "0";
    const button = d.terrainForm.querySelector('button[type="submit"]:not([name])');
    d.terrainForm.requestSubmit(button || undefined);
  }

  document.addEventListener("pointermove", (event) => {
    for (const f of document.querySelectorAll("form[data-placement]")) {
      const s = live.get(f);
      if (!s || !s.drag || s.drag.id !== event.pointerId) continue;
      const d = s.drag;
      if (svgOf(f).dataset.gesture === "pinch") return; // two fingers zoom (table-view.js)
      if (!d.moving && Math.hypot(event.clientX - d.sx, event.clientY - d.sy) < DRAG_PX) return;
      if (!d.moving) {
        d.moving = true;
        (d.g || d.piece).classList.add("dragging");
        if (d.g) select(f, d.g);
        try { svgOf(f).setPointerCapture(event.pointerId); } catch (e) { /* fine without */ }
      }
      if (d.piece) {
        dragTerrain(f, d, event);
        event.preventDefault();
        return;
      }
      const p = tablePoint(svgOf(f), event);
      if (p && d.group.length > 1) {
        const at = poseOf(d.g);
        moveGroup(f, d.group, { dx: p.x - d.dx - at.x, dy: p.y - d.dy - at.y });
      } else if (p) setPose(f, d.g, { x: p.x - d.dx, y: p.y - d.dy, facing: poseOf(d.g).facing });
      event.preventDefault();
      return;
    }
  });

  function endDrag(event) {
    for (const form of document.querySelectorAll("form[data-placement]")) {
      const s = live.get(form);
      if (!s || !s.drag || s.drag.id !== event.pointerId) continue;
      const d = s.drag;
      s.drag = null;
      if (!d.moving) return;
      (d.g || d.piece).classList.remove("dragging");
      s.suppressClick = true;
      if (d.piece) {
        if (event.type === "pointerup") dropTerrain(d);
        else d.piece.removeAttribute("transform");
        return;
      }
      if (event.type === "pointerup" && "autosave" in form.dataset) submit(form);
    }
  }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", endDrag);

  // A finger's tap is handled where the finger was lifted. The click that follows may be moved by
  // the browser's touch adjustment onto a nearby model (tap a spot beside a unit and the click
  // lands on the neighbour), so that click is ignored.
  document.addEventListener("pointerup", (event) => {
    if (event.pointerType !== "touch") return;
    const form = formOf(event.target);
    const svg = form && svgOf(form);
    if (!svg || svg.dataset.gesture) return;
    const s = stateOf(form);
    const press = s.press;
    s.press = null;
    if (!press || press.id !== event.pointerId || s.suppressClick) return;
    if (Math.hypot(event.clientX - press.x, event.clientY - press.y) >= DRAG_PX) return;
    const hit = document.elementFromPoint(event.clientX, event.clientY);
    if (!hit || !svg.contains(hit)) return;
    s.touchTapAt = performance.now();
    tap(form, svg, hit, tablePoint(svg, event), 1);
  });

  document.addEventListener("click", (event) => {
    const tool = event.target.closest("[data-tool]");
    const turnButton = event.target.closest("[data-turn]");
    const form = formOf(event.target);
    if (!form) return;
    init(form);
    if (tool) {
      setTool(form, tool.dataset.tool);
      return;
    }
    if (event.target.closest("[data-group]")) {
      setGroup(form, !stateOf(form).group);
      return;
    }
    if (event.target.closest("[data-snap]")) {
      snap(form, modelById(form, stateOf(form).selected));
      if ("autosave" in form.dataset) submit(form);
      return;
    }
    if (turnButton) {
      // Turn the selected model by the button's degrees (the same as Q / E for a mouse).
      const chosen = modelById(form, stateOf(form).selected);
      if (!chosen || !movable(form, chosen)) {
        status(form, "Select a model on the table first.");
        return;
      }
      turnGroup(form, chosen, parseFloat(turnButton.dataset.turn));
      if ("autosave" in form.dataset) submit(form);
      return;
    }
    const svg = event.target.closest("svg.table");
    if (!svg) return;
    const s = stateOf(form);
    if (s.suppressClick) {
      s.suppressClick = false;
      return;
    }
    if (s.touchTapAt && performance.now() - s.touchTapAt < 1000) {
      s.touchTapAt = 0; // the finger's tap was handled when it was lifted
      return;
    }
    tap(form, svg, event.target, tablePoint(svg, event), event.detail);
  });

  // A click or a tap on the table at `p` (table units) on `target`.
  function tap(form, svg, target, p, detail) {
    const s = stateOf(form);
    const g = target.closest("g.model");
    if (s.tool === "ruler") {
      if (g || onTable(svg, p)) rulerEnd(form, g, p);
      return;
    }
    if (g) {
      if (s.pressSelected === g.dataset.model && detail > 0) {
        select(form, null); // a second click on the selected model lets it go
        g.blur();
      } else {
        select(form, g, { focus: true });
      }
      return;
    }
    if (!onTable(svg, p)) return;
    const chosen = modelById(form, s.selected);
    if (chosen && movable(form, chosen)) {
      const at = poseOf(chosen);
      moveGroup(form, carried(form, chosen), { dx: p.x - at.x, dy: p.y - at.y });
      select(form, null); // placed: the next click on the table is a fresh choice
      chosen.blur();
      if ("autosave" in form.dataset) submit(form);
      return;
    }
    // Nothing selected: the point is offered to the page's "centre x / y" fields
    // ([data-from-table="x"|"y"]), e.g. where new terrain or a new unit should go.
    const fields = document.querySelectorAll("[data-from-table]");
    for (const field of fields) field.value = fmt(Math.round(p[field.dataset.fromTable] * 10) / 10);
    if (fields.length) status(form, `Point ${fmt(Math.round(p.x * 10) / 10)}, ${fmt(Math.round(p.y * 10) / 10)} chosen for new terrain and units`);
  }

  // -- keyboard ------------------------------------------------------------------------------------
  document.addEventListener("focusin", (event) => {
    const g = event.target.closest && event.target.closest("g.model");
    const form = formOf(g);
    if (!g || !form) return;
    init(form);
    if (stateOf(form).selected !== g.dataset.model) select(form, g);
  });

  document.addEventListener("keydown", (event) => {
    const g = event.target.closest && event.target.closest("g.model");
    const form = formOf(g);
    if (!g || !form || event.altKey || event.ctrlKey || event.metaKey) return;
    init(form);
    const all = models(form);
    const here = all.indexOf(g);
    const go = (i) => {
      const next = all[(i + all.length) % all.length];
      select(form, next, { focus: true });
    };
    const step = event.shiftKey ? 1 : 0.1;
    const turn = event.shiftKey ? 1 : 15;
    const pose = poseOf(g);
    const nudge = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[event.key];
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (nudge) {
      if (movable(form, g)) {
        const group = carried(form, g);
        moveGroup(form, group, { dx: nudge[0], dy: nudge[1] });
        moved(form, group);
      }
      else status(form, `${g.dataset.model} cannot be moved here`);
    } else if (key === "q" || key === "e") {
      if (movable(form, g)) turnGroup(form, g, key === "e" ? turn : -turn);
    } else if (key === "g") {
      setGroup(form, !stateOf(form).group);
    } else if (key === "s") {
      snap(form, g);
    } else if (key === "]" || key === "PageDown") {
      go(here + 1);
    } else if (key === "[" || key === "PageUp") {
      go(here - 1);
    } else if (key === "Home") {
      go(0);
    } else if (key === "End") {
      go(all.length - 1);
    } else if (key === "Enter") {
      if (!("measureOnly" in form.dataset)) submit(form); // a table only looked at saves nothing
    } else if (key === " ") {
      select(form, g);
    } else if (key === "r") {
      if (stateOf(form).tool !== "ruler") setTool(form, "ruler");
      rulerEnd(form, g, null);
    } else if (key === "Escape") {
      select(form, null);
      clearRuler(form);
      const out = form.querySelector("[data-ruler-output]");
      if (out) out.textContent = "";
    } else {
      return;
    }
    event.preventDefault();
  });

  // -- typed coordinates move the picture too -----------------------------------------------------
  document.addEventListener("input", (event) => {
    const form = formOf(event.target);
    const match = /^pose-(.+)-(x|y|facing)$/.exec(event.target.name || "");
    if (!form || !match) return;
    const g = modelById(form, match[1]);
    if (!g) return;
    const read = (part) => parseFloat(poseInput(form, match[1], part)?.value);
    const pose = poseOf(g);
    const next = { x: read("x"), y: read("y"), facing: read("facing") };
    for (const k of Object.keys(next)) if (!Number.isFinite(next[k])) next[k] = pose[k];
    g.setAttribute("transform", `translate(${fmt(next.x)} ${fmt(next.y)})${next.facing % 360 ? ` rotate(${fmt(next.facing)})` : ""}`);
    form.dispatchEvent(new CustomEvent("table:moved", { bubbles: true, detail: { model: match[1], ...next } }));
  });

  // One save at a time per form: what is moved meanwhile is saved next (see submit).
  document.addEventListener("htmx:before:request", (event) => {
    const form = event.target.closest && event.target.closest("form[data-placement]");
    if (!form) return;
    const s = stateOf(form);
    s.inflight = true;
    s.dirty.clear();
  });
  document.addEventListener("htmx:finally:request", (event) => {
    const form = event.target.closest && event.target.closest("form[data-placement]");
    if (!form) return;
    const s = stateOf(form);
    s.inflight = false;
    if (s.queued && form.isConnected) {
      // Not redrawn (the save was refused): the message says why; nothing more is sent.
      s.queued = false;
    }
  });

  // Before htmx replaces a table, remember what was selected and focused; after, restore it.
  document.addEventListener("htmx:before:swap", () => {
    for (const form of document.querySelectorAll("form[data-placement]")) keep(form);
  });
  document.addEventListener("htmx:after:swap", initAll);
  document.addEventListener("htmx:after:settle", initAll);

  // The casualty forms beside a placement form (form[data-casualty-form]: the move page's, the
  // editor's one per unit): the one listing the model selected on the table picks it, so
  // "select, then remove" works without the list.
  document.addEventListener("table:selected", (event) => {
    for (const picker of document.querySelectorAll("form[data-casualty-form] [data-casualty-model]")) {
      if (event.detail && [...picker.options].some((o) => o.value === event.detail.model)) {
        picker.value = event.detail.model;
      }
    }
  });

  // A new step of the move stepper (the #stepper element replaced by htmx): keyboard focus goes
  // to its heading, and the live region says where the player now is (issue 13: no more
  // tabbing down from the top of the page after every step). Check and Suggest, which swap only
  // the verdict and the fields, leave the focus where it was.
  let shownStep = document.querySelector("#stepper");
  function focusNewStep() {
    const stepper = document.querySelector("#stepper");
    if (!stepper || stepper === shownStep) return;
    shownStep = stepper;
    const heading = stepper.querySelector("h2");
    if (!heading) return;
    heading.setAttribute("tabindex", "-1");
    heading.focus({ preventScroll: false });
    const announce = document.querySelector("#step-announce");
    if (announce) announce.textContent = heading.textContent.trim();
  }
  document.addEventListener("htmx:after:settle", focusNewStep);
  window.addEventListener("popstate", () => requestAnimationFrame(focusNewStep));
  // Tables swapped in any other way (out of band, by other scripts) are set up as they arrive.
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      initAll();
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", initAll);
  else initAll();
})();
