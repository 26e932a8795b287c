// The live trace: a run's events over the WebSocket as they happen, laid out stage by stage and round
// by round, with work that runs in parallel side by side, elapsed times, and the round controller's
// decisions. Reconnects (and resumes after the last seq) through the shared connection in api.js.

import { ENDS, api, live } from "./api.js";
import { errorBox, h, mount, plural, scrollBox, seconds, statusPill, verdictPill } from "./ui.js";

const ROLE = {
  suitability: "moderator", decompose: "moderator", retrieve: "retrieve", relevance: "retrieve", moderate: "moderator",
  control: "moderator", adjudicate: "judge", review: "judge", score: "judge", finish: "judge",
  factcheck: "moderator", // a claim debate's neutral checker (a motion team's takes its side's colour)
  // motion debates
  stances: "moderator", cartograph: "moderator", vote: "judge", tally: "judge", conclude: "judge",
};
// The stages laid out round by round (the others are before the rounds, or after them).
const ROUND_STAGES = ["retrieve", "argue", "factcheck", "moderate", "control", "speak", "cartograph", "vote", "tally"];

function stepKey(e) {
  const d = e.data || {};
  return [e.stage, e.round ?? d.round ?? "", e.side ?? "", d.sub_claim_id ?? "", d.sample ?? "", d.judge ?? "", d.batch ?? "", d.attempt ?? ""].join("|");
}

function label(e) {
  const d = e.data || {};
  // A re-split (the suitability check's audit faulted the first split): its stages say so.
  const again = d.attempt ? " (re-split)" : "";
  switch (e.stage) {
    case "decompose": return `Decompose${again}`;
    case "suitability": return `Suitability and the split's audit${again}`;
    case "argue": return e.side === "for" ? "Case for" : "Case against";
    case "retrieve": return `Retrieve ${d.sub_claim_id || ""}${again}`.trim();
    case "adjudicate":
      if (d.judge != null) return `Panel judge ${d.judge + 1}`;
      return d.reconsider ? "Judge again (re-deliberation)" : `Judge, sample ${(d.sample ?? 0) + 1}`;
    case "review": return `Review, batch ${d.batch ?? 1}`;
    case "control": return "Round controller";
    case "relevance": return `Pool relevance${again}`;
    case "factcheck":
      if (!e.side) return "Fact-check (neutral)"; // a claim debate's one checker, of both positions
      return e.side === "for" ? "Fact-check by case for" : "Fact-check by case against";
    case "speak": return e.side === "for" ? "Statement for" : "Statement against";
    case "vote": return `Crowd, batch ${(d.batch ?? 0) + 1}`;
    case "tally": return "Tally";
    case "cartograph": return "Judge's map";
    default: return e.stage.charAt(0).toUpperCase() + e.stage.slice(1);
  }
}

/** What the events say so far: the steps grouped into phases, the decisions, the end. */
class Trace {
  constructor() {
    this.steps = new Map();
    this.decisions = new Map(); // round → round.decided data
    this.events = [];
    this.start = null;
    this.end = null;
  }

  add(e) {
    this.events.push(e);
    if (e.type === "run.created") this.start = new Date(e.at);
    if (!this.start) this.start = new Date(e.at);
    if (ENDS.has(e.type)) this.end = e;
    if (e.type === "round.decided") this.decisions.set(e.round ?? e.data.round, e.data);
    if (!e.stage || !e.type.startsWith("stage.")) return;
    const key = stepKey(e);
    const step = this.steps.get(key) || { key, stage: e.stage, round: e.round ?? e.data?.round ?? null, side: e.side, label: label(e), state: "running", startedAt: new Date(e.at) };
    if (e.type === "stage.completed") Object.assign(step, { state: "done", elapsed: e.data?.elapsed_ms, summary: e.data?.summary });
    if (e.type === "stage.failed") Object.assign(step, { state: "failed", error: e.data?.error });
    this.steps.set(key, step);
  }

  phases() {
    const assess = [], vetted = [], judge = [], rounds = new Map();
    for (const step of this.steps.values()) {
      // Before the rounds: a claim's split (round 1's retrieval, its relevance and the suitability check
      // follow it, in that order); a motion's stances and vote zero (round 0).
      if (["decompose", "stances"].includes(step.stage) || (step.round === 0 && ROUND_STAGES.includes(step.stage))) assess.push(step);
      else if (["relevance", "suitability"].includes(step.stage)) vetted.push(step);
      else if (step.round && ROUND_STAGES.includes(step.stage)) {
        if (!rounds.has(step.round)) rounds.set(step.round, Object.fromEntries(ROUND_STAGES.map((s) => [s, []])));
        rounds.get(step.round)[step.stage].push(step);
      } else judge.push(step);
    }
    for (const r of rounds.values()) r.factcheck.sort((a, b) => (a.side === "for" ? -1 : 1) - (b.side === "for" ? -1 : 1));
    for (const r of rounds.values()) r.argue.sort((a, b) => (a.side === "for" ? -1 : 1) - (b.side === "for" ? -1 : 1));
    return { assess, vetted, rounds: [...rounds.entries()].sort((a, b) => a[0] - b[0]), judge };
  }
}

function stepView(step) {
  const role = (["argue", "factcheck", "speak"].includes(step.stage) && step.side) || ROLE[step.stage] || "retrieve";
  const state = step.state === "running"
    ? h("span.state", h("span.spinner", { "aria-hidden": "true" }), " running")
    : h("span.state", step.state === "done" ? `done in ${seconds(step.elapsed)}` : `failed${step.error ? `: ${step.error}` : ""}`);
  const extra = [];
  const s = step.summary || {};
  if (step.stage === "argue" && s.implied_score !== undefined) extra.push(`implies ${s.implied_score}`);
  if (step.stage === "retrieve" && s.found !== undefined) extra.push(plural(s.found, "passage"));
  if (step.stage === "adjudicate" && s.model) extra.push(s.model); // a panel's judge: which model it is
  if (step.stage === "adjudicate" && s.overall_score != null) extra.push(`scores ${s.overall_score}`);
  if (step.stage === "adjudicate" && s.error) extra.push(`no judgement: ${s.error}`);
  if (step.stage === "moderate" && s.recommendation) extra.push(`recommends ${s.recommendation}`);
  if (step.stage === "speak" && s.refused) extra.push("declined to go on");
  else if (step.stage === "speak" && s.words !== undefined) extra.push(`${plural(s.words, "word")}, ${plural(s.citations, "citation")}`);
  if (step.stage === "tally" && s.for_pct !== undefined) extra.push(`${s.for_pct} % for · ${s.against_pct} % against`);
  if (step.stage === "tally" && s.first) extra.push(`${s.first} speaks first`);
  if (step.stage === "cartograph" && s.frontier !== undefined) extra.push(`${s.consensus} agreed, ${s.frontier} disputed`);
  return h(`div.step.role-${role}.${step.state}`, { "data-step": step.key },
    h("div.what.role-name", step.label), state, extra.length ? h("div.small", extra.join(" · ")) : null);
}

// The parallelism record of a round (the result's `parallelism`): both debaters' argue stages on one
// time axis, their overlap as a share of the shorter, and the gate (PASS: they ran at once).
export function parallelismView(p) {
  const times = p.debaters.flatMap((d) => [new Date(d.started_at), new Date(d.ended_at)]);
  const t0 = Math.min(...times), span = Math.max(1, Math.max(...times) - t0);
  const pct = (t) => `${((t - t0) / span * 100).toFixed(2)}%`;
  const verdict = p.gate === null
    ? h("span.tag", "in turn by design")
    : h(`span.pill.${p.gate === "PASS" ? "s-succeeded" : "s-failed"}`, p.gate);
  return h("div.overlap", { "data-parallelism": p.round },
    h("div.row.small", h("strong", "Debaters in parallel: "), verdict,
      h("span", `overlap ${Math.round(p.overlap * 100)} % of the shorter`)),
    p.debaters.map((d) => {
      const start = new Date(d.started_at), end = new Date(d.ended_at);
      return h(`div.overlap-lane.role-${d.side}`,
        h("span.small.role-name", d.side === "for" ? "for" : "against"),
        h("div.overlap-track", h("div.overlap-bar", {
          style: `margin-left: ${pct(start)}; width: max(2px, ${((end - start) / span * 100).toFixed(2)}%)`,
          title: `${d.side}: ${seconds(end - start)}`,
        })),
        h("span.small.mono", seconds(end - start)));
    }));
}

function decisionView(round, d) {
  const sig = d.signals || {};
  const facts = [
    ["similarity (for / against)", [sig.similarity_for, sig.similarity_against].map((x) => (x == null ? "—" : x.toFixed(2))).join(" / ")],
    ["score shift", sig.score_shift == null ? "—" : sig.score_shift.toFixed(1)],
    ["gap between sides", sig.score_gap == null ? "—" : sig.score_gap.toFixed(1)],
    ["moderator", `${sig.moderator || "—"}${sig.provisional_score != null ? `, provisional ${sig.provisional_score}` : ""}`],
    ["new evidence / points", `${sig.new_evidence ?? 0} / ${sig.new_points ?? 0}`],
    ["disagreement frontier", sig.frontier == null ? "—" : `${plural(sig.frontier, "issue")}${sig.frontier_shift != null ? ` (shift ${sig.frontier_shift})` : ""}`],
  ];
  return h("div.decision.role-moderator", { "data-decision": round },
    h("div", h("strong.role-name", `Round ${round}: ${d.action.replaceAll("_", " ")}`), " ", h("span.small.muted", `(${d.rule}; mode ${d.mode})`)),
    d.mode === "shadow" && d.controller_action
      ? h("div.small", `Steering, the controller would have: ${d.controller_action.replaceAll("_", " ")} (${d.controller_rule})`)
      : null,
    d.persona_name ? h("div.small", `Persona next round: ${d.persona_name}`) : null,
    h("dl.kv.small", facts.flatMap(([k, v]) => [h("dt", k), h("dd", v)])),
  );
}

export async function render(view, runId) {
  const title = h("h1", "Live trace");
  const meta = h("div.row.small.muted");
  const conn = h("span.conn", { "aria-live": "polite" });
  const clock = h("span#elapsed.mono", "0.0 s");
  const count = h("span#event-count", "0 events");
  const endBox = h("div", { "aria-live": "polite" });
  const body = h("div#trace");
  const log = h("div.log#event-log", { tabindex: "0", role: "log", "aria-label": "Events as they arrive" });
  const decisionsTable = h("div");
  mount(view,
    h("div.card",
      h("div.spread", title, h("div.row", conn, clock, count)),
      meta, endBox),
    body,
    h("details.card", h("summary", "Every event, as it arrived"), log),
    decisionsTable);

  let run;
  try {
    run = await api(`/runs/${runId}`);
  } catch (err) {
    mount(view, errorBox(err));
    return;
  }
  const wasRunning = run.status === "running";
  const pill = h("span", statusPill(run.status));
  mount(meta, h("span", run.claim), pill, h("span", `${run.mode} · as of ${run.as_of_date || "today"}`),
    h("a", { href: `#/runs/${runId}` }, "verdict page"));
  title.textContent = wasRunning ? "Live trace" : "Trace";

  const trace = new Trace();
  // The result's parallelism record by round: there once the run has ended.
  let parallel = new Map((run.result?.parallelism || []).map((p) => [p.round, p]));
  let frame = 0;
  let leaving = false;
  function draw() {
    frame = 0;
    const { assess: split, vetted, rounds, judge } = trace.phases();
    // A motion's suitability check is part of what comes before its debate; a claim's reads round 1's pool.
    const motion = run.kind === "motion";
    const assess = motion ? [...split, ...vetted] : split;
    const phase = (name, steps, extra) => h("section.trace-phase", { "aria-label": name },
      h("h3", name), h("div.lanes", steps.map(stepView)), extra || null);
    mount(body,
      assess.length ? h("div.card", phase(motion ? "Before the debate: stances and vote zero" : "Split the claim", assess)) : null,
      rounds.map(([n, r]) => h("div.card", { "data-round": n },
        h("h2", `Round ${n}`),
        r.retrieve.length ? phase(`Retrieve (${plural(r.retrieve.length, "query", "queries")}${r.retrieve.length > 1 ? " in parallel" : ""})`, r.retrieve) : null,
        n === 1 && !motion && vetted.length ? phase("Before anyone argues: the pool's relevance, then the suitability check", vetted) : null,
        r.argue.length ? phase("Argue (for ∥ against)", r.argue, parallel.has(n) ? parallelismView(parallel.get(n)) : null) : null,
        // A motion's turns are sequential: each team's fact-checker, then its statement, in the order they ran.
        r.speak.length
          ? phase("Turns (fact-check, then statement)", [...r.factcheck, ...r.speak].sort((a, b) => a.startedAt - b.startedAt))
          : r.factcheck.length ? phase(r.factcheck.some((s) => s.side) ? "Fact-check (each side checks the other's citations)" : "Fact-check (both positions' new citations, by a neutral checker)", r.factcheck) : null,
        r.cartograph.length ? phase("The judge maps the round", r.cartograph) : null,
        r.vote.length ? phase(`The crowd votes (${plural(r.vote.length, "batch", "batches")}${r.vote.length > 1 ? " in parallel" : ""})`, [...r.vote, ...r.tally]) : null,
        r.moderate.length ? phase("Moderate", r.moderate) : null,
        r.control.length ? phase("Round controller", r.control, trace.decisions.has(n) ? decisionView(n, trace.decisions.get(n)) : null) : null)),
      judge.length ? h("div.card", phase(run.kind === "motion" ? "Conclusion" : "Judge and score", judge)) : null);
    count.textContent = plural(trace.events.length, "event");
  }
  function tick() {
    if (!trace.start) return;
    const end = trace.end ? new Date(trace.end.at) : new Date();
    clock.textContent = seconds(end - trace.start);
  }
  const clockTimer = setInterval(tick, 100);

  const stopState = live.onState((state) => {
    conn.className = `conn ${state === "live" ? "live" : "down"}`;
    conn.textContent = state === "live" ? "live" : state;
  });

  const stop = live.follow(runId, (e) => {
    if (e.type === "socket.error") { mount(endBox, errorBox(e.detail)); return; }
    trace.add(e);
    const offset = trace.start ? seconds(new Date(e.at) - trace.start) : "";
    log.append(h("div", { "data-seq": e.seq }, `#${e.seq} +${offset} ${e.type}${e.stage ? ` ${e.stage}` : ""}${e.round ? ` r${e.round}` : ""}${e.side ? ` ${e.side}` : ""}`));
    if (!frame) frame = requestAnimationFrame(draw);
    if (ENDS.has(e.type)) {
      tick();
      mount(pill, statusPill(e.type.replace("run.", "")));
      const d = e.data || {};
      mount(endBox, h("p.row", { id: "run-ended" },
        h("strong", e.type === "run.succeeded" ? "The debate has ended." : `The run ${e.type.replace("run.", "")}.`),
        d.verdict ? verdictPill(d.verdict) : null,
        d.score !== undefined ? h("span", `score ${d.score}`) : null,
        d.error ? h("span.error", d.error) : null,
        h("a.button.primary", { href: `#/runs/${runId}` }, "Open the verdict")));
      if (e.type === "run.succeeded" && !parallel.size) {
        api(`/runs/${runId}`).then((ended) => {
          parallel = new Map((ended.result?.parallelism || []).map((p) => [p.round, p]));
          if (!frame) frame = requestAnimationFrame(draw);
        }, () => {});
      }
      api(`/runs/${runId}/round_decisions`).then((r) => {
        if (!r.decisions.length) return;
        mount(decisionsTable, h("section.card", h("h2", "The round controller's decisions"),
          scrollBox("The round controller's decisions", h("table", h("thead", h("tr", ["Round", "Action", "Rule", "Mode", "Would have"].map((c) => h("th", c)))),
            h("tbody", r.decisions.map((d) => h("tr", h("td", d.round), h("td", d.action), h("td", d.rule), h("td", d.mode),
              h("td", d.controller_action ? `${d.controller_action} (${d.controller_rule})` : "—"))))))));
      }, () => {});
      if (wasRunning && e.type === "run.succeeded") {
        setTimeout(() => { if (!leaving && location.hash === `#/runs/${runId}/live`) location.hash = `#/runs/${runId}`; }, 1500);
      }
    }
  });
  return () => { leaving = true; stop(); stopState(); clearInterval(clockTimer); if (frame) cancelAnimationFrame(frame); };
}
