// The drift chart: one claim's score over time (GET /claims/{id}/history): live runs, drift re-scores
// and backtests (at the date they were judged as of) on one chart, each with its 80 % interval; the
// thresholds of the claim's monitors around its latest score; the runs that raised
// claim.score_changed ringed. uPlot (vendored, MIT) draws it; a table below says the same in text.

import { api } from "./api.js";
import { css, errorBox, h, loadUPlot, mount, plural, scrollBox, statusPill, verdictPill, when } from "./ui.js";

const DAY = 86400;

function kindOf(p) {
  if (p.as_of_date) return "backtest";
  return p.run_id.startsWith("drift-") ? "drift" : "live";
}

const KIND_UNIT = { live: "live run", drift: "drift re-score", backtest: "backtest" };

function chart(uPlot, el, points, changed, thresholds) {
  const rows = points.map((p) => ({
    ...p, kind: kindOf(p),
    x: p.as_of_date ? Date.parse(`${p.as_of_date}T12:00:00Z`) / 1000 : Date.parse(p.at) / 1000,
  })).sort((a, b) => a.x - b.x);
  const xs = rows.map((r) => r.x);
  const series = (kind) => rows.map((r) => (r.kind === kind ? r.score : null));
  const colours = { live: css("--for"), drift: css("--moderator"), backtest: css("--conflicting") };
  const text = css("--text");
  const grid = css("--border");
  const lo = Math.min(...xs), hi = Math.max(...xs);
  const pad = Math.max((hi - lo) * 0.05, DAY);
  const point = (kind) => ({
    label: { live: "Live runs", drift: "Drift re-scores", backtest: "Backtests" }[kind],
    stroke: colours[kind], width: kind === "backtest" ? 0 : 2, spanGaps: true,
    paths: kind === "backtest" ? () => null : undefined,
    points: { show: true, size: 9, fill: colours[kind], stroke: colours[kind] },
  });
  const whiskers = (u) => {
    const { ctx } = u;
    ctx.save();
    ctx.lineWidth = 2 * devicePixelRatio;
    rows.forEach((r) => {
      const x = u.valToPos(r.x, "x", true);
      ctx.strokeStyle = colours[r.kind];
      ctx.globalAlpha = 0.55;
      ctx.beginPath();
      ctx.moveTo(x, u.valToPos(r.interval.low, "y", true));
      ctx.lineTo(x, u.valToPos(r.interval.high, "y", true));
      for (const v of [r.interval.low, r.interval.high]) {
        const y = u.valToPos(v, "y", true);
        ctx.moveTo(x - 5 * devicePixelRatio, y);
        ctx.lineTo(x + 5 * devicePixelRatio, y);
      }
      ctx.stroke();
      if (changed.has(r.run_id)) {
        ctx.globalAlpha = 1;
        ctx.strokeStyle = css("--danger");
        ctx.beginPath();
        ctx.arc(x, u.valToPos(r.score, "y", true), 9 * devicePixelRatio, 0, 2 * Math.PI);
        ctx.stroke();
      }
    });
    ctx.globalAlpha = 0.9;
    ctx.setLineDash([6 * devicePixelRatio, 5 * devicePixelRatio]);
    ctx.strokeStyle = css("--danger");
    ctx.fillStyle = text;
    ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    for (const t of thresholds) {
      for (const v of [t.base - t.threshold, t.base + t.threshold]) {
        if (v < 0 || v > 100) continue;
        const y = u.valToPos(v, "y", true);
        ctx.beginPath();
        ctx.moveTo(u.bbox.left, y);
        ctx.lineTo(u.bbox.left + u.bbox.width, y);
        ctx.stroke();
        ctx.textAlign = "right";
        ctx.fillText(`monitor threshold ±${t.threshold}`, u.bbox.left + u.bbox.width - 6 * devicePixelRatio, y - 4 * devicePixelRatio);
      }
    }
    ctx.restore();
  };
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
  return new uPlot({
    width: Math.max(320, el.clientWidth - 4),
    height: 340,
    scales: { x: { time: true, range: [lo - pad, hi + pad] }, y: { range: [0, 100] } },
    axes: [axis, { ...axis, label: "score", values: (u, vals) => vals.map((v) => `${v}`) }],
    series: [{}, point("live"), point("drift"), point("backtest")],
    legend: { show: true, live: false },
    hooks: { draw: [whiskers] },
  }, [xs, series("live"), series("drift"), series("backtest")], el);
}

// Nothing to chart: the page says why, and lists the claim's runs (found by its text) instead.
async function nothingToChart(view, claimId, claim) {
  const runs = h("div", h("p.muted", "Looking for its runs…"));
  mount(view,
    h("div.card#no-points",
      h("h1", claim ? claim.text : "A claim's drift"),
      h("h2", "Nothing to chart yet"),
      h("p", "A drift chart plots a claim's scored runs over time (live runs, drift re-scores and backtests, each with its interval). This claim has none yet: a run the suitability check stopped, a run that failed and a motion debate (its crowd votes; nothing is scored) put no point on it."),
      runs));
  if (!claim) { mount(runs); return; }
  try {
    const page = await api(`/runs?${new URLSearchParams({ q: claim.text.slice(0, 200), limit: "20" })}`);
    const mine = page.runs.filter((r) => r.claim_id === claimId);
    mount(runs, mine.length
      ? [h("h3", "Its runs"), scrollBox("Its runs", h("table#claim-runs", h("tbody", mine.map((r) => h("tr",
        h("td", h("a", { href: r.status === "running" ? `#/runs/${r.run_id}/live` : `#/runs/${r.run_id}` }, r.kind === "motion" ? "motion debate" : "claim run")),
        h("td", statusPill(r.status)), h("td", when(r.created_at)))))))]
      : null);
  } catch {
    mount(runs);
  }
}

export async function render(view, claimId) {
  mount(view, h("p.muted", "Loading the claim's history…"));
  let history, claims, monitors;
  try {
    [history, claims, monitors] = await Promise.all([
      api(`/claims/${claimId}/history`), api("/claims?limit=200"), api("/monitors"),
    ]);
  } catch (err) {
    mount(view, errorBox(err));
    return;
  }
  const claim = claims.claims.find((c) => c.claim_id === claimId);
  const points = history.points;
  if (!points.length) { await nothingToChart(view, claimId, claim); return; }
  const changed = new Set(history.score_changes);
  const latest = [...points].filter((p) => !p.as_of_date).sort((a, b) => Date.parse(b.at) - Date.parse(a.at))[0];
  const mine = monitors.monitors.filter((m) => m.claim_id === claimId);
  const thresholds = latest ? mine.map((m) => ({ base: latest.score, threshold: m.request.threshold })) : [];
  const box = h("div.chart#drift-chart", { role: "img", "aria-label": `Score over time: ${plural(points.length, "point")}; the table below lists them` });
  const counts = ["live", "drift", "backtest"].map((k) => [k, points.filter((p) => kindOf(p) === k).length])
    .filter(([, n]) => n).map(([k, n]) => plural(n, KIND_UNIT[k])).join(", ");

  mount(view,
    h("div.card",
      h("h1", claim ? claim.text : "A claim's drift"),
      h("div.row.small.muted", h("span#point-count", `${plural(points.length, "point")}: ${counts}`),
        mine.length ? h("span", `${plural(mine.length, "monitor")}: ${mine.map((m) => `${m.request.cadence} ±${m.request.threshold}`).join(", ")}`) : h("a", { href: "#/monitors" }, "watch this claim"),
        changed.size ? h("span", `${plural(changed.size, "score change")} announced (ringed)`) : null)),
    h("div.card", box),
    h("section.card", { "aria-labelledby": "points-title" }, h("h2#points-title", "The points"),
      scrollBox("The points", h("table#drift-table",
        h("thead", h("tr", ["When", "Kind", "Score", "Interval", "Verdict", "Run"].map((c) => h("th", c)))),
        h("tbody", [...points].reverse().map((p) => h("tr", { "data-kind": kindOf(p) },
          h("td", p.as_of_date ? `as of ${p.as_of_date}` : when(p.at)),
          h("td", kindOf(p), changed.has(p.run_id) ? " · score changed" : ""),
          h("td.num", p.score), h("td", `${p.interval.low}–${p.interval.high}`), h("td", verdictPill(p.verdict)),
          h("td", h("a", { href: `#/runs/${p.run_id}` }, "open")))))))));
  const uPlot = await loadUPlot();
  let plot = chart(uPlot, box, points, changed, thresholds);
  const redraw = () => { plot.destroy(); plot = chart(uPlot, box, points, changed, thresholds); };
  window.addEventListener("cc:theme", redraw);
  const resize = () => plot.setSize({ width: Math.max(320, box.clientWidth - 4), height: 340 });
  window.addEventListener("resize", resize);
  return () => { plot.destroy(); window.removeEventListener("cc:theme", redraw); window.removeEventListener("resize", resize); };
}
