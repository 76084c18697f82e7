// Gaia Memory: the little JavaScript the pages use. Every page works without it.

// Copy buttons: <button data-copy="#selector"> copies that field's value.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.querySelector(button.dataset.copy);
  if (!field) return;
  field.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(field.value);
    copied = true;
  } catch {
    // No clipboard API (plain http on a LAN address): fall back to the selection.
    copied = document.execCommand && document.execCommand("copy");
  }
  const label = button.textContent;
  button.textContent = copied ? "Copied" : "Press Ctrl+C";
  button.classList.add("is-done");
  setTimeout(() => {
    button.textContent = label;
    button.classList.remove("is-done");
  }, 2000);
});

// Selecting a secret field on focus makes copying by hand one keystroke.
document.addEventListener("focusin", (event) => {
  if (event.target.matches("input.secret")) event.target.select();
});

// Close the account menu when clicking elsewhere.
document.addEventListener("click", (event) => {
  document.querySelectorAll("details.usermenu[open]").forEach((menu) => {
    if (!menu.contains(event.target)) menu.removeAttribute("open");
  });
});

// The drawing of a person's graph opens centred on them (on a phone it scrolls sideways).
document.querySelectorAll(".graph-scroll").forEach((box) => {
  box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2;
});
