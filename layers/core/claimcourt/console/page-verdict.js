// The verdict: the score on its 0–100 scale with the interval (or the verdict pill), warnings and
// adjustments, a card per sub-claim with its for/against grid, tiered sources, the decisive source,
// what would change the score, structural analysis, round control, the cost panel, and downloads.
// Everything comes from GET /runs/{id} (the RunOutput and its Result).

import { ApiError, api, apiText } from "./api.js";
import {
  VERDICT_LABEL, claimLink, download, errorBox, h, mount, scale, seconds, statusPill, tierBadge, usd, verdictPill, when,
} from "./ui.js";

function cited(text, sources) {
  // "[E1a2b3c4]" in an argument names a source: shown as its tier and title, and a jump to it.
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(/\[(E[0-9a-f]{6,})\]/g)) {
    parts.push(text.slice(last, m.index));
    const source = sources.get(m[1]);
    parts.push(h("button.tag.cite", {
      type: "button", title: source ? `${source.tier}: ${source.title}` : m[1],
      onclick: () => document.getElementById(`src-${m[1]}`)?.focus(),
    }, source ? `${source.tier} ${m[1]}` : m[1]));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

function sourceItem(s) {
  return h("li", { id: `src-${s.evidence_id}`, tabindex: "-1", "data-tier": s.tier },
    tierBadge(s.tier), " ",
    h("a", { href: s.source_url, rel: "noopener noreferrer", target: "_blank" }, s.title),
    " ", h("span.small.muted.mono", s.evidence_id),
    s.published ? h("span.small.muted", ` · ${s.published}`) : null);
}

function decisive(source, label = "Decisive source") {
  if (!source) return null;
  return h("div.callout", { id: label === "Decisive source" ? "decisive" : null }, h("div.small.muted", label), h("div", tierBadge(source.tier), " ",
    h("a", { href: source.source_url, rel: "noopener noreferrer", target: "_blank" }, source.title),
    " ", h("span.small.muted.mono", source.evidence_id)));
}

function list(items) {
  return items?.length ? h("ul", items.map((i) => h("li", i))) : h("p.muted", "None.");
}

export async function render(view, runId) {
  mount(view, h("p.muted", "Loading the verdict…"));
  let run;
  try {
    run = await api(`/runs/${runId}`);
  } catch (err) {
    mount(view, h("div.card", h("h1", "Verdict"), errorBox(err instanceof ApiError && err.status === 404 ? "There is no such run (or it has been deleted)." : err)));
    return;
  }
  const header = h("div.card",
    h("div.spread",
      h("div", h("h1#claim-title", run.claim),
        h("div.row.small.muted",
          statusPill(run.status),
          h("span", run.kind === "motion" ? "motion debate" : `${run.mode} mode`),
          h("span", run.as_of_date ? `backtest as of ${run.as_of_date}` : "live"),
          h("span.tag", run.source_tag),
          h("span", when(run.created_at)),
          run.finished_at ? h("span", `took ${seconds(new Date(run.finished_at) - new Date(run.created_at))}`) : null)),
      h("div.row",
        h("a.button", { href: `#/runs/${runId}/live` }, run.status === "running" ? "Watch live" : "Trace"),
        h("a.button", { href: `#/claims/${run.claim_id}` }, "Drift chart"))));

  if (run.status === "running") {
    mount(view, header, h("div.card", h("p", "This debate is still running."), h("a.button.primary", { href: `#/runs/${runId}/live` }, "Watch it live")));
    return;
  }
  if (run.kind === "motion" && run.status === "succeeded") {
    await motionResult(view, header, runId);
    return;
  }
  if (!run.result) {
    mount(view, header, h("div.card",
      h("h2", run.status === "stopped" ? "Stopped by the suitability check" : "The run failed"),
      run.error ? h("p.error", run.error) : null,
      run.warnings.length ? list(run.warnings) : null));
    return;
  }

  const r = run.result;
  const sources = new Map(r.sources.map((s) => [s.evidence_id, s]));
  const verdictFirst = r.mode === "verdict";
  const scoreBlock = h("div", { "data-verdict": r.overall_verdict },
    h(`div.score-big.v-${r.overall_verdict}#score`, { style: "background:transparent", "aria-label": `Score ${r.overall_score} of 100` },
      String(r.overall_score), h("small", " / 100")),
    h("div.small.muted", `80 % interval ${r.interval.low}–${r.interval.high}`));
  const hero = h("section.card", { "aria-labelledby": "verdict-title" },
    h("h2.sr-only#verdict-title", "Verdict"),
    h("div.hero",
      verdictFirst ? h("div", verdictPill(r.overall_verdict, true), h("div.small.muted", `score ${r.overall_score}, interval ${r.interval.low}–${r.interval.high}`)) : scoreBlock,
      h("div",
        h("div.row", verdictFirst ? null : verdictPill(r.overall_verdict, true),
          r.judge_score != null && r.judge_score !== r.overall_score ? h("span.small.muted", `the judge said ${r.judge_score}; the scoring contract adjusted it`) : null,
          r.reasoner === "offline" ? h("span.tag", "offline reasoner: no model was used") : null),
        scale(r.overall_score, r.interval, r.overall_verdict),
        decisive(r.decisive_source))));

  const warnings = r.warnings.length || r.adjustments.length
    ? h("section.card#warnings", { "aria-labelledby": "adj-title" },
      h("h2#adj-title", "Warnings and adjustments"),
      r.warnings.length ? h("div.notice", { role: "note" }, list(r.warnings)) : null,
      r.adjustments.length ? h("table",
        h("thead", h("tr", h("th", "Applies to"), h("th", "Kind"), h("th", "What"), h("th.num", "Before → after"))),
        h("tbody", r.adjustments.map((a) => h("tr",
          h("td", a.target), h("td", a.kind.replaceAll("_", " ")), h("td", a.detail),
          h("td.num", a.before != null ? `${a.before} → ${a.after}` : "—"))))) : null)
    : null;

  const cards = h("section", { "aria-labelledby": "sc-title" },
    h("h2#sc-title", `Sub-claims (${r.sub_claims.length}, shape: ${r.shape || "—"})`),
    h("div.grid.two", r.sub_claims.map((sc) => h("article.card.subclaim", { "data-subclaim": sc.id },
      h("header", h("h3", `${sc.id}: ${sc.text}`), h(`span.score.v-${sc.verdict}`, { style: "background:transparent" }, String(sc.score))),
      h("div.row", verdictPill(sc.verdict), sc.stronger_side ? h(`span.small.role-${sc.stronger_side}.role-name`, `stronger: ${sc.stronger_side === "for" ? "case for" : "case against"}`) : null,
        sc.judge_score != null && sc.judge_score !== sc.score ? h("span.small.muted", `judge ${sc.judge_score}`) : null),
      scale(sc.score, null, sc.verdict, { mini: true, label: `${sc.id} score` }),
      h("p", sc.referee_synthesis),
      decisive(sc.decisive_source, "Decided by"),
      h("details", { open: r.sub_claims.length <= 2 },
        h("summary", "For and against"),
        h("div.versus",
          h("div.role-for.role-box", h("div.role-name", "Case for"), h("p", cited(sc.case_for, sources))),
          h("div.role-against.role-box", h("div.role-name", "Case against"), h("p", cited(sc.case_against, sources)))))))));

  const t1 = r.sources.filter((s) => s.tier === "T1").length;
  const sourcesCard = h("section.card#sources", { "aria-labelledby": "src-title" },
    h("h2#src-title", `Sources (${r.sources.length}: ${t1} T1, ${r.sources.length - t1} T2)`),
    r.sources.length ? h("ol.sources", r.sources.map(sourceItem)) : h("p.muted", "No source was cited."));

  const ledger = (r.citations || []).length ? h("section.card#ledger", { "aria-labelledby": "ledger-title" },
    h("h2#ledger-title", `Citation ledger (${r.citations.length})`),
    h("p.small.muted", "Every citation with the other side's fact-check: credibility and correspondence, 1–10."),
    h("details", h("summary", "Show every citation"),
      h("table", h("thead", h("tr", ["Citation", "Round", "Source", "Sentence", "Credibility", "Correspondence", "Check and answer"].map((c) => h("th", c)))),
        h("tbody", r.citations.map((c) => h("tr", { "data-ledger": c.key },
          h("td", h(`span.role-${c.side}.role-name`, c.key)), h("td.num", c.round),
          h("td", tierBadge(c.tier), " ", h("a", { href: c.source_url, rel: "noopener noreferrer", target: "_blank" }, c.title)),
          h("td.small", c.sentence),
          h("td.num", c.credibility ?? "—"), h("td.num", c.correspondence ?? "—"),
          h("td.small", c.comment || "", c.response ? h("div.muted", `answer: ${c.response}`) : null))))))) : null;

  const s = r.structural_analysis;
  const analysis = h("section.card", { "aria-labelledby": "wwc-title" },
    h("h2#wwc-title", "What would change the score"), list(r.what_would_change),
    h("details", h("summary", "Structural analysis"),
      h("div.grid.two",
        h("div", h("h3", "Assumptions"), list(s.assumptions)),
        h("div", h("h3", "First principles"), list(s.first_principles)),
        h("div", h("h3", "Critical path"), list(s.critical_path)),
        h("div", h("h3", "External dependencies"), list(s.external_dependencies)))));

  const rc = r.round_control;
  const rounds = h("section.card", { "aria-labelledby": "rounds-title" },
    h("h2#rounds-title", "Rounds"),
    h("dl.kv",
      h("dt", "rounds run"), h("dd", String(r.rounds)),
      rc ? [h("dt", "round controller"), h("dd", `${rc.mode}${rc.controller_stop_round ? `; would have stopped after round ${rc.controller_stop_round}, saving ${rc.would_save_rounds} rounds (${usd(rc.would_save_usd)})` : ""}${rc.would_continue ? "; wanted more rounds than ran" : ""}`)] : null,
      h("dt", "interval"), h("dd", r.interval_method),
      r.re_deliberation ? [h("dt", "re-deliberation"), h("dd", `${r.re_deliberation.triggered ? "yes" : "no"}: ${r.re_deliberation.reason}`)] : null,
      r.natural_temperature.length ? [h("dt", "natural temperature"), h("dd", r.natural_temperature.join(", "))] : null));

  const u = r.usage;
  const cost = h("section.card#cost", { "aria-labelledby": "cost-title" },
    h("h2#cost-title", "Cost"),
    h("div.row", h("strong", usd(u.total_cost_usd)), h("span.muted", `${u.input_tokens + u.output_tokens} tokens (${u.input_tokens} in, ${u.output_tokens} out) · ${u.llm_calls} model calls · retrieval cache ${u.cache_hits} hits, ${u.cache_misses} misses`)),
    h("table", h("thead", h("tr", ["Model", "Calls", "Input", "Output", "Cache read", "Cache write", "Cost"].map((c, i) => h(i ? "th.num" : "th", c)))),
      h("tbody", Object.entries(u.models).map(([name, m]) => h("tr",
        h("td", name), h("td.num", m.calls), h("td.num", m.input_tokens), h("td.num", m.output_tokens),
        h("td.num", m.cache_read_tokens), h("td.num", m.cache_write_tokens), h("td.num", m.price_known ? usd(m.cost_usd) : "unpriced"))))),
    h("p.small.muted", "Roles: ", Object.entries(r.models).map(([role, model]) => `${role} ${model}`).join(" · ")));

  mount(view, header, hero, warnings, cards, sourcesCard, ledger, h("div.grid.two", analysis, rounds), cost,
    downloads(runId, r));
  performance.mark("cc:verdict-rendered");
}

// The run's four artifacts (GET /runs/{id}/artifacts/{name}), and the result as the API returns it.
function downloads(runId, result) {
  const artifact = (name, label, type) => h("button", {
    type: "button", "data-artifact": name,
    onclick: async () => download(`${runId}-${name}`, await apiText(`/runs/${runId}/artifacts/${name}`), type),
  }, label);
  return h("section.card", { "aria-labelledby": "dl-title" },
    h("h2#dl-title", "Download"),
    h("div.row",
      artifact("transcript_full.md", "Transcript (Markdown)", "text/markdown"),
      artifact("citation_ledger.json", "Citation ledger (JSON)", "application/json"),
      artifact("debate_logic_map.json", "Debate logic map (JSON)", "application/json"),
      artifact("score_trajectory.csv", "Score trajectory (CSV)", "text/csv"),
      h("button#dl-result", { type: "button", onclick: () => download(`${runId}.result.json`, JSON.stringify(result, null, 2)) }, "Result (JSON)")));
}

// A motion debate (GET /motions/{id}): no score, but the crowd's vote before and after, the swing and
// the judge's report.
async function motionResult(view, header, runId) {
  let m;
  try {
    m = await api(`/motions/${runId}`);
  } catch (err) {
    mount(view, header, h("div.card", errorBox(err)));
    return;
  }
  const r = m.result;
  const share = (t) => `${t.for_pct} % for · ${t.against_pct} % against · ${t.undecided_pct} % undecided`;
  const signed = (x) => (x > 0 ? `+${x}` : `${x}`);
  const card = h("section.card#motion", { "aria-labelledby": "motion-title" },
    h("h2#motion-title", "Motion debate: the crowd's vote"),
    h("dl",
      h("dt", "Vote zero"), h("dd", `${share(r.vote_zero)} (${r.vote_zero.voters} voters)`),
      h("dt", "Final vote"), h("dd", share(r.final_vote)),
      h("dt", "Swing"), h("dd#swing", `for ${signed(r.swing.for)} · against ${signed(r.swing.against)} points`),
      h("dt", "First speaker"), h("dd", `${r.plan.first}${r.plan.tie ? " (drawn: a tie)" : ""}${r.plan.minority ? ` · the time knob gave ${r.plan.minority} more room` : ""}`)),
    r.ended_early ? h("p.error", `Ended early: the team ${r.ended_early.side} declined in round ${r.ended_early.round}.`) : null,
    h("h3", "The judge's report"), h("p", r.report),
    h("p.small.muted", `${r.turns} statements, ${r.citations.length} citations, ${r.personas}, reasoner ${r.reasoner}, ${usd(r.usage.total_cost_usd)}`));
  mount(view, header, card, downloads(runId, r));
  performance.mark("cc:verdict-rendered");
}
