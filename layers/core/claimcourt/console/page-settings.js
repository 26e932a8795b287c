// Settings: what runs will use (GET /settings), edited and saved for later runs (PUT /settings: the
// local server's; a deployed stack's are its template's), provider keys entered here (PUT/DELETE
// /settings/keys/{provider}: never shown again, only "set" and the last 4), the theme, the user's API key.
// The settings are every tenant's: only the operator's key edits them (s.operator); any other reads them.

import { api, forgetKey, getKey, serviceSettings } from "./api.js";
import { errorBox, h, mount } from "./ui.js";

const SEARCH = { "": "the first configured", anthropic: "Anthropic", openai: "OpenAI", searxng: "SearXNG", none: "off (bundled corpus)" };
const PROVIDERS = ["anthropic", "openai", "offline"];

export async function render(view) {
  mount(view, h("p.muted", "Loading…"));
  let s;
  try { s = await serviceSettings(true); } catch (err) { mount(view, errorBox(err)); return; }
  sessionStorage.removeItem("cc.settings"); // other pages read the saved settings afresh
  const locked = s.locked || {};
  const saved = s.saved || {};
  const readOnly = !s.editable; // deployed, or not the operator's key: shown, not edited
  const status = h("p#settings-status", { role: "status" });
  const fail = (err) => { status.className = "error"; status.textContent = err.field ? `${err.field}: ${err.message}` : err.message; };

  // One control per saved field: what was saved, else what runs use now; locked where the environment sets it.
  function control(name, input, label, current) {
    input.name = name;
    input.id = `set-${name}`;
    const why = locked[name];
    if (why) { input.disabled = true; input.title = why; }
    if (readOnly) input.disabled = true;
    return h("div.field", { dataset: { field: name } },
      h("label", { for: input.id }, label, current !== undefined ? h("span.hint", ` (now ${current})`) : null),
      input, why ? h("p.hint.locked", `Locked: ${why}`) : null);
  }
  const select = (options, value) => h("select", {}, options.map(([v, l]) => h("option", { value: v, selected: String(value ?? "") === v }, l)));
  const number = (value, attrs) => h("input", { type: "number", value: value ?? "", ...attrs });

  const roleRows = s.roles.map((r) => {
    const wanted = (saved.models_by_role || {})[r.role] || "";
    const [provider, model] = wanted ? [wanted.split(":")[0], wanted.split(":").slice(1).join(":")] : ["", ""];
    const p = select([["", "default"], ...PROVIDERS.map((x) => [x, x])], provider);
    const m = h("input.mono", { type: "text", value: model, placeholder: r.model, autocomplete: "off", spellcheck: "false" });
    p.name = `role-provider-${r.role}`; p.setAttribute("aria-label", `${r.role} provider`);
    m.name = `role-model-${r.role}`; m.setAttribute("aria-label", `${r.role} model`);
    if (locked.models_by_role || readOnly) { p.disabled = m.disabled = true; }
    return { role: r.role, p, m, row: h("tr", { dataset: { role: r.role } }, h("td", r.role.replaceAll("_", " ")), h("td", p), h("td", m), h("td.mono.muted", `${r.provider}:${r.model}`)) };
  });

  const fields = {
    provider: select([["", "from the keys present"], ...PROVIDERS.map((x) => [x, x])], saved.provider),
    default_effort: select([["", "as configured"], ["low", "Low"], ["standard", "Standard"], ["high", "High"]], saved.default_effort),
    default_mode: select([["", "as configured"], ["spectral", "Score 0–100"], ["verdict", "Verdict"]], saved.default_mode),
    dynamic_rounds: select([["", "as configured"], ["off", "off"], ["shadow", "shadow"], ["on", "on"]], saved.dynamic_rounds),
    budget_usd: number(saved.budget_usd, { step: "0.01", min: "0.01", max: "100" }),
    max_active_runs: number(saved.max_active_runs, { step: "1", min: "1", max: "50" }),
    hourly_runs_per_tenant: number(saved.hourly_runs_per_tenant, { step: "1", min: "1", max: "10000" }),
    search: select(Object.entries(SEARCH), saved.search),
    searxng_url: h("input.mono", { type: "text", inputmode: "url", value: saved.searxng_url || "", placeholder: s.operator ? "http://127.0.0.1:8888" : "not shown to this key" }),
  };
  const form = h("form#settings-form", { novalidate: true },
    h("div.grid.two",
      h("section.card", h("h2", "Runs"),
        control("provider", fields.provider, "Default provider", s.providers.find((p) => p.default)?.name),
        control("default_effort", fields.default_effort, "Default effort", s.default_effort),
        control("default_mode", fields.default_mode, "Default headline", s.default_mode),
        control("dynamic_rounds", fields.dynamic_rounds, "Round controller", s.dynamic_rounds)),
      h("section.card", h("h2", "Cost guard and evidence"),
        control("budget_usd", fields.budget_usd, "Budget per run, $", s.budget_usd),
        control("max_active_runs", fields.max_active_runs, "Debates at once", s.max_active_runs),
        control("hourly_runs_per_tenant", fields.hourly_runs_per_tenant, "Runs per hour, per key's tenant", s.hourly_runs_per_tenant),
        control("search", fields.search, "Web search", SEARCH[s.search ?? ""]),
        control("searxng_url", fields.searxng_url, "SearXNG instance", s.operator ? s.searxng_url || "none" : undefined))),
    h("section.card", { "aria-labelledby": "roles-title" }, h("h2#roles-title", "Models by role"),
      locked.models_by_role ? h("p.hint.locked", `Locked: ${locked.models_by_role}`) : h("p.hint", "Empty: the default provider's model. The last column is what runs use now."),
      h("div.scroll-x", h("table#roles", h("thead", h("tr", h("th", "Role"), h("th", "Provider"), h("th", "Model"), h("th", "Now"))), h("tbody", roleRows.map((r) => r.row))))),
    readOnly ? h("div.row", status) : h("div.row", h("button#save-settings", { type: "submit" }, "Save settings"), status));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { models_by_role: {} };
    for (const [name, input] of Object.entries(fields)) {
      if (input.value === "") continue;
      body[name] = input.type === "number" ? Number(input.value) : input.value;
    }
    for (const r of roleRows) {
      if (r.p.value || r.m.value) body.models_by_role[r.role] = `${r.p.value || r.m.value.split(":")[0]}:${r.p.value ? r.m.value : r.m.value.split(":").slice(1).join(":")}`;
    }
    status.className = ""; status.textContent = "Saving…";
    try { await api("/settings", { method: "PUT", body }); await render(view); document.getElementById("settings-status").textContent = "Saved: later runs use these."; }
    catch (err) { fail(err); form.querySelector(`[data-field="${(err.field || "").split(".")[0]}"] :is(input,select)`)?.focus(); }
  });

  mount(view,
    h("div.card", h("h1", "Settings"), h("p.muted", `Tenant ${s.tenant_id}. ${s.editable
      ? "What later runs use, saved on this server. A setting the server's environment sets wins, and is shown locked."
      : s.operator ? "This deployment's settings are its stack's (template.yaml); they are shown, not edited, here."
      : "What runs use, as this server's operator set them."}`),
      s.operator ? null : h("p.notice#read-only", { role: "note" },
        h("strong", "Read-only. "),
        "These settings are the whole server's: every tenant's runs use them, so only its operator changes them ",
        "(a key of tenant local, or one made with ", h("code", "claimcourt keys create --admin"), "). ",
        "This key reads them; the SearXNG instance's address and the provider keys are not shown to it.")),
    form, keysCard(s, view, fail), youCard());
}

function keysCard(s, view, fail) {
  const note = s.keys_note ? `${s.keys_note[0].toUpperCase()}${s.keys_note.slice(1)}.` : "No keys are entered here.";
  if (!s.keys.length) return h("section.card#keys", h("h2", "Provider keys"), h("p.muted", note));
  const rows = s.keys.map((k) => {
    const state = k.set ? `set, ending ${k.last4}${k.source === "environment" ? " (environment)" : ""}` : "not set";
    const input = h("input.mono", { type: "password", id: `key-${k.provider}`, autocomplete: "off", placeholder: k.provider === "anthropic" ? "sk-ant-…" : "sk-…", disabled: Boolean(k.locked) });
    const save = h("button", { type: "button", disabled: Boolean(k.locked) }, "Save key");
    const remove = h("button.danger", { type: "button", disabled: !k.set || Boolean(k.locked) }, "Remove");
    save.addEventListener("click", async () => {
      try { await api(`/settings/keys/${k.provider}`, { method: "PUT", body: { key: input.value } }); input.value = ""; await render(view); }
      catch (err) { input.value = ""; fail(err); }
    });
    remove.addEventListener("click", async () => {
      try { await api(`/settings/keys/${k.provider}`, { method: "DELETE" }); await render(view); } catch (err) { fail(err); }
    });
    return h("tr", { dataset: { provider: k.provider } }, h("td", k.provider), h("td.key-state", state, k.locked ? h("p.hint.locked", `Locked: ${k.locked}`) : null),
      h("td", h("label.sr-only", { for: input.id }, `${k.provider} key`), input), h("td.row", save, remove));
  });
  return h("section.card#keys", h("h2", "Provider keys"),
    h("p.hint", "Kept encrypted on this server; never shown again, only whether one is set and its last four characters."),
    h("div.scroll-x", h("table", h("tbody", rows))));
}

function youCard() {
  const key = getKey();
  const forget = h("button.danger#forget-key", { type: "button" }, "Forget this key");
  forget.addEventListener("click", () => { forgetKey(); location.hash = "#/key"; });
  const theme = h("select#theme-select", {},
    [["light", "Light"], ["dark", "Dark"]].map(([v, l]) => h("option", { value: v, selected: document.documentElement.dataset.theme === v }, l)));
  theme.addEventListener("change", () => {
    document.documentElement.dataset.theme = theme.value;
    localStorage.setItem("cc.theme", theme.value);
    window.dispatchEvent(new CustomEvent("cc:theme"));
  });
  return h("section.card", { "aria-labelledby": "you-title" }, h("h2#you-title", "You"),
    h("div.field", h("label", { for: "theme-select" }, "Theme"), theme),
    h("p", "API key: ", h("code#key-shown", key ? `${key.slice(0, 10)}…` : "none")),
    h("div.row", h("a.button", { href: "#/key" }, "Use another key"), forget));
}
