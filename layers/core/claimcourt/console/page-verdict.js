// The verdict: the score on its 0–100 scale with the interval (or the verdict pill), a panel's judges
// (each one's score, the median that speaks), warnings and adjustments, a card per sub-claim with its
// for/against grid, tiered sources, the decisive source,
// what would change the score, structural analysis, round control, the cost panel, and downloads.
// Everything comes from GET /runs/{id} (the RunOutput and its Result).

import { ApiError, api, apiText } from "./api.js";
import {
  css, download, errorBox, h, loadUPlot, mount, plural, scale, scrollBox, seconds, statusPill, tierBadge, usd, verdictPill, when,
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

// A source's title, and the page of its document it was read on (a PDF's). A web page or a file the
// browser can open is a link (a PDF's opens at the page: #page=N); an uploaded document, whose url
// only names the upload, is its title with the url as a tooltip.
const OPENABLE = /^(https?|file):/;
function sourceTitle(s) {
  const title = OPENABLE.test(s.source_url)
    ? h("a", { href: s.source_url, rel: "noopener noreferrer", target: "_blank" }, s.title)
    : h("span.source-title", { title: s.source_url }, s.title);
  return [title, s.page != null ? h("span.page", `, p. ${s.page}`) : null];
}

function sourceItem(s) {
  return h("li", { id: `src-${s.evidence_id}`, tabindex: "-1", "data-tier": s.tier },
    tierBadge(s.tier), " ", sourceTitle(s),
    " ", h("span.small.muted.mono", s.evidence_id),
    s.published ? h("span.small.muted", ` · ${s.published}`) : null);
}

function decisive(source, label = "Decisive source") {
  if (!source) return null;
  return h("div.callout", { id: label === "Decisive source" ? "decisive" : null }, h("div.small.muted", label), h("div", tierBadge(source.tier), " ",
    sourceTitle(source), " ", h("span.small.muted.mono", source.evidence_id)));
}

// What the run searched (result.searched): a collection as name@version, linked to its page on
// Sources; the bundled corpus and a web search by what they are.
const SEARCHED = {
  "climate-fever-wikipedia": "the bundled climate corpus", "anthropic-web": "Anthropic web search",
  "openai-web": "OpenAI web search", "searxng-web": "SearXNG", golden: "the golden evidence set",
};
function searched(names) {
  if (!names?.length) return null;
  return h("p.small#searched", h("span.muted", "Searched: "), names.map((name, i) => {
    const at = name.lastIndexOf("@");
    const item = at > 0
      ? h("span", { "data-searched": name.slice(0, at) }, h("a", { href: `#/sources/${name.slice(0, at)}` }, name.slice(0, at)),
        h("span.muted.mono", { title: `version ${name.slice(at + 1)}` }, `@${name.slice(at + 1, at + 9)}`))
      : h("span", { "data-searched": name }, SEARCHED[name] || name);
    return i ? [", ", item] : item;
  }));
}

function list(items) {
  return items?.length ? h("ul", items.map((i) => h("li", i))) : h("p.muted", "None.");
}

// What would change the score: each lead's direction (an arrow, and its words), the sub-claim it bears
// on (its text on hover), what to find and where to look. A result stored before leads had directions
// holds sentences: each is shown alone.
function leads(items, subClaims) {
  if (!items?.length) return h("p.muted", "None.");
  const texts = Object.fromEntries(subClaims.map((sc) => [sc.id, sc.text]));
  return h("ul.leads", items.map((w) => {
    const up = w.direction === "toward 100";
    return h("li.lead", { "data-direction": w.direction || "unknown" },
      w.direction ? [
        h(`span.lead-dir.${up ? "up" : "down"}`, `${up ? "↑" : "↓"} ${w.direction}`),
        h("span.lead-on", w.sub_claim ? { title: texts[w.sub_claim] || "" } : {}, w.sub_claim || "the claim"),
      ] : null,
      h("span.lead-what", w.what),
      w.where_to_look ? h("span.small.muted.lead-where", `Look: ${w.where_to_look}`) : null);
  }));
}

// The scoring contract's adjustments: a table, and on a narrow screen a stack of rows, each cell named
// (the prose of "What" cannot be read in a column a few words wide, nor scrolled sideways).
const ADJUSTMENT_COLUMNS = ["Applies to", "Kind", "What", "Before → after"];
function adjustments(items) {
  const cell = (i, text, num) => h(num ? "td.num" : "td", { role: "cell", "data-label": ADJUSTMENT_COLUMNS[i] }, text);
  return h("table.stack#adjustments", { role: "table", "aria-label": "Adjustments" },
    h("thead", { role: "rowgroup" }, h("tr", { role: "row" },
      ADJUSTMENT_COLUMNS.map((c, i) => h(i === 3 ? "th.num" : "th", { role: "columnheader" }, c)))),
    h("tbody", { role: "rowgroup" }, items.map((a) => h("tr", { role: "row" },
      cell(0, a.target), cell(1, a.kind.replaceAll("_", " ")), cell(2, a.detail),
      cell(3, a.before != null ? `${a.before} → ${a.after}` : "—", true)))));
}

// Every citation with the other side's fact-check (a claim's result and a motion's carry the same).
// A panel of judges (the request's `judges`): every judge's score as if it alone had judged, and the
// median that speaks for the run, said with its rule and the spread that widened the interval.
function panelCard(panel, interval) {
  const spread = panel.spread == null ? "" : ` Spread ${panel.spread} points (SD ${panel.sd}): the run's 80 % interval, ${interval.low}–${interval.high}, is widened by it.`;
  return h("section.card#panel", { "aria-labelledby": "panel-title" },
    h("h2#panel-title", `Panel of judges (${panel.judges.length})`),
    h("p.small.muted", `${panel.judges[panel.speaks].judge} speaks for the run, the panel's median: ${panel.rule}.${spread}`),
    scrollBox("The panel's judgements", h("table",
      h("thead", h("tr", ["Judge", "Model", "Score", "Interval", "Verdict", "Judge said", "Cost", ""].map((c, i) => h(i >= 2 && i <= 6 && i !== 4 ? "th.num" : "th", c)))),
      h("tbody", panel.judges.map((j, i) => h(i === panel.speaks ? "tr.speaks" : "tr", { "data-judge": j.judge },
        h("td", j.judge),
        h("td", `${j.model}${j.kind === "rubric" ? " (rubric)" : ""}`),
        h("td.num", j.score == null ? "–" : String(j.score)),
        h("td.num", j.interval ? `${j.interval.low}–${j.interval.high}` : "–"),
        h("td", j.verdict ? verdictPill(j.verdict) : "–"),
        h("td.num", j.judge_score == null ? "–" : String(j.judge_score)),
        h("td.num", j.price_known ? usd(j.cost_usd) : "unpriced"),
        h("td", i === panel.speaks ? h("strong", "speaks for the run") : j.error ? h("span.error", j.error) : "")))))));
}

function ledgerCard(citations) {
  if (!citations.length) return null;
  return h("section.card#ledger", { "aria-labelledby": "ledger-title" },
    h("h2#ledger-title", `Citation ledger (${citations.length})`),
    h("p.small.muted", "Every citation with the other side's fact-check: credibility and correspondence, 1–10."),
    h("details", h("summary", "Show every citation"),
      scrollBox("Citation ledger", h("table", h("thead", h("tr", ["Citation", "Round", "Source", "Sentence", "Credibility", "Correspondence", "Check and answer"].map((c) => h("th", c)))),
        h("tbody", citations.map((c) => h("tr", { "data-ledger": c.key },
          h("td", h(`span.role-${c.side}.role-name`, c.key)), h("td.num", c.round),
          h("td", tierBadge(c.tier), " ", sourceTitle(c)),
          h("td.small", c.sentence),
          h("td.num", c.credibility ?? "—"), h("td.num", c.correspondence ?? "—"),
          h("td.small", c.comment || "", c.response ? h("div.muted", `answer: ${c.response}`) : null))))))));
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
  const actions = h("div.row",
    h("a.button", { href: `#/runs/${runId}/live` }, run.status === "running" ? "Watch live" : "Trace"));
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
      actions));
  // The drift chart plots a claim's scored runs: offered only where it has a point to show, so never
  // on a motion (the crowd votes; nothing is scored), and on a run with no score (stopped, failed,
  // still running) only if other runs of its claim were scored.
  const offer = (drift) => {
    actions.dataset.drift = drift ? "offered" : "none"; // decided (the browser tests wait for it)
    if (drift) actions.append(h("a.button", { href: `#/claims/${run.claim_id}` }, "Drift chart"));
  };
  if (run.kind === "motion") offer(false);
  else if (run.result) offer(true);
  else api(`/claims/${run.claim_id}/history`).then((history) => offer(history.points.length > 0), () => offer(false));

  if (run.status === "running") {
    mount(view, header, h("div.card", h("p", "This debate is still running."), h("a.button.primary", { href: `#/runs/${runId}/live` }, "Watch it live")));
    return;
  }
  if (run.kind === "motion" && run.status === "succeeded") return motionResult(view, header, runId);
  if (run.kind === "motion" && run.status === "stopped") {
    // stopped by its suitability check before the crowd voted: no vote, no verdict; the check's reasons
    mount(view, header, h("div.card#motion-stopped",
      h("h2", "Not debated: stopped before the crowd voted"),
      h("p", run.stop_reason === "add_documents"
        ? "The opening research found nothing that speaks to the motion, so neither team would have had evidence to argue from."
        : "The suitability check found it is not a motion a debate over evidence can serve."),
      run.warnings.length ? list(run.warnings) : null));
    return;
  }
  if (!run.result) {
    const noEvidence = run.stop_reason === "add_documents";
    const title = run.status !== "stopped" ? "The run failed"
      : noEvidence ? "Not enough evidence: not debated" : "Stopped by the suitability check";
    mount(view, header, h("div.card",
      h("h2", title),
      noEvidence ? verdictPill(run.verdict) : null,
      noEvidence ? h("p", "The evidence pool did not speak to any part of the claim, so no debater argued from it and no judge scored it.") : null,
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

  // A debater's refusal is said as a motion's is (#ended-early), with its reason, which the other side
  // never read; its warning (debate/refusal.py warning(), the same sentence) is not listed twice.
  const e = r.ended_early;
  const endedEarly = e ? `Ended early: the ${e.side} side declined to argue in round ${e.round}; ${e.followed || "the debate ended"}.` : null;
  const otherWarnings = r.warnings.filter((w) => w !== endedEarly);
  const warnings = r.warnings.length || r.adjustments.length
    ? h("section.card#warnings", { "aria-labelledby": "adj-title" },
      h("h2#adj-title", "Warnings and adjustments"),
      e ? h("div#ended-early", h("p.error", endedEarly),
        h("p.small.muted", "Its reason, which the other side never read (it read that no argument was made): ", h("q", e.reason))) : null,
      otherWarnings.length ? h("div.notice", { role: "note" }, list(otherWarnings)) : null,
      r.adjustments.length ? adjustments(r.adjustments) : null)
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
    searched(r.searched),
    r.sources.length ? h("ol.sources", r.sources.map(sourceItem)) : h("p.muted", "No source was cited."));

  const ledger = ledgerCard(r.citations || []);

  const s = r.structural_analysis;
  const analysis = h("section.card", { "aria-labelledby": "wwc-title" },
    h("h2#wwc-title", "What would change the score"), leads(r.what_would_change, r.sub_claims),
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
      rc ? [h("dt", "round controller"), h("dd", `${rc.mode}${rc.controller_stop_round ? `; would have stopped after round ${rc.controller_stop_round}, saving ${plural(rc.would_save_rounds, "round")} (${usd(rc.would_save_usd)})` : ""}${rc.would_continue ? "; wanted more rounds than ran" : ""}`)] : null,
      h("dt", "interval"), h("dd", r.interval_method),
      r.re_deliberation ? [h("dt", "re-deliberation"), h("dd", `${r.re_deliberation.triggered ? "yes" : "no"}: ${r.re_deliberation.reason}`)] : null,
      r.natural_temperature.length ? [h("dt", "natural temperature"), h("dd", r.natural_temperature.join(", "))] : null));

  const u = r.usage;
  const cost = h("section.card#cost", { "aria-labelledby": "cost-title" },
    h("h2#cost-title", "Cost"),
    h("div.row", h("strong", usd(u.total_cost_usd)), h("span.muted", `${plural(u.input_tokens + u.output_tokens, "token")} (${u.input_tokens} in, ${u.output_tokens} out) · ${plural(u.llm_calls, "model call")} · retrieval cache ${plural(u.cache_hits, "hit")}, ${plural(u.cache_misses, "miss", "misses")}`)),
    scrollBox("Cost by model", h("table", h("thead", h("tr", ["Model", "Calls", "Input", "Output", "Cache read", "Cache write", "Cost"].map((c, i) => h(i ? "th.num" : "th", c)))),
      h("tbody", Object.entries(u.models).map(([name, m]) => h("tr",
        h("td", name), h("td.num", m.calls), h("td.num", m.input_tokens), h("td.num", m.output_tokens),
        h("td.num", m.cache_read_tokens), h("td.num", m.cache_write_tokens), h("td.num", m.price_known ? usd(m.cost_usd) : "unpriced")))))),
    h("p.small.muted", "Roles: ", Object.entries(r.models).map(([role, model]) => `${role} ${model}`).join(" · ")));

  mount(view, header, hero, r.panel ? panelCard(r.panel, r.interval) : null, warnings, cards, sourcesCard, ledger,
    h("div.grid.two", analysis, rounds), cost, downloads(runId, r));
  performance.mark("cc:verdict-rendered");
}

// The run's four artifacts (GET /runs/{id}/artifacts/{name}), its ClaimReview (JSON-LD, to publish the
// verdict as fact-checkers do: a claim's, never a motion's, which has no verdict), and the result as the
// API returns it. Each is fetched with the key and saved as a file: the API reads its key from a header
// only (never from a URL, where logs would keep it), so a plain link could not fetch it.
function artifactButton(runId, from, name, label, type) {
  return h("button", {
    type: "button", "data-artifact": name,
    onclick: async () => download(`${runId}-${name}`, await apiText(`${from}/artifacts/${name}`), type),
  }, label);
}

function resultButton(runId, result) {
  return h("button#dl-result", { type: "button", onclick: () => download(`${runId}.result.json`, JSON.stringify(result, null, 2)) }, "Result (JSON)");
}

function downloads(runId, result) {
  const artifact = (...a) => artifactButton(runId, `/runs/${runId}`, ...a);
  return h("section.card", { "aria-labelledby": "dl-title" },
    h("h2#dl-title", "Download"),
    h("div.row",
      artifact("transcript_full.md", "Transcript (Markdown)", "text/markdown"),
      artifact("citation_ledger.json", "Citation ledger (JSON)", "application/json"),
      artifact("debate_logic_map.json", "Debate logic map (JSON)", "application/json"),
      artifact("score_trajectory.csv", "Score trajectory (CSV)", "text/csv"),
      h("button#dl-claimreview", {
        type: "button",
        onclick: async () => download(`${runId}-claimreview.jsonld`, await apiText(`/runs/${runId}/claimreview`), "application/ld+json"),
      }, "ClaimReview (JSON-LD)"),
      resultButton(runId, result)));
}

// A motion debate's seven artifacts (GET /motions/{id}/artifacts/{name}; the README's "A motion debate's
// artifacts"), each with what it holds; the JSON ones in the platform spec's shapes (docs/schemas/).
const MOTION_ARTIFACTS = [
  ["transcript_full.md", "Transcript (Markdown)", "text/markdown", "the debate for publishing: the vote, every statement with its sources, the judge's maps and report, the ledger"],
  ["citation_ledger.json", "Citation ledger (JSON)", "application/json", "every citation per team (a_1, b_1, …) with who added it, the other team's check and the answer"],
  ["debate_logic_map.json", "Debate logic map (JSON)", "application/json", "the judge's map after each round: what both teams accept, what is still disputed"],
  ["history_chat.json", "Chat history (JSON)", "application/json", "every turn in speaking order, and each team's private notes with the passages they cite"],
  ["crowd_opinion.json", "Crowd opinion (JSON)", "application/json", "each voter (a persona) with its score and reason, round by round"],
  ["voter_sentiment_graph.csv", "Voter sentiment graph (CSV)", "text/csv", "one row per round and voter, to chart"],
  ["score_trajectory.csv", "Score trajectory (CSV)", "text/csv", "every voter's score per round, the crowd's mean and the teams' own scores"],
];

function motionDownloads(runId, result) {
  return h("section.card#motion-downloads", { "aria-labelledby": "dl-title" },
    h("h2#dl-title", "Download the debate's artifacts"),
    h("ul.artifacts", MOTION_ARTIFACTS.map(([name, label, type, holds]) => h("li",
      artifactButton(runId, `/motions/${runId}`, name, label, type), " ", h("span.small.muted", holds)))),
    h("div.row", resultButton(runId, result)));
}

// ---- a motion debate (GET /motions/{id}): no score. The crowd's vote round by round (a uPlot chart
// and a table: the swing is what a reader comes for), each round's statements in speaking order with
// the judge's map (debate_logic_map.json) and the crowd's tally after it, then the judge's report.

const TEAM = { for: "Team for", against: "Team against" };

function roundName(t) {
  if (t.round === 0) return "Vote zero";
  return `Round ${t.round} (${{ opening: "opening", rounds: "debate", closing: "closing" }[t.phase] || t.phase})`;
}

const tenth = (x) => Math.round(x * 10) / 10;
/** +8.3 points, −1 point, ±0 points: a change in percentage points, signed. */
function pointsChange(x) {
  const v = tenth(x);
  return `${v > 0 ? "+" : v < 0 ? "−" : "±"}${Math.abs(v)} ${Math.abs(v) === 1 ? "point" : "points"}`;
}

function share(t) {
  return `${t.for_pct} % for · ${t.against_pct} % against · ${t.undecided_pct} % undecided`;
}

/** The tally's three shares, each kept on one line, for and against in their teams' colours. */
function shares(t) {
  return h("div.shares",
    h("span", h("strong.role-for.role-name", `${t.for_pct} %`), " for"),
    h("span", h("strong.role-against.role-name", `${t.against_pct} %`), " against"),
    h("span", h("strong", `${t.undecided_pct} %`), " undecided"));
}

/** The tally as one bar: for, undecided, against, each as wide as its share. */
function voteBar(t) {
  const part = (cls, pct, label) => (pct > 0 ? h(`span.${cls}`, { style: `width:${pct}%`, title: `${label} ${pct} %` }) : null);
  return h("div.vote-bar", { "aria-hidden": "true" },
    part("for", t.for_pct, "for"), part("undecided", t.undecided_pct, "undecided"), part("against", t.against_pct, "against"));
}

function voteChart(uPlot, el, tallies) {
  const xs = tallies.map((t) => t.round);
  const width = Math.max(280, el.clientWidth - 4);
  const roomy = (width - 80) / tallies.length >= 75; // else the rounds' names would run into each other
  const tick = (x) => {
    const t = tallies.find((s) => s.round === x);
    if (!t) return "";
    if (!roomy) return String(t.round);
    return t.round === 0 ? "vote zero" : t.phase === "opening" || t.phase === "closing" ? t.phase : `round ${t.round}`;
  };
  const text = css("--text");
  const grid = css("--border");
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
  // For is drawn wider, under the others: where the shares are equal (a split vote zero) both still show.
  const line = (label, colour, { wide = false, dash } = {}) => ({
    label, stroke: colour, width: wide ? 4 : 2, dash,
    points: { show: true, size: wide ? 11 : 7, fill: colour, stroke: colour },
  });
  return new uPlot({
    width,
    height: 300,
    scales: { x: { time: false, range: [-0.3, xs[xs.length - 1] + 0.3] }, y: { range: [0, 100] } },
    axes: [
      { ...axis, splits: () => xs, values: (u, splits) => splits.map(tick), label: roomy ? null : "round (0: vote zero)" },
      { ...axis, label: "% of voters", values: (u, vals) => vals.map((v) => `${v}`) },
    ],
    series: [{}, line("For", css("--for"), { wide: true }), line("Against", css("--against")), line("Undecided", css("--nee"), { dash: [6, 4] })],
    legend: { show: true, live: false },
  }, [xs, tallies.map((t) => t.for_pct), tallies.map((t) => t.against_pct), tallies.map((t) => t.undecided_pct)], el);
}

// A statement's text with each "[E…]" marker as a link to its source, named by its ledger key.
function statementText(text, side, ledger) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(/\s*\[(E[0-9a-f]{6,})\]/g)) {
    parts.push(text.slice(last, m.index), " ");
    const entry = ledger.get(`${side}|${m[1]}`);
    const where = entry ? `${entry.tier}: ${entry.title}${entry.page != null ? `, p. ${entry.page}` : ""}` : null;
    parts.push(!entry ? h("span.tag.cite", m[1])
      : OPENABLE.test(entry.source_url)
        ? h("a.tag.cite", { href: entry.source_url, rel: "noopener noreferrer", target: "_blank", title: where }, `${entry.tier} ${entry.key}`)
        : h("span.tag.cite", { title: where }, `${entry.tier} ${entry.key}`));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

function statementView(a, spoke, ledger) {
  const text = a.points.map((p) => p.argument).join(" ");
  const cites = a.points.reduce((n, p) => n + p.citations.length, 0);
  return h(`article.statement.role-box.role-${a.side}`, { "data-statement": `${a.round}-${a.side}` },
    h("div.spread",
      h("h4.role-name", TEAM[a.side]),
      h("span.small.muted", a.refusal ? `spoke ${spoke}` : `spoke ${spoke} · ${plural((text.match(/\S+/g) || []).length, "word")} · ${plural(cites, "citation")}`)),
    a.refusal ? h("p", h("strong", "Declined to go on: "), a.refusal.reason) : null,
    text ? h("p", statementText(text, a.side, ledger)) : null);
}

function mapView(map) {
  if (!map) return null;
  const agreed = map.consensus.length, disputed = map.disagreement_frontier.length;
  return h("details.judge-map.role-judge",
    h("summary", h("span.role-name", "The judge's map: "), `${plural(agreed, "point")} agreed, ${disputed} disputed`),
    agreed ? [h("h4", "Agreed"), h("ul", map.consensus.map((c) => h("li", c)))] : null,
    disputed ? [h("h4", "Disputed"), h("ul", map.disagreement_frontier.map((f) => h("li", f.core_issue)))] : null);
}

function tallyView(t, before) {
  const change = before
    ? ["for", "against", "undecided"].map((k) => `${k} ${pointsChange(t[`${k}_pct`] - before[`${k}_pct`])}`).join(", ")
    : "";
  return h("div.tally", { "data-tally": t.round },
    h("div", h("strong", t.round === 0 ? "Vote zero: " : "The crowd after this round: "), share(t), h("span.small.muted", change && ` (since the vote before: ${change})`)),
    voteBar(t));
}

async function motionResult(view, header, runId) {
  let m, logic = null;
  try {
    [m, logic] = await Promise.all([
      api(`/motions/${runId}`),
      apiText(`/motions/${runId}/artifacts/debate_logic_map.json`).then(JSON.parse, () => null),
    ]);
  } catch (err) {
    mount(view, header, h("div.card", errorBox(err)));
    return;
  }
  const r = m.result;
  const tallies = r.sentiment.length ? r.sentiment : [r.vote_zero, r.final_vote];
  const byRound = new Map(tallies.map((t) => [t.round, t]));
  // debate_logic_map.json is the spec's array of per-round states (round_number, consensus, the frontier)
  const maps = new Map((Array.isArray(logic) ? logic : []).map((x) => [x.round_number, x]));
  const ledger = new Map(r.citations.map((c) => [`${c.side}|${c.evidence_id}`, c]));
  const statements = m.statements || [];
  const rounds = [...new Set([...statements.map((a) => a.round), ...tallies.map((t) => t.round).filter(Boolean)])].sort((a, b) => a - b);

  const plan = r.plan;
  const firstWhy = plan.forced ? "as asked" : plan.tie ? "drawn: vote zero was a tie" : "the side vote zero favoured";
  const chart = h("div.chart#vote-chart", {
    role: "img", "aria-label": `The crowd's vote after each round, in % for, against and undecided (${plural(tallies.length, "tally", "tallies")}); the table below lists it`,
  });
  const card = h("section.card#motion", { "aria-labelledby": "motion-title" },
    h("h2#motion-title", "Motion debate: the crowd's vote"),
    h("div.stats",
      h("div", h("div.small.muted", `Vote zero (${plural(r.vote_zero.voters, "voter")})`), shares(r.vote_zero), voteBar(r.vote_zero)),
      h("div", h("div.small.muted", `Final vote, after ${plural(rounds.length, "round")}`), shares(r.final_vote), voteBar(r.final_vote)),
      h("div", h("div.small.muted", "Swing"),
        h("div#swing.swing",
          h("span.role-for.role-name", `for ${pointsChange(r.swing.for)}`),
          h("span.role-against.role-name", `against ${pointsChange(r.swing.against)}`)),
        h("div.small.muted", `${TEAM[plan.first]} spoke first (${firstWhy})${plan.minority ? `; the time knob gave the team ${plan.minority} more room` : ""}`))),
    r.warnings.length ? h("div.notice#motion-warnings", { role: "note" }, h("strong", "Before the vote, the suitability check said:"), list(r.warnings)) : null,
    r.ended_early ? h("p.error#ended-early", `Ended early: the team ${r.ended_early.side} declined to go on in round ${r.ended_early.round}; ${r.ended_early.followed || "the debate ended"}.`) : null,
    chart,
    scrollBox("The vote, round by round", h("table#vote-table",
      // (the mean is left out on a phone, where the three shares fill the width)
      h("thead", h("tr", h("th", "After"), ["For", "Against", "Undecided"].map((c) => h("th.num", c)), h("th.num.mean", "Mean score"))),
      h("tbody", tallies.map((t) => h("tr", { "data-round": t.round },
        h("td", roundName(t)), h("td.num", `${t.for_pct} %`), h("td.num", `${t.against_pct} %`),
        h("td.num", `${t.undecided_pct} %`), h("td.num.mean", t.mean)))))),
    h("p.small.muted", "Each voter scores the motion 0–100 (100: for); above 50 counts for, below 50 against."));

  const roundCards = h("section#motion-rounds", { "aria-labelledby": "rounds-title" },
    h("h2#rounds-title", "Round by round"),
    rounds.map((n) => {
      const spoken = statements.filter((a) => a.round === n);
      const t = byRound.get(n);
      return h("section.card", { "data-round": n, "aria-labelledby": `round-${n}-title` },
        h(`h3#round-${n}-title`, t ? roundName(t) : `Round ${n}`),
        spoken.length ? h("div.statements", spoken.map((a, i) => statementView(a, i ? "second" : "first", ledger))) : h("p.muted", "No statement."),
        mapView(maps.get(n)),
        t ? tallyView(t, byRound.get(n - 1)) : null);
    }));

  const report = h("section.card#report", { "aria-labelledby": "report-title" },
    h("h2#report-title", "The judge's report"), h("p", r.report),
    r.frontier.length ? [h("h3", "Still disputed"), h("ul", r.frontier.map((f) => h("li", f.core_issue)))] : null,
    r.consensus.length ? h("details", h("summary", `Agreed by the end (${r.consensus.length})`), h("ul", r.consensus.map((c) => h("li", c)))) : null,
    searched(r.searched),
    h("p.small.muted", `${plural(r.turns, "statement")}, ${plural(r.citations.length, "citation")}, personas ${r.personas}, reasoner ${r.reasoner}, ${usd(r.usage.total_cost_usd)}`));

  mount(view, header, card, roundCards, report, ledgerCard(r.citations), motionDownloads(runId, r));
  performance.mark("cc:verdict-rendered");

  const uPlot = await loadUPlot();
  if (!chart.isConnected) return null;
  let plot = voteChart(uPlot, chart, tallies);
  const redraw = () => { plot.destroy(); plot = voteChart(uPlot, chart, tallies); };
  window.addEventListener("cc:theme", redraw);
  window.addEventListener("resize", redraw); // the rounds' names or numbers, as the width allows
  return () => { plot.destroy(); window.removeEventListener("cc:theme", redraw); window.removeEventListener("resize", redraw); };
}
