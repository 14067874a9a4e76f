// Zoom and pan for every table picture (issue 13: a table a player can use on a phone).
//
// The view is the SVG's viewBox: zooming never rescales the page, so the table keeps its place
// and size on screen and every click still maps to table coordinates (static/js/table.js reads
// them through getScreenCTM). Each svg.table gets a toolbar above it:
//   Zoom in, Zoom out, Whole table, Moving unit (when the board names one), and four pan buttons.
// - Pinch with two fingers (or Ctrl + wheel, a trackpad pinch) zooms around the fingers;
//   dragging an empty part of the table pans it (a press on a model is table.js's drag).
// - Keys, with focus on the table or its toolbar: + and - zoom, 0 shows the whole table,
//   Alt + arrows pan.
// - A board with data-focus-unit="<unit id>" (the move pages) opens zoomed to that unit (and
//   data-focus-with, e.g. its target), never so far out that a base of the unit is smaller than
//   MIN_TARGET_PX: a finger can pick up a model at the default zoom.
// - A snap or a nudge of table.js ("table:moved") pans the view to keep the moved models in it.
// The view of each table (by page and svg id) is kept over htmx swaps, so a Check that redraws
// the table keeps the player's zoom.
(() => {
  "use strict";
  const MIN_TARGET_PX = 28; // WCAG 2.5.8 asks 24 CSS px; a little more for fingers
  const PAN_PX = 8; // a press that moves less than this is a tap, not a pan
  const views = new Map(); // key -> {x, y, w, h}: kept over swaps

  const parseBox = (text) => {
    const [x, y, w, h] = String(text).trim().split(/[\s,]+/).map(Number);
    return { x, y, w, h };
  };
  const boxText = (v) => [v.x, v.y, v.w, v.h].map((n) => String(Math.round(n * 1000) / 1000)).join(" ");
  const fullView = (svg) => parseBox(svg.dataset.fullView);
  const currentView = (svg) => parseBox(svg.getAttribute("viewBox"));
  const hostOf = (svg) => svg.closest("[data-focus-unit]") || svg.parentElement;
  const keyOf = (svg) => `${location.pathname}#${svg.id}|${hostOf(svg).dataset.focusUnit || ""}`;

  function clamp(svg, v) {
    const f = fullView(svg);
    const w = Math.min(Math.max(v.w, f.w / 30), f.w);
    const h = (w * f.h) / f.w; // the picture's proportions never change: no layout jumps
    const x = Math.min(Math.max(v.x, f.x), f.x + f.w - w);
    const y = Math.min(Math.max(v.y, f.y), f.y + f.h - h);
    return { x, y, w, h };
  }

  function setView(svg, v, { remember = true } = {}) {
    const view = clamp(svg, v);
    svg.setAttribute("viewBox", boxText(view));
    const zoomed = view.w < fullView(svg).w - 1e-6;
    svg.classList.toggle("zoomed", zoomed);
    const tools = toolsOf(svg);
    if (tools) {
      const out = tools.querySelector("[data-view=out]");
      if (out) out.disabled = !zoomed;
      const level = tools.querySelector("[data-view-level]");
      if (level) level.textContent = `${Math.round((fullView(svg).w / view.w) * 100)}%`;
    }
    if (remember) views.set(keyOf(svg), view);
    svg.dispatchEvent(new CustomEvent("table:view", { bubbles: true, detail: view }));
  }

  // Zoom by `factor` keeping the table point (cx, cy) where it is on screen.
  function zoomAt(svg, factor, cx, cy) {
    const v = currentView(svg);
    const w = v.w / factor;
    const h = v.h / factor;
    setView(svg, { x: cx - ((cx - v.x) * w) / v.w, y: cy - ((cy - v.y) * h) / v.h, w, h });
  }

  function zoomCentre(svg, factor) {
    const v = currentView(svg);
    zoomAt(svg, factor, v.x + v.w / 2, v.y + v.h / 2);
  }

  function pan(svg, fx, fy) {
    const v = currentView(svg);
    setView(svg, { ...v, x: v.x + fx * v.w, y: v.y + fy * v.h });
  }

  // -- the view that opens on a move page: the moving unit, its bases big enough to touch -----
  function centreOf(g) {
    const m = /translate\(\s*([-\d.eE]+)[\s,]+([-\d.eE]+)/.exec(g.getAttribute("transform") || "");
    return m ? { x: +m[1], y: +m[2] } : null;
  }

  function focusView(svg) {
    const host = hostOf(svg);
    const unit = host.dataset.focusUnit;
    if (!unit) return null;
    const ids = [unit, ...(host.dataset.focusWith || "").split(/\s+/).filter(Boolean)];
    const moving = Array.from(svg.querySelectorAll(`g.model[data-unit="${CSS.escape(unit)}"]`));
    if (!moving.length) return null;
    let smallest = Infinity;
    for (const g of moving) {
      const base = g.querySelector(".base");
      if (!base) continue;
      const b = base.getBBox();
      smallest = Math.min(smallest, b.width, b.height);
    }
    const reach = parseFloat(host.dataset.focusReach) || 0;
    const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    for (const id of ids) {
      for (const g of svg.querySelectorAll(`g.model[data-unit="${CSS.escape(id)}"]`)) {
        const c = centreOf(g);
        if (!c) continue;
        const pad = id === unit ? reach + smallest : smallest;
        box.x0 = Math.min(box.x0, c.x - pad);
        box.y0 = Math.min(box.y0, c.y - pad);
        box.x1 = Math.max(box.x1, c.x + pad);
        box.y1 = Math.max(box.y1, c.y + pad);
      }
    }
    const f = fullView(svg);
    const px = svg.getBoundingClientRect().width || 1;
    // the widest view in which the unit's smallest base is still MIN_TARGET_PX across
    const widest = Number.isFinite(smallest) ? (px * smallest) / MIN_TARGET_PX : f.w;
    const wanted = Math.max(box.x1 - box.x0, ((box.y1 - box.y0) * f.w) / f.h);
    const w = Math.min(f.w, widest, Math.max(wanted, widest));
    const h = (w * f.h) / f.w;
    // centred on the moving unit itself when the whole box does not fit
    let cx = (box.x0 + box.x1) / 2;
    let cy = (box.y0 + box.y1) / 2;
    if (wanted > w) {
      const own = moving.map(centreOf).filter(Boolean);
      cx = own.reduce((s, c) => s + c.x, 0) / own.length;
      cy = own.reduce((s, c) => s + c.y, 0) / own.length;
    }
    return { x: cx - w / 2, y: cy - h / 2, w, h };
  }

  // -- following moved models (issue 13: after "Snap to contact" a zoomed phone view kept
  // showing where the stands had been) ---------------------------------------------------------
  // Pan the least that brings the moved models (with a margin) into the view, keeping the zoom;
  // when they do not all fit, zoom out just enough and centre on them.
  function follow(svg, ids) {
    const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    for (const id of ids) {
      const g = svg.querySelector(`g.model[data-model="${CSS.escape(id)}"]`);
      const c = g && centreOf(g);
      const base = g && g.querySelector(".base");
      if (!c || !base) continue;
      const b = base.getBBox();
      const r = Math.hypot(b.width, b.height) / 2;
      box.x0 = Math.min(box.x0, c.x - r);
      box.y0 = Math.min(box.y0, c.y - r);
      box.x1 = Math.max(box.x1, c.x + r);
      box.y1 = Math.max(box.y1, c.y + r);
    }
    if (!Number.isFinite(box.x0)) return;
    let v = currentView(svg);
    let margin = Math.min(v.w, v.h) * 0.05;
    const tooBig = Math.max((box.x1 - box.x0 + 2 * margin) / v.w, (box.y1 - box.y0 + 2 * margin) / v.h);
    if (tooBig > 1) {
      // the moved models do not fit: zoom out just enough for them, centred on them
      v = { x: v.x, y: v.y, w: v.w * tooBig * 1.05, h: v.h * tooBig * 1.05 };
      margin = Math.min(v.w, v.h) * 0.05;
    }
    const along = (start, size, lo, hi) => {
      if (hi - lo + 2 * margin > size) return (lo + hi) / 2 - size / 2;
      if (lo - margin < start) return lo - margin;
      if (hi + margin > start + size) return hi + margin - size;
      return start;
    };
    const x = along(v.x, v.w, box.x0, box.x1);
    const y = along(v.y, v.h, box.y0, box.y1);
    const now = currentView(svg);
    if (x !== now.x || y !== now.y || v.w !== now.w) setView(svg, { ...v, x, y });
  }

  document.addEventListener("table:moved", (event) => {
    const svg = event.target;
    if (svg.matches && svg.matches("svg.table.viewable") && event.detail) follow(svg, event.detail.models || []);
  });

  // -- the toolbar ---------------------------------------------------------------------------------
  function button(view, label, text) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "button view-button";
    b.dataset.view = view;
    b.setAttribute("aria-label", label);
    b.title = label;
    b.textContent = text;
    return b;
  }

  function toolsOf(svg) {
    const id = svg.dataset.viewTools;
    return id ? document.getElementById(id) : null;
  }

  function addTools(svg) {
    const bar = document.createElement("div");
    bar.className = "table-view-tools";
    bar.id = `${svg.id}-view-tools`;
    bar.setAttribute("role", "toolbar");
    bar.setAttribute("aria-label", "Table view: zoom and pan");
    bar.dataset.viewOf = svg.id;
    bar.append(button("in", "Zoom in", "+"), button("out", "Zoom out", "\u2212"));
    const level = document.createElement("span");
    level.className = "view-level muted";
    level.dataset.viewLevel = "";
    bar.append(level, button("all", "Show the whole table", "Whole table"));
    if (hostOf(svg).dataset.focusUnit) bar.append(button("unit", "Zoom to the moving unit", "Unit"));
    const arrows = document.createElement("span");
    arrows.className = "view-pan";
    arrows.append(
      button("left", "Pan left", "\u2190"),
      button("up", "Pan up", "\u2191"),
      button("down", "Pan down", "\u2193"),
      button("right", "Pan right", "\u2192"),
    );
    bar.append(arrows);
    svg.dataset.viewTools = bar.id;
    svg.parentNode.insertBefore(bar, svg);
  }

  // A table is set up when it has its full view noted and the class `viewable`. htmx's settle
  // step puts a swapped-in element's own attributes back after the swap (dropping those copied
  // from the element it replaced), so a redrawn table is set up again after htmx:after:settle.
  function init(svg) {
    if ((svg.dataset.fullView && svg.classList.contains("viewable")) || !svg.id || !svg.getAttribute("viewBox")) return;
    svg.dataset.fullView = svg.getAttribute("viewBox");
    svg.classList.add("viewable");
    const old = document.getElementById(`${svg.id}-view-tools`);
    if (old && old.dataset.viewOf === svg.id) old.remove();
    addTools(svg);
    const kept = views.get(keyOf(svg));
    const start = kept || focusView(svg);
    setView(svg, start || fullView(svg));
  }

  function initAll() {
    for (const svg of document.querySelectorAll("svg.table")) init(svg);
  }

  function act(svg, what) {
    if (what === "in") zoomCentre(svg, 1.5);
    else if (what === "out") zoomCentre(svg, 1 / 1.5);
    else if (what === "all") setView(svg, fullView(svg));
    else if (what === "unit") setView(svg, focusView(svg) || fullView(svg));
    else if (what === "left") pan(svg, -0.25, 0);
    else if (what === "right") pan(svg, 0.25, 0);
    else if (what === "up") pan(svg, 0, -0.25);
    else if (what === "down") pan(svg, 0, 0.25);
  }

  document.addEventListener("click", (event) => {
    const b = event.target.closest && event.target.closest("[data-view]");
    const bar = b && b.closest("[data-view-of]");
    const svg = bar && document.getElementById(bar.dataset.viewOf);
    if (!svg) return;
    act(svg, b.dataset.view);
  });

  document.addEventListener("keydown", (event) => {
    const el = event.target.closest && event.target.closest("svg.table, [data-view-of]");
    if (!el || event.ctrlKey || event.metaKey) return;
    const svg = el.matches("svg.table") ? el : document.getElementById(el.dataset.viewOf);
    if (!svg) return;
    const arrows = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };
    let what = null;
    if (event.key === "+" || event.key === "=") what = "in";
    else if (event.key === "-" || event.key === "_") what = "out";
    else if (event.key === "0") what = "all";
    else if (event.altKey && arrows[event.key]) what = arrows[event.key];
    if (!what) return;
    act(svg, what);
    event.preventDefault();
  });

  // -- pointers: pinch to zoom, drag the empty table to pan -----------------------------------------
  const pointers = new Map(); // pointerId -> {x, y}
  let gesture = null; // {svg, kind: "pan" | "pinch", ...}
  let swallowClick = false;

  function tablePoint(svg, x, y) {
    const ctm = svg.getScreenCTM();
    return ctm ? new DOMPoint(x, y).matrixTransform(ctm.inverse()) : null;
  }

  // A press on a model, or on terrain its editor form lets the player drag, belongs to table.js.
  function grabsSomething(target) {
    if (target.closest("g.model")) return true;
    const piece = target.closest("path[data-terrain]");
    return !!(piece && document.querySelector(`form[data-terrain-form="${CSS.escape(piece.dataset.terrain)}"]`));
  }

  document.addEventListener("pointerdown", (event) => {
    const svg = event.target.closest && event.target.closest("svg.table.viewable");
    if (!svg) return;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (pointers.size === 2) {
      const [a, b] = Array.from(pointers.values());
      const mid = tablePoint(svg, (a.x + b.x) / 2, (a.y + b.y) / 2);
      gesture = { svg, kind: "pinch", d0: Math.hypot(a.x - b.x, a.y - b.y) || 1, v0: currentView(svg), mid };
      svg.dataset.gesture = "pinch"; // table.js stops dragging a model meanwhile
      return;
    }
    if (pointers.size === 1 && event.button === 0 && !grabsSomething(event.target)) {
      gesture = { svg, kind: "pan", sx: event.clientX, sy: event.clientY, v0: currentView(svg), moving: false };
    }
  });

  document.addEventListener("pointermove", (event) => {
    if (!pointers.has(event.pointerId) || !gesture) return;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    const svg = gesture.svg;
    const rect = svg.getBoundingClientRect();
    if (gesture.kind === "pinch" && pointers.size >= 2) {
      const [a, b] = Array.from(pointers.values());
      const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      const v0 = gesture.v0;
      const w = clamp(svg, { ...v0, w: (v0.w * gesture.d0) / d }).w;
      const h = (w * v0.h) / v0.w;
      // the table point first under the fingers' midpoint stays under their midpoint now
      const mx = ((a.x + b.x) / 2 - rect.left) / rect.width;
      const my = ((a.y + b.y) / 2 - rect.top) / rect.height;
      setView(svg, { x: gesture.mid.x - mx * w, y: gesture.mid.y - my * h, w, h });
      event.preventDefault();
    } else if (gesture.kind === "pan") {
      const dx = event.clientX - gesture.sx;
      const dy = event.clientY - gesture.sy;
      if (!gesture.moving && Math.hypot(dx, dy) < PAN_PX) return;
      gesture.moving = true;
      svg.dataset.gesture = "pan";
      const v0 = gesture.v0;
      setView(svg, { ...v0, x: v0.x - (dx * v0.w) / rect.width, y: v0.y - (dy * v0.h) / rect.height });
      event.preventDefault();
    }
  });

  function release(event) {
    if (!pointers.delete(event.pointerId) || !gesture) return;
    const g = gesture;
    if (g.kind === "pinch" || g.moving) swallowClick = true; // it was not a tap on the table
    if (pointers.size === 0) {
      delete g.svg.dataset.gesture;
      gesture = null;
    } else if (g.kind === "pinch") {
      gesture = null; // one finger left: no pan until it is lifted and pressed again
    }
  }
  document.addEventListener("pointerup", release);
  document.addEventListener("pointercancel", release);

  // A pan or pinch ends with a click on the table: it must not place or select anything.
  document.addEventListener("click", (event) => {
    if (!swallowClick) return;
    swallowClick = false;
    if (event.target.closest && event.target.closest("svg.table")) {
      event.stopPropagation();
      event.preventDefault();
    }
  }, true);

  document.addEventListener("wheel", (event) => {
    const svg = event.target.closest && event.target.closest("svg.table.viewable");
    if (!svg || !event.ctrlKey) return; // a plain wheel scrolls the page
    const p = tablePoint(svg, event.clientX, event.clientY);
    if (p) zoomAt(svg, Math.exp(-event.deltaY / 200), p.x, p.y);
    event.preventDefault();
  }, { passive: false });

  document.addEventListener("htmx:after:swap", initAll);
  document.addEventListener("htmx:after:settle", initAll);
  // Tables swapped in by htmx (or any script) get their view as they arrive.
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
