// Measuring while placing (issue 13): for each model of a placement form that is away from its
// start, a ghost of its base stays at the start with a line to where it is now, and the model
// being moved carries "moved 3.9 of 4 in" beside it, turning red past the move's maximum.
//
// Reads the placement form (form[data-placement] of static/js/table.js): its pose rows
// (tr[data-model][data-start-x][data-start-y]) give each model's start, data-max-distance and
// data-distance-unit the limit. Redrawn on every `table:moved` (dragging, tapping, keys, typed
// coordinates) and whenever the table is swapped in again (after Check the trails stay).
// The distance shown is how far the base's centre moved in a straight line: a guide while
// placing; the verdict (Check) measures the move as the rules do.
(() => {
  "use strict";
  const SVGNS = "http://www.w3.org/2000/svg";
  const LABEL_PX = 13; // the label's size on screen, whatever the zoom
  const fmt = (v) => String(Math.round(v * 1000) / 1000);
  const one = (v) => (Math.round(v * 10) / 10).toFixed(1);
  let focusModel = null; // the model last moved: it carries the distance label

  function svgOf(form) {
    const host = form.dataset.table ? document.querySelector(form.dataset.table) : null;
    return form.querySelector("svg.table") || (host && (host.matches("svg.table") ? host : host.querySelector("svg.table")));
  }

  function centre(g) {
    const t = g.getAttribute("transform") || "";
    const m = /translate\(\s*([-\d.eE]+)[\s,]+([-\d.eE]+)\s*\)/.exec(t);
    const r = /rotate\(\s*([-\d.eE]+)/.exec(t);
    return m ? { x: +m[1], y: +m[2], facing: r ? +r[1] : 0 } : null;
  }

  function layer(svg, cls, before) {
    let g = svg.querySelector(`g.${cls}`);
    if (!g) {
      g = document.createElementNS(SVGNS, "g");
      g.setAttribute("class", cls);
      g.setAttribute("aria-hidden", "true");
      const anchor = before && svg.querySelector(before);
      if (anchor) svg.insertBefore(g, anchor);
      else svg.appendChild(g);
    }
    return g;
  }

  function el(name, attrs) {
    const node = document.createElementNS(SVGNS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  function draw(form) {
    const svg = svgOf(form);
    if (!svg) return;
    const trails = layer(svg, "measure-trails", "g.units");
    const labels = layer(svg, "measure-labels", null);
    trails.replaceChildren();
    labels.replaceChildren();
    const max = parseFloat(form.dataset.maxDistance);
    const unit = form.dataset.distanceUnit || "";
    const pxPerUnit = (svg.getScreenCTM() || { a: 1 }).a || 1;
    for (const row of form.querySelectorAll("tr[data-model][data-start-x]")) {
      const id = row.dataset.model;
      const g = svg.querySelector(`g.model[data-model="${CSS.escape(id)}"]`);
      const now = g && centre(g);
      if (!now) continue;
      const start = { x: +row.dataset.startX, y: +row.dataset.startY, facing: +row.dataset.startFacing || 0 };
      const moved = Math.hypot(now.x - start.x, now.y - start.y);
      if (moved < 1e-6 && Math.abs(now.facing - start.facing) < 1e-6) continue;
      const over = Number.isFinite(max) && moved > max + 1e-9;
      const base = g.querySelector(".base");
      if (base) {
        const ghost = base.cloneNode(false);
        ghost.setAttribute("class", "ghost");
        ghost.setAttribute("transform", `translate(${fmt(start.x)} ${fmt(start.y)})${start.facing ? ` rotate(${fmt(start.facing)})` : ""}`);
        for (const a of ["fill", "stroke", "fill-opacity", "stroke-width"]) ghost.removeAttribute(a);
        trails.appendChild(ghost);
      }
      trails.appendChild(el("line", {
        class: `trail${over ? " over" : ""}`, "data-model": id,
        x1: fmt(start.x), y1: fmt(start.y), x2: fmt(now.x), y2: fmt(now.y),
      }));
      if (id !== focusModel) continue;
      const size = LABEL_PX / pxPerUnit;
      const r = base ? base.getBBox().width / 2 : size;
      const text = Number.isFinite(max) ? `moved ${one(moved)} of ${one(max).replace(/\.0$/, "")} ${unit}` : `moved ${one(moved)} ${unit}`;
      const attrs = { class: `move-distance${over ? " over" : ""}`, "data-model": id, x: fmt(now.x), y: fmt(now.y - r - size * 0.4), "font-size": fmt(size), "text-anchor": "middle", "stroke-width": fmt(size / 4) };
      const label = el("text", attrs);
      label.textContent = text.trim();
      labels.appendChild(label);
      form.dataset.moved = label.textContent; // for the status line and tests
    }
  }

  function forms() {
    return Array.from(document.querySelectorAll("form[data-placement]")).filter((f) => f.querySelector("tr[data-start-x]"));
  }

  document.addEventListener("table:moved", (event) => {
    const form = event.target.closest && event.target.closest("form[data-placement]");
    if (!form || !form.querySelector("tr[data-start-x]")) return;
    focusModel = event.detail && event.detail.model;
    draw(form);
  });
  // the label keeps its size on screen when the view zooms (static/js/table-view.js)
  document.addEventListener("table:view", () => forms().forEach(draw));

  let queued = false;
  function redrawSoon() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      for (const form of forms()) {
        const svg = svgOf(form);
        if (svg && !svg.querySelector("g.measure-trails")) draw(form);
      }
    });
  }
  new MutationObserver(redrawSoon).observe(document.documentElement, { childList: true, subtree: true });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", redrawSoon);
  else redrawSoon();
})();
