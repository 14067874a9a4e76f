// The live table (battlefield/live.py): the poller (#live, hx-trigger "every 2s") asks only while
// the page is visible; a background tab stops polling and asks once as soon as it is shown again.
// (htmx's trigger filters would need eval, which the Content Security Policy forbids.)
document.addEventListener("htmx:config:request", (event) => {
  const source = event.target;
  if (source instanceof Element && source.matches("[data-live]") && document.visibilityState !== "visible") {
    event.preventDefault();
  }
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible" || !window.htmx) return;
  document.querySelectorAll("[data-live]").forEach((element) => window.htmx.trigger(element, "livecheck"));
});
