// Monitors: watch a claim on a cadence with a threshold (POST /monitors), list them, stop watching.

import { api } from "./api.js";
import { errorBox, h, mount, when } from "./ui.js";

export function render(view) {
  const claim = h("textarea#monitor-claim", { name: "claim", rows: 2, required: true, maxlength: 2000 });
  const cadence = h("select#monitor-cadence", { name: "cadence" },
    [["daily", "Daily"], ["hourly", "Hourly"], ["weekly", "Weekly"], ["cron", "Cron expression…"]].map(([v, l]) => h("option", { value: v }, l)));
  const cron = h("input#monitor-cron", { type: "text", name: "cron", placeholder: "0 6 * * 1", hidden: true, "aria-label": "Cron expression (5 fields, UTC)" });
  const threshold = h("input#monitor-threshold", { type: "number", name: "threshold", min: 1, max: 100, value: 5, required: true });
  const message = h("div", { "aria-live": "polite" });
  const list = h("div#monitor-list", h("p.muted", "Loading…"));
  cadence.addEventListener("change", () => { cron.hidden = cadence.value !== "cron"; });

  async function refresh() {
    try {
      const { monitors } = await api("/monitors");
      mount(list, monitors.length ? h("table",
        h("thead", h("tr", ["Claim", "Cadence", "Threshold", "Next due", "Last run", ""].map((c) => h("th", c)))),
        h("tbody", monitors.map((m) => {
          const remove = h("button.danger", { type: "button", "aria-label": `Stop watching “${m.request.claim}”` }, "Remove");
          remove.addEventListener("click", async () => {
            try {
              await api(`/monitors/${m.monitor_id}`, { method: "DELETE" });
              mount(message, h("p", "Removed."));
              refresh();
            } catch (err) { mount(message, errorBox(err)); }
          });
          return h("tr", { "data-monitor": m.monitor_id },
            h("td", h("a", { href: `#/claims/${m.claim_id}` }, m.request.claim)),
            h("td.mono", m.request.cadence), h("td.num", `±${m.request.threshold}`),
            h("td", when(m.next_due)), h("td", m.last_run_id ? h("a", { href: `#/runs/${m.last_run_id}` }, "open") : "—"),
            h("td", remove));
        }))) : h("p.muted#no-monitors", "No claim is watched yet."));
    } catch (err) { mount(list, errorBox(err)); }
  }

  const form = h("form.card", { "aria-labelledby": "monitor-title" },
    h("h1#monitor-title", "Monitors"),
    h("p.muted", "A monitor re-scores a claim on a cadence and announces claim.score_changed when its score moves by at least the threshold."),
    h("div.field", h("label", { for: "monitor-claim" }, "Claim to watch"), claim),
    h("div.row",
      h("div.field", h("label", { for: "monitor-cadence" }, "Cadence"), cadence, cron),
      h("div.field", h("label", { for: "monitor-threshold" }, "Threshold (points)"), threshold)),
    h("div.row", h("button.primary#monitor-add", { type: "submit" }, "Watch this claim"), message));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await api("/monitors", { method: "POST", body: {
        claim: claim.value, cadence: cadence.value === "cron" ? cron.value : cadence.value, threshold: Number(threshold.value),
      } });
      claim.value = "";
      mount(message, h("p", "Watching. The next drift tick scores its baseline."));
      refresh();
    } catch (err) { mount(message, errorBox(err)); }
  });
  mount(view, form, h("section.card", { "aria-labelledby": "watched-title" }, h("h2#watched-title", "Watched claims"), list));
  refresh();
}
