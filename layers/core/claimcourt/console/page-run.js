// The run console: one claim now, or a queue of claims fired under the cost guard (a 429 says when a
// slot frees: the queue waits that long and asks again, with the same Idempotency-Key).

import { ApiError, api, serviceSettings } from "./api.js";
import { watchRun } from "./app.js";
import { errorBox, h, mount, statusPill, tierBadge, verdictPill } from "./ui.js";

const QUEUE = "cc.queue";
// The queue outlives the page: it goes on firing while the user reads a verdict elsewhere.
let items = JSON.parse(sessionStorage.getItem(QUEUE) || "[]");
let timer = null;
let running = false;
let redraw = () => {};
let pump = async () => {};
let pumping = false;
let pumpAgain = false;
window.addEventListener("cc:run-ended", (e) => {
  const item = items.find((i) => i.run_id === e.detail.run_id);
  if (item) {
    item.state = e.detail.event.type.replace("run.", "");
    item.verdict = e.detail.event.data?.verdict;
  }
  sessionStorage.setItem(QUEUE, JSON.stringify(items));
  // A run ending frees a slot: whatever waits behind a 429 asks again now, not at its Retry-After.
  for (const waiting of items.filter((i) => i.state === "waiting")) waiting.retryAt = Date.now();
  redraw();
  if (running) pump();
});

function segmented(name, legend, options, checked) {
  return h(
    "fieldset",
    h("legend", legend),
    h("div.segmented", { role: "radiogroup", "aria-label": legend },
      options.flatMap(([value, label]) => {
        const id = `${name}-${value}`;
        return [
          h("input", { type: "radio", name, id, value, checked: value === checked }),
          h("label", { for: id }, label),
        ];
      })),
  );
}

function request(form, claim) {
  const data = new FormData(form);
  const body = { claim, mode: data.get("mode"), effort: data.get("effort"), judge: data.get("judge") || "contract" };
  if (data.get("as_of_date")) body.as_of_date = data.get("as_of_date");
  if (data.get("first")) body.first = data.get("first");
  if (data.get("rounds")) body.rounds = Number(data.get("rounds"));
  const context = String(data.get("context") || "").trim();
  if (context) body.context = context;
  const corpora = data.getAll("corpora");
  if (corpora.length) body.corpora = corpora;
  const judges = String(data.get("judges") || "").split(",").map((j) => j.trim()).filter(Boolean);
  if (judges.length) body.judges = judges;
  return body;
}

// Which collections a run searches (the API's `corpora`): none picked is what a run always did. The
// list is fetched once per visit of the page (a collection made on Sources a moment ago is in it).
function corporaPicker(prefix, listing) {
  const box = h("div.corpora-pick", h("span.small.muted", "Loading your collections…"));
  const picked = h("span.hint", "(none picked)");
  const details = h(`details#${prefix}-sources`,
    h("summary", "Evidence sources ", picked),
    h("fieldset",
      h("legend.sr-only", "Search these collections"),
      box,
      h("div.hint",
        "None picked: the run searches as it always has (web search where one is configured, else the bundled climate",
        " corpus). Several are searched as one. Your own documents go in on the ", h("a", { href: "#/sources" }, "Sources"), " page.")));
  box.addEventListener("change", () => {
    const names = [...box.querySelectorAll("input:checked")].map((i) => i.value);
    picked.textContent = names.length ? `(${names.join(", ")})` : "(none picked)";
  });
  listing.then(({ corpora }) => {
    mount(box, corpora.map((c) => h("label", { title: `${c.passages.toLocaleString()} passages` },
      h("input", { type: "checkbox", name: "corpora", value: c.name }), c.name, " ", tierBadge(c.tier))));
    if (corpora.some((c) => !c.bundled)) details.open = true; // the user made collections: show them
  }, (err) => mount(box, errorBox(err)));
  return details;
}

export function render(view) {
  const corpora = api("/corpora");
  const claim = h("textarea#claim", {
    name: "claim", rows: 3, required: true, maxlength: 2000,
    placeholder: "e.g. Arctic sea ice has declined since 1979", "aria-describedby": "claim-hint",
  });
  const context = h("textarea#context", { name: "context", rows: 3, maxlength: 20000, "aria-describedby": "context-hint" });
  const file = h("input#context-file", { type: "file", accept: ".txt,.md,text/plain,text/markdown" });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (chosen) context.value = (await chosen.text()).slice(0, 20000);
  });
  const message = h("div", { "aria-live": "polite" });
  const start = h("button.primary#start", { type: "submit" }, "Start debate");
  const queueText = h("textarea#queue-claims", { rows: 4, "aria-describedby": "queue-hint" });

  const form = h(
    "form.card#run-form",
    { "aria-labelledby": "run-title" },
    h("h1#run-title", "Debate a claim"),
    h("div.field",
      h("label", { for: "claim" }, "Claim"),
      claim,
      h("div.hint#claim-hint", "One falsifiable statement, up to 2,000 characters.")),
    h("div.row",
      segmented("mode", "Headline", [["spectral", "Score 0–100"], ["verdict", "Verdict"]], "spectral"),
      segmented("effort", "Effort", [["low", "Low"], ["standard", "Standard"], ["high", "High"]], "standard"),
      h("div.field",
        h("label", { for: "as-of" }, "As of ", h("span.hint", "(backtest, optional)")),
        h("input#as-of", { type: "date", name: "as_of_date" }))),
    h("details",
      h("summary", "How to debate it"),
      h("div.row",
        h("div.field", h("label", { for: "first" }, "Who argues first"),
          h("select#first", { name: "first" },
            h("option", { value: "" }, "Both at once"), h("option", { value: "for" }, "For, then against"),
            h("option", { value: "against" }, "Against, then for"))),
        h("div.field", h("label", { for: "rounds" }, "Rounds"),
          h("select#rounds", { name: "rounds" },
            h("option", { value: "" }, "As the effort decides"),
            [1, 2, 3, 4, 5, 6].map((n) => h("option", { value: String(n) }, String(n))))),
        h("div.field", h("label", { for: "judge" }, "Judge"),
          h("select#judge", { name: "judge" },
            h("option", { value: "contract" }, "Scoring contract (0–100)"),
            h("option", { value: "rubric" }, "Rubric (disagreement hierarchy, 0–10)")))),
      h("div.field",
        h("label", { for: "judges" }, "Panel of judges ", h("span.hint", "(optional)")),
        h("input#judges", {
          name: "judges", type: "text", maxlength: 600, autocomplete: "off", spellcheck: false,
          placeholder: "e.g. openai:gpt-4.1, anthropic, offline+rubric", "aria-describedby": "judges-hint",
        }),
        h("div.hint#judges-hint",
          "Up to 5, comma-separated, each provider[:model], +rubric to judge by the rubric. Each judges the same ",
          "anonymized debate in its own call; the median speaks for the run. offline and offline+rubric need no key."))),
    corporaPicker("run", corpora),
    h("details",
      h("summary", "Attach context"),
      h("div.field",
        h("label", { for: "context" }, "Your own material"),
        context,
        h("div.hint#context-hint", "It enters the evidence pool as T2 passages labelled as yours. Paste it, or:")),
      h("div.field", h("label", { for: "context-file" }, "Load a text file"), file)),
    h("div.row", start, message),
  );

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    start.disabled = true;
    mount(message, h("span.muted", "Starting…"));
    try {
      const run = await api("/runs", {
        method: "POST", body: request(form, claim.value), headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      watchRun(run);
      location.hash = `#/runs/${run.run_id}/live`;
    } catch (err) {
      start.disabled = false;
      mount(message, errorBox(err instanceof ApiError && err.status === 429
        ? `${err.message} A slot frees in about ${err.retryAfter} s; add it to the queue to start it then.`
        : err));
      if (err.field === "claim") claim.focus();
      if (err.field?.startsWith("judges")) {
        form.querySelector("#judges").closest("details").open = true;
        form.querySelector("#judges").focus();
      }
    }
  });

  // ---- the queue
  const list = h("div#queue-list");
  const runQueue = h("button.primary#queue-run", { type: "button" }, "Run the queue");
  const addQueue = h("button#queue-add", { type: "button" }, "Add to queue");
  const save = () => sessionStorage.setItem(QUEUE, JSON.stringify(items));
  function draw() {
    if (!items.length) { mount(list, h("p.muted", "The queue is empty.")); return; }
    mount(list, items.map((item) => h(
      "div.queue-item", { "data-state": item.state },
      h("div", h("div", item.body.claim),
        h("div.small.muted", item.state === "waiting"
          ? `Waiting for a slot (${item.code}): asks again at ${new Date(item.retryAt).toLocaleTimeString()}, or as soon as a run ends`
          : item.note || "")),
      h("div.row",
        item.run_id ? h("a", { href: `#/runs/${item.run_id}` }, "open") : null,
        item.verdict ? verdictPill(item.verdict) : h("span.tag", item.state)),
    )));
  }

  async function pumpOnce() {
    clearTimeout(timer);
    if (!running) return;
    const now = Date.now();
    for (const item of items) {
      if (item.state !== "queued" && !(item.state === "waiting" && item.retryAt <= now)) continue;
      try {
        const run = await api("/runs", { method: "POST", body: item.body, headers: { "Idempotency-Key": item.key } });
        Object.assign(item, { state: "started", run_id: run.run_id, note: "" });
        watchRun(run);
      } catch (err) {
        if (err instanceof ApiError && err.status === 429) {
          Object.assign(item, { state: "waiting", code: err.code, retryAt: now + Math.max(1, err.retryAfter) * 1000 });
          break; // the cap is full: the rest wait behind this one
        }
        Object.assign(item, { state: "refused", note: err.message });
      }
    }
    save();
    redraw();
    const waiting = items.filter((i) => i.state === "waiting");
    if (waiting.length || items.some((i) => i.state === "queued")) {
      const next = Math.min(...waiting.map((i) => i.retryAt), Date.now() + 1000);
      timer = setTimeout(pump, Math.max(200, next - Date.now()));
    } else {
      running = false;
      redraw();
    }
  }
  pump = async function () {
    if (pumping) { pumpAgain = true; return; } // one at a time: the same item is never posted twice at once
    pumping = true;
    try { await pumpOnce(); } finally { pumping = false; }
    if (pumpAgain) { pumpAgain = false; pump(); }
  };

  addQueue.addEventListener("click", () => {
    const lines = queueText.value.split("\n").map((l) => l.trim()).filter(Boolean);
    for (const line of lines) {
      items.push({ body: request(form, line), key: crypto.randomUUID(), state: "queued" });
    }
    queueText.value = "";
    save();
    draw();
  });
  runQueue.addEventListener("click", () => {
    running = true;
    runQueue.disabled = true;
    pump();
  });
  const clear = h("button#queue-clear", { type: "button" }, "Clear finished");
  clear.addEventListener("click", () => {
    items = items.filter((i) => i.state === "queued" || i.state === "waiting");
    save();
    draw();
  });

  const queue = h(
    "section.card", { "aria-labelledby": "queue-title" },
    h("h2#queue-title", "Claim queue"),
    h("p.muted#queue-hint",
      "One claim a line, with the options above. The queue starts them one after another; when the cost",
      " guard is full (429) it waits until a slot frees and asks again."),
    h("div.field", h("label", { for: "queue-claims" }, "Claims to queue"), queueText),
    h("div.row", addQueue, runQueue, clear),
    list,
  );

  // ---- recent runs, for orientation
  const recent = h("section.card", { "aria-labelledby": "recent-title" }, h("h2#recent-title", "Recent runs"), h("p.muted", "Loading…"));
  api("/runs?limit=5").then((page) => {
    mount(recent, h("h2#recent-title", "Recent runs"),
      page.runs.length ? h("table", h("tbody", page.runs.map((r) => h("tr",
        h("td", h("a", { href: r.status === "running" ? `#/runs/${r.run_id}/live` : `#/runs/${r.run_id}` }, r.claim)),
        h("td", r.verdict ? verdictPill(r.verdict) : statusPill(r.status)),
        h("td.num", r.score ?? "")))))
        : h("p.muted", "No runs yet."));
  }, () => {});

  mount(view, form, motionForm(corpora), h("div.grid.two", queue, recent));
  redraw = () => { draw(); runQueue.disabled = running; };
  redraw();
  claim.focus();
  return () => { redraw = () => {}; };
}

// A motion debate: two teams in turns before a crowd that votes (POST /motions).
const MOTION_ROLES = [
  ["debater_for", "Team for"], ["debater_against", "Team against"],
  ["factchecker_for", "Fact-checker, for"], ["factchecker_against", "Fact-checker, against"],
  ["judge", "Motion judge"], ["crowd", "Crowd"],
];

function number(id, name, label, attrs) {
  return h("div.field", h("label", { for: id }, label), h(`input#${id}`, { type: "number", name, ...attrs }));
}

// The body of POST /motions from the form: what the user left empty is the service's default.
function motionRequest(form) {
  const data = new FormData(form);
  const body = {
    motion: data.get("motion"),
    rounds: Number(data.get("rounds")),
    crowd: Number(data.get("crowd")),
    words: Number(data.get("words")),
    citations: Number(data.get("citations")),
    time_knob: { lean_above: Number(data.get("lean_above")), ratio: Number(data.get("ratio")) },
  };
  if (data.get("first")) body.first = data.get("first");
  const corpora = data.getAll("corpora");
  if (corpora.length) body.corpora = corpora;
  const lineup = {};
  for (const [role] of MOTION_ROLES) {
    const wanted = String(data.get(`lineup.${role}`) || "").trim();
    if (wanted) lineup[role] = wanted;
  }
  if (Object.keys(lineup).length) body.lineup = lineup;
  return body;
}

function motionForm(corpora) {
  const motion = h("textarea#motion", {
    name: "motion", rows: 2, required: true, maxlength: 2000,
    placeholder: "e.g. As of 2014, state surveillance was a legitimate defense of our freedoms.",
  });
  const message = h("div", { "aria-live": "polite" });
  const start = h("button.primary#start-motion", { type: "submit" }, "Start motion debate");
  // Each role's input shows what it runs as unless named; the suggestions are the configured providers.
  const models = h("datalist#lineup-models");
  const inputs = Object.fromEntries(MOTION_ROLES.map(([role]) => [role, h(`input#lineup-${role}.mono`, {
    type: "text", name: `lineup.${role}`, list: "lineup-models", autocomplete: "off", spellcheck: "false",
  })]));
  const lineup = MOTION_ROLES.map(([role, label]) => h("div.field", h("label", { for: `lineup-${role}` }, label), inputs[role]));
  serviceSettings().then((s) => {
    // where the API cannot see the keys (a deployed stack), every provider may have one
    const usable = s.providers.filter((p) => p.configured || s.provider_keys_known === false).map((p) => p.name);
    const known = new Set(usable.map((p) => `${p}:`));
    for (const r of s.motion_roles || []) {
      if (!inputs[r.role]) continue; // a role this console does not know yet
      inputs[r.role].placeholder = `${r.provider}:${r.model}`;
      if (usable.includes(r.provider)) known.add(`${r.provider}:${r.model}`);
    }
    mount(models, [...known].sort().map((m) => h("option", { value: m })));
  }, () => {});
  // The service checks every field (a 422 opens and focuses the one it refuses): the browser's own
  // checks would block the start silently for a field inside the closed options.
  const form = h(
    "form.card#motion-form",
    { "aria-labelledby": "motion-form-title", novalidate: true },
    h("h2#motion-form-title", "Debate a motion before a crowd"),
    h("div.field", h("label", { for: "motion" }, "Motion"), motion,
      h("div.hint", "The crowd votes before the debate and after every round; the result is the vote swing.")),
    h("div.row",
      number("motion-rounds", "rounds", "Rounds between opening and closing", { min: 1, max: 6, value: 2, required: true }),
      number("motion-crowd", "crowd", "Voters", { min: 1, max: 100, value: 24, required: true })),
    corporaPicker("motion", corpora),
    h("details#motion-options",
      h("summary", "Rules and line-up"),
      h("div.row",
        h("div.field", h("label", { for: "motion-first" }, "Who speaks first"),
          h("select#motion-first", { name: "first" },
            h("option", { value: "" }, "The side vote zero favours"),
            h("option", { value: "for" }, "For"), h("option", { value: "against" }, "Against"))),
        number("motion-words", "words", "Words a statement", { min: 50, max: 1500, value: 250, required: true }),
        number("motion-citations", "citations", "New citations a statement", { min: 0, max: 10, value: 3, required: true })),
      h("div.row",
        number("motion-lean", "lean_above", "Time knob: when vote zero leans past", { min: 0.5, max: 1, step: "any", value: 0.6, required: true }),
        number("motion-ratio", "ratio", "… the other side gets this times the room", { min: 1, max: 3, step: "any", value: 1.25, required: true })),
      h("fieldset#motion-lineup",
        h("legend", "Line-up ", h("span.hint", "(provider:model; empty: as shown)")),
        h("div.grid.three", lineup)),
      models),
    h("div.row", start, message),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    start.disabled = true;
    mount(message, h("span.muted", "Starting…"));
    try {
      const view = await api("/motions", { method: "POST", body: motionRequest(form) });
      watchRun({ run_id: view.run_id, claim: view.motion.motion });
      location.hash = `#/runs/${view.run_id}/live`;
    } catch (err) {
      start.disabled = false;
      mount(message, errorBox(err));
      // a refused field is shown where it is typed: open the options if it is one of them
      const field = form.querySelector(`[name="${CSS.escape(String(err.field || "").replace("time_knob.", ""))}"]`);
      if (field) {
        if (field.closest("details")) field.closest("details").open = true;
        field.focus();
      }
    }
  });
  return form;
}
