// Benchmarks: the scorecards `claimcourt bench` recorded (GET /benchmarks), newest first: per bench, the
// debate beside its baselines metric by metric with each one's n, the costs, the notes and the plots.
// Plots come through the API with the key (an <img> cannot send it) and are shown as data: URLs.

import { ApiError, api, getKey } from "./api.js";
import { errorBox, h, mount, scrollBox, usd, when } from "./ui.js";

const SYSTEMS = { debate: "Debate", judge: "Single-LLM judge", rag: "Naive RAG + LLM" };
const ORDER = ["debate", "judge", "rag"]; // the debate first, its baselines beside it

function cell(value, metric) {
  if (value === null || value === undefined) return "—";
  if (metric.startsWith("tokens")) return Math.round(value).toLocaleString("en");
  if (metric.startsWith("$")) return value.toFixed(4);
  if (metric.includes("share")) return `${Math.round(value * 100)} %`;
  return Math.abs(value) < 10 ? value.toFixed(3) : value.toFixed(1);
}

async function plotUrl(path) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${getKey()}` } });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null), 0);
  const blob = await response.blob();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

function plotView(name, path) {
  const figure = h("figure.plot", h("figcaption.small.muted", name.replace(/\.png$/, "").replaceAll("-", " ")));
  const img = h("img", { alt: `Plot: ${name.replace(/\.png$/, "").replaceAll("-", " ")}`, loading: "lazy" });
  figure.prepend(img);
  plotUrl(path).then((url) => { img.src = url; }, (err) => { img.replaceWith(errorBox(err)); });
  return figure;
}

function sectionView(b, s) {
  const systems = ORDER.filter((x) => s.systems.includes(x));
  const metrics = [...new Set(s.values.map((v) => v.metric))];
  const value = (metric, system) => s.values.find((v) => v.metric === metric && v.system === system);
  const n = (system) => value(metrics[0], system)?.n ?? 0;
  const cost = Object.fromEntries(s.costs.map((c) => [c.system, c]));
  const table = h("table.scorecard", { "data-bench": s.bench },
    h("thead", h("tr", h("th", "Metric"), systems.map((x) => h("th.num", { scope: "col" }, SYSTEMS[x] || x)))),
    h("tbody",
      metrics.map((m) => h("tr", h("th", { scope: "row" }, m), systems.map((x) => h("td.num", cell(value(m, x)?.value, m))))),
      h("tr.total", h("th", { scope: "row" }, "n (items asked)"), systems.map((x) => h("td.num", n(x)))),
      h("tr.total", h("th", { scope: "row" }, b.offline ? "$ in all, metered (nothing spent)" : "$ in all, spent"),
        systems.map((x) => h("td.num", cost[x] ? usd(b.offline ? cost[x].metered_usd : cost[x].spent_usd) : "—")))));
  return h("section.bench-section", { "aria-label": s.title },
    h("h3", s.title),
    scrollBox(`${s.title}: debate beside its baselines`, table),
    s.notes.length ? h("ul.small.muted", s.notes.map((note) => h("li", note))) : null,
    s.plots.length ? h("div.plots", s.plots.map((name) => plotView(name, b.links.plots[name]))) : null,
    s.tables.map((t) => h("details", h("summary", t.title),
      scrollBox(t.title, h("table", h("thead", h("tr", t.header.map((c) => h("th", c)))),
        h("tbody", t.rows.map((r) => h("tr", r.map((c) => h("td", c))))))))));
}

function benchmarkView(b) {
  const o = b.options || {};
  const asked = [
    (o.benches || []).join(", "),
    o.baselines ? "with baselines" : "debate only",
    o.limit ? `first ${o.limit}` : o.sample ? `sample of ${o.sample}` : "every item",
  ].join(" · ");
  return h("article.card", { "data-benchmark": b.benchmark_id, "aria-labelledby": `t-${b.benchmark_id}` },
    h("div.spread", h("h2", { id: `t-${b.benchmark_id}` }, when(b.recorded_at)), h("span.tag.mono", b.benchmark_id)),
    h("p.small", h("strong", "Model: "), b.model),
    b.offline ? h("p.notice.small", "The offline reasoner's figures, not a model's: its dollars are metered as if billed at a model's prices, and nothing was spent.") : null,
    h("p.small.muted", `${asked} · ${b.wall_s} s · ${b.directory}`),
    b.sections.map((s) => sectionView(b, s)));
}

export async function render(view) {
  const list = h("div#benchmarks", h("p.muted", "Loading…"));
  mount(view,
    h("div.card", h("h1", "Benchmarks"),
      h("p.muted", "Scorecards recorded by claimcourt bench, newest first: the debate beside the single-LLM judge and naive RAG on the same model.")),
    list);
  try {
    const { benchmarks } = await api("/benchmarks");
    mount(list, benchmarks.length
      ? benchmarks.map(benchmarkView)
      : h("div.card.empty#no-benchmarks",
        h("p", "No benchmark has been recorded yet."),
        h("p", "Run one on the machine that serves this console, then reload:"),
        h("pre.mono", "claimcourt bench all --baselines --limit 5"),
        h("p.small", "Every bench records its scorecard and plots here (--no-record: not). Without a provider key the figures are the offline reasoner's, and say so.")));
  } catch (err) {
    mount(list, errorBox(err));
  }
}
