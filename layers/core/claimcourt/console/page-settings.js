// Settings: what runs will use as this service is configured (GET /settings: the providers, each
// role's model, the cost guard; never a key), the theme, and the user's own API key.

import { forgetKey, getKey, serviceSettings } from "./api.js";
import { errorBox, h, mount, usd } from "./ui.js";

// The web search runs use (GET /settings' search); null: this API cannot tell (it holds no keys).
const SEARCH = { anthropic: "Anthropic", openai: "OpenAI", searxng: "SearXNG", none: "off (bundled corpus)" };

export async function render(view) {
  mount(view, h("p.muted", "Loading…"));
  let s;
  try { s = await serviceSettings(true); } catch (err) { mount(view, errorBox(err)); return; }
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
  mount(view,
    h("div.card", h("h1", "Settings"), h("p.muted", `Tenant ${s.tenant_id}. What this service runs with; provider keys are never shown, nor sent to this page.`)),
    h("div.grid.two",
      h("section.card", { "aria-labelledby": "prov-title" }, h("h2#prov-title", "Providers"),
        h("table#providers", h("thead", h("tr", h("th", "Provider"), h("th", "Configured"), h("th", "Default"))),
          h("tbody", s.providers.map((p) => h("tr", h("td", p.name), h("td", s.provider_keys_known === false ? "not known here" : p.configured ? "yes" : "no"), h("td", p.default ? "default" : "")))))),
      h("section.card", { "aria-labelledby": "roles-title" }, h("h2#roles-title", "Models by role"),
        h("table#roles", h("thead", h("tr", h("th", "Role"), h("th", "Provider"), h("th", "Model"))),
          h("tbody", s.roles.map((r) => h("tr", h("td", r.role.replace("_", " ")), h("td", r.provider), h("td.mono", r.model))))))),
    h("div.grid.two",
      h("section.card", { "aria-labelledby": "guard-title" }, h("h2#guard-title", "Limits"),
        h("dl.kv",
          h("dt", "debates at once"), h("dd", String(s.max_active_runs)),
          h("dt", "runs per hour (yours)"), h("dd", String(s.hourly_runs_per_tenant)),
          h("dt", "budget per run"), h("dd", usd(s.budget_usd)),
          h("dt", "round controller"), h("dd", s.dynamic_rounds),
          h("dt", "web search"), h("dd", SEARCH[s.search] || (s.web_search ? "the first configured" : "off (bundled corpus)")),
          h("dt", "live events"), h("dd.mono", s.websocket_url || "—"))),
      h("section.card", { "aria-labelledby": "you-title" }, h("h2#you-title", "You"),
        h("div.field", h("label", { for: "theme-select" }, "Theme"), theme),
        h("p", "API key: ", h("code#key-shown", key ? `${key.slice(0, 10)}…` : "none")),
        h("div.row", h("a.button", { href: "#/key" }, "Use another key"), forget))));
}
