// The key gate: the user's claimcourt API key, checked against the API before it is kept.

import { ApiError, api, getKey, setKey } from "./api.js";
import { h, mount } from "./ui.js";

export function render(view) {
  const input = h("input#key-input", {
    type: "password", name: "key", autocomplete: "off", spellcheck: "false", required: true,
    placeholder: "cc_…", "aria-describedby": "key-help",
  });
  const message = h("p", { id: "key-message", role: "alert" });
  const form = h(
    "form.card.stack",
    { "aria-labelledby": "key-title" },
    h("h1#key-title", "Your API key"),
    h("p.muted#key-help",
      "The console calls the claimcourt API with your key, as any client does. It stays in this browser's",
      " storage and is sent only to this server. Create one with ",
      h("code", "claimcourt keys create --tenant <name>"), "."),
    h("div.field", h("label", { for: "key-input" }, "API key"), input),
    message,
    h("div.row", h("button.primary", { type: "submit" }, "Use this key")),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const key = input.value.trim();
    message.className = "";
    message.textContent = "Checking…";
    try {
      await api("/settings", { key });
    } catch (err) {
      message.className = "error";
      message.textContent = err instanceof ApiError && err.status === 401
        ? "That key was refused: it is not a live claimcourt key (unauthorized)."
        : `Could not check the key: ${err.message}`;
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    setKey(key);
    sessionStorage.clear();
    window.dispatchEvent(new CustomEvent("cc:key"));
    if (location.hash === "#/key" || !location.hash) location.hash = "#/run";
    else window.dispatchEvent(new HashChangeEvent("hashchange"));
  });
  mount(view, form);
  if (getKey()) message.textContent = "A key is kept already; a new one replaces it.";
  input.focus();
}
