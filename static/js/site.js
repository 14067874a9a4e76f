// Small behaviours kept out of the templates (no inline scripts: a CSP comes later).
// "Copy link" buttons: <button data-copy="#input-id">.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.querySelector(button.dataset.copy);
  if (!field) return;
  field.select();
  const done = () => {
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = label; }, 1500);
  };
  if (navigator.clipboard) {
    navigator.clipboard.writeText(field.value).then(done, () => document.execCommand("copy") && done());
  } else if (document.execCommand("copy")) {
    done();
  }
});
