// The editor's add forms (templates/battlefield/editor.html), issue 13 item 10: faster to build
// a table with.
// - Fields marked [data-keep] keep what the player chose or typed (the spot tapped on the table,
//   the preset, the catalogue entry, the number of models...) when the editing area is redrawn
//   after an edit or the page is reloaded: kept per page in sessionStorage, under the form's
//   action and the field's name.
// - After an add the table is brought back into view when it is out of it, so the player sees
//   what they added (the forms sit below the table on a phone).
// - An input[data-filter-for="<select id>"] narrows that select's options to the names
//   containing what is typed (the catalogue's search); the first name beginning with it (else
//   the first match) is chosen.
(function () {
  "use strict";

  const KEY = `arbiter-kept:${location.pathname}`;

  function keyOf(field) {
    return `${field.form ? field.form.getAttribute("action") : ""}|${field.name}`;
  }

  function remember() {
    const kept = {};
    for (const field of document.querySelectorAll("#editor [data-keep]")) {
      if (field.name) kept[keyOf(field)] = field.value;
    }
    try {
      sessionStorage.setItem(KEY, JSON.stringify(kept));
    } catch (error) {
      // storage refused (private mode): the fields simply start afresh
    }
  }

  function restore() {
    let kept = {};
    try {
      kept = JSON.parse(sessionStorage.getItem(KEY) || "{}");
    } catch (error) {
      return;
    }
    for (const field of document.querySelectorAll("#editor [data-keep]")) {
      const value = kept[keyOf(field)];
      if (value === undefined) continue;
      if (field.tagName === "SELECT" && ![...field.options].some((o) => o.value === value)) continue;
      field.value = value;
    }
  }

  function filter(input) {
    const select = document.getElementById(input.dataset.filterFor);
    if (!select) return;
    const words = input.value.trim().toLowerCase();
    let first = null;
    let starts = null; // a name beginning with the words beats one that only contains them
    for (const option of select.options) {
      const name = option.textContent.toLowerCase();
      const match = !words || name.includes(words);
      option.hidden = !match;
      if (match && !first) first = option;
      if (match && !starts && words && name.startsWith(words)) starts = option;
    }
    first = starts || first;
    for (const group of select.querySelectorAll("optgroup")) {
      group.hidden = ![...group.children].some((o) => !o.hidden);
    }
    if (first) select.value = first.value;
    const count = [...select.options].filter((o) => !o.hidden).length;
    const out = document.getElementById(`${input.id}-found`);
    if (out) out.textContent = words ? `${count} found` : "";
  }

  // What was added: the form of the request being answered, to bring the table into view after.
  let adding = false;
  document.addEventListener("htmx:before:request", (event) => {
    const form = event.target && event.target.closest && event.target.closest("form");
    adding = !!(form && form.matches("[data-adds]"));
    remember();
  });
  document.addEventListener("submit", remember, true);
  document.addEventListener("input", (event) => {
    if (event.target.matches && event.target.matches("[data-filter-for]")) filter(event.target);
  });
  document.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("[data-keep]")) remember();
  });
  // The table's "choose where new things go" fills [data-from-table] fields without events.
  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("#placement svg")) requestAnimationFrame(remember);
  });

  // Each editing area is given the kept values once, as soon as it is in the page (a later
  // event must not undo a spot the player has chosen since).
  const restored = new WeakSet();
  function arrived() {
    const editor = document.querySelector("#editor");
    if (!editor || restored.has(editor)) return;
    restored.add(editor);
    restore();
    if (adding) {
      adding = false;
      const table = document.querySelector("#placement svg");
      if (table) {
        const box = table.getBoundingClientRect();
        if (box.bottom < 0 || box.top > window.innerHeight) {
          table.scrollIntoView({ block: "center", behavior: "instant" });
        }
      }
    }
  }
  document.addEventListener("htmx:after:swap", arrived);
  document.addEventListener("htmx:after:settle", arrived);
  document.addEventListener("DOMContentLoaded", arrived);
})();
