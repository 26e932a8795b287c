// History: the tenant's runs (GET /runs: by source tag, searched by claim text, a page at a time),
// each deletable; and its claims with their run counts, each leading to its drift chart.

import { api } from "./api.js";
import { errorBox, h, mount, plural, scrollBox, statusPill, verdictPill, when } from "./ui.js";

const SOURCES = [["", "All sources"], ["app", "App"], ["drift", "Drift"], ["monitor", "Monitor"], ["bench", "Bench"]];

export function render(view) {
  const search = h("input#history-search", { type: "search", name: "q", placeholder: "words in the claim", maxlength: 200 });
  const source = h("select#history-source", { name: "source" }, SOURCES.map(([v, l]) => h("option", { value: v }, l)));
  const body = h("tbody");
  const more = h("button#history-more", { type: "button", hidden: true }, "Load more");
  const status = h("p.small.muted", { "aria-live": "polite" });
  let cursor = null;

  function row(run) {
    const del = h("button.danger.small", { type: "button", "aria-label": `Delete the run of “${run.claim}”` }, "Delete");
    const tr = h("tr", { "data-run": run.run_id },
      h("td", h("a", { href: run.status === "running" ? `#/runs/${run.run_id}/live` : `#/runs/${run.run_id}` }, run.claim),
        h("div.small.muted", run.as_of_date ? `backtest as of ${run.as_of_date}` : run.mode)),
      h("td", run.verdict ? verdictPill(run.verdict) : statusPill(run.status)),
      h("td.num", run.score ?? "—"),
      h("td", h("span.tag", run.source_tag)),
      h("td", when(run.created_at)),
      // a drift chart only where this run put a point on it (a motion, a stopped or failed run has no score)
      h("td", run.score != null ? [h("a", { href: `#/claims/${run.claim_id}` }, "drift"), " "] : null, del));
    del.addEventListener("click", async () => {
      if (!confirm(`Delete this run? “${run.claim}”`)) return;
      try {
        await api(`/runs/${run.run_id}`, { method: "DELETE" });
        tr.remove();
        status.textContent = "Deleted.";
      } catch (err) {
        status.textContent = err.message;
      }
    });
    return tr;
  }

  async function load(reset) {
    const params = new URLSearchParams({ limit: "20" });
    if (search.value.trim()) params.set("q", search.value.trim());
    if (source.value) params.set("source", source.value);
    if (!reset && cursor) params.set("cursor", cursor);
    status.textContent = "Loading…";
    try {
      const page = await api(`/runs?${params}`);
      if (reset) body.replaceChildren();
      for (const run of page.runs) body.append(row(run));
      cursor = page.next_cursor;
      more.hidden = !cursor;
      status.textContent = body.children.length ? `${plural(body.children.length, "run")} shown` : "No runs match.";
    } catch (err) {
      status.textContent = err.message;
    }
  }

  let typing = null;
  search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => load(true), 250); });
  source.addEventListener("change", () => load(true));
  more.addEventListener("click", () => load(false));

  const claims = h("div", h("p.muted", "Loading…"));
  api("/claims?limit=200").then((r) => {
    mount(claims, r.claims.length ? scrollBox("Claims", h("table#claims-table",
      h("thead", h("tr", h("th", "Claim"), h("th.num", "Runs"), h("th", "Last seen"))),
      h("tbody", r.claims.map((c) => h("tr", h("td", h("a", { href: `#/claims/${c.claim_id}` }, c.text)),
        h("td.num", c.run_count), h("td", when(c.last_seen)))))))
      : h("p.muted", "No claims yet."));
  }, (err) => mount(claims, errorBox(err)));

  mount(view,
    h("section.card", { "aria-labelledby": "history-title" },
      h("h1#history-title", "History"),
      h("form.row", { role: "search", onsubmit: (e) => { e.preventDefault(); load(true); } },
        h("div.field", h("label", { for: "history-search" }, "Search claims"), search),
        h("div.field", h("label", { for: "history-source" }, "Source"), source)),
      scrollBox("Runs", h("table#runs-table", h("thead", h("tr", ["Claim", "Verdict", "Score", "Source", "Started", ""].map((c) => h("th", c)))), body)),
      h("div.row", more, status)),
    h("section.card", { "aria-labelledby": "claims-title" }, h("h2#claims-title", "Claims"), claims));
  load(true);
}
