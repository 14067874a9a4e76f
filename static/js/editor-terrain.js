// Drawing terrain point by point in the editor (issue 12 item 5).
//
// The "Draw terrain" form (templates/battlefield/editor.html, [data-draw-form]) holds the
// points as text ("x,y x,y ..."), so it works without this script and the points can be typed.
// With it: "Click points on the table" ([data-draw-toggle]) turns drawing on; each click on the
// table adds a point (table units, through the svg's screen matrix, snapped to the form's
// data-draw-snap step); "Remove last point"
// takes one back; the shape drawn so far is previewed on the table (a polygon for a footprint
// or a floor, a line for a wall). While drawing, a press on a model or a terrain piece does not
// start a drag (table.js), and Escape stops drawing. The form's fields that do not apply to the
// part chosen ([data-draw-for="wall floor"]) are hidden. htmx swaps the whole editor after an
// edit: everything here is found again from the document on each event.
(() => {
  "use strict";
  const SVG_NS = "http://www.w3.org/2000/svg";

  const form = () => document.querySelector("[data-draw-form]");
  const tableOf = () => document.querySelector("#placement svg.table");
  const drawing = () => form()?.querySelector("[data-draw-toggle]")?.getAttribute("aria-pressed") === "true";

  function points(f) {
    const text = f.querySelector("[data-draw-points]").value.trim();
    if (!text) return [];
    return text
      .split(/[\s;]+/)
      .map((p) => p.split(",").map(Number))
      .filter((p) => p.length === 2 && p.every(Number.isFinite));
  }

  function setPoints(f, list) {
    f.querySelector("[data-draw-points]").value = list.map(([x, y]) => `${x},${y}`).join(" ");
    preview();
  }

  function status(text) {
    const out = form()?.querySelector("[data-draw-status]");
    if (out) out.textContent = text;
  }

  function part() {
    return form()?.querySelector("[data-draw-part]")?.value || "footprint";
  }

  // Hide the fields that do not apply to the part being drawn.
  function showFields() {
    const f = form();
    if (!f) return;
    for (const label of f.querySelectorAll("[data-draw-for]")) {
      label.hidden = !label.dataset.drawFor.split(" ").includes(part());
    }
  }

  function preview() {
    const svg = tableOf();
    const f = form();
    if (!svg || !f) return;
    let layer = svg.querySelector("g.draw-preview");
    if (!layer) {
      layer = document.createElementNS(SVG_NS, "g");
      layer.setAttribute("class", "draw-preview");
      layer.setAttribute("aria-hidden", "true");
      svg.appendChild(layer);
    }
    layer.replaceChildren();
    const list = points(f);
    if (!list.length) return;
    const px = 1 / ((svg.getScreenCTM() || { a: 1 }).a || 1); // one screen pixel in table units
    const closed = part() !== "wall" && list.length > 2;
    const shape = document.createElementNS(SVG_NS, closed ? "polygon" : "polyline");
    shape.setAttribute("points", list.map((p) => p.join(",")).join(" "));
    shape.setAttribute("fill", closed ? "#0072B2" : "none");
    shape.setAttribute("fill-opacity", "0.2");
    shape.setAttribute("stroke", "#0072B2");
    shape.setAttribute("stroke-width", String((part() === "wall" ? 4 : 2) * px));
    shape.setAttribute("stroke-dasharray", `${6 * px} ${3 * px}`);
    layer.appendChild(shape);
    list.forEach(([x, y], i) => {
      const dot = document.createElementNS(SVG_NS, "circle");
      dot.setAttribute("cx", x);
      dot.setAttribute("cy", y);
      dot.setAttribute("r", String(4 * px));
      dot.setAttribute("fill", i === 0 ? "#D55E00" : "#0072B2");
      dot.setAttribute("stroke", "#FFFFFF");
      dot.setAttribute("stroke-width", String(1.5 * px));
      layer.appendChild(dot);
    });
  }

  function toTable(svg, event) {
    const ctm = svg.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(ctm.inverse());
    const w = Number(svg.dataset.width);
    const h = Number(svg.dataset.height);
    // Clicks snap to the form's step (half the minor grid): corners line up, and a finger's
    // pixel of slack does not show as 39.9 for 40.
    const step = Number(form()?.dataset.drawSnap) || 0.1;
    const snap = (v, max) => Number((Math.round(Math.min(Math.max(v, 0), max) / step) * step).toFixed(3));
    return [snap(p.x, w), snap(p.y, h)];
  }

  function setDrawing(on) {
    const toggle = form()?.querySelector("[data-draw-toggle]");
    if (!toggle) return;
    toggle.setAttribute("aria-pressed", on ? "true" : "false");
    toggle.textContent = on ? "Stop clicking points" : "Click points on the table";
    tableOf()?.classList.toggle("drawing", on);
    // The table may be far above the form (a phone): bring it to the eye to click on.
    if (on) tableOf()?.scrollIntoView({ block: "nearest" });
    status(on ? "Click the table to add points; Escape stops." : "");
  }

  // A press on a model or terrain while drawing must not start table.js's drag.
  document.addEventListener(
    "pointerdown",
    (event) => {
      if (!drawing()) return;
      const svg = event.target.closest?.("#placement svg.table");
      if (svg && event.target.closest(".model, .terrain")) event.stopPropagation();
    },
    true,
  );

  document.addEventListener(
    "click",
    (event) => {
      const f = form();
      if (!f) return;
      if (event.target.closest?.("[data-draw-toggle]")) {
        setDrawing(!drawing());
        return;
      }
      if (event.target.closest?.("[data-draw-undo]")) {
        setPoints(f, points(f).slice(0, -1));
        return;
      }
      if (!drawing()) return;
      const svg = event.target.closest?.("#placement svg.table");
      if (!svg) return;
      const at = toTable(svg, event);
      if (!at) return;
      event.stopPropagation(); // not a tap-to-place for table.js
      event.preventDefault();
      const list = [...points(f), at];
      setPoints(f, list);
      status(`Point ${list.length} at ${at[0]}, ${at[1]}.`);
    },
    true,
  );

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && drawing()) setDrawing(false);
  });
  document.addEventListener("input", (event) => {
    if (event.target.closest?.("[data-draw-points]")) preview();
  });
  document.addEventListener("change", (event) => {
    if (event.target.closest?.("[data-draw-part]")) {
      showFields();
      preview();
    }
  });
  document.addEventListener("table:view", preview);
  document.addEventListener("htmx:after:settle", () => {
    showFields();
    preview();
  });
  document.addEventListener("DOMContentLoaded", showFields);
  if (document.readyState !== "loading") showFields();
})();
