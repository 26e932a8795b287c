// The shell: hash routes → pages (each a module loaded when first needed), the theme toggle, the
// key gate, and the banner for debates still running, which lives outside the pages so it survives
// navigating away and back (and a reload: the running runs are kept in this browser's storage).

import { ApiError, ENDS, api, getKey, live } from "./api.js";
import { h, mount } from "./ui.js";

const main = document.getElementById("main");

// [hash, tab, module, whether the page is reached from a tab rather than one itself]. A run's live
// trace, its verdict and a claim's drift chart are not tabs: each stays under the tab the user
// reached it from (a debate started on Run is followed and read under Run; one opened from History,
// under History; a monitor's last run, under Monitors), and so does a reload. Opened with no tab
// before it (a link from elsewhere, a new tab, or the banner from Settings, which links to no run),
// it falls under its own: Run for a live trace, History for a verdict or a drift chart.
const ROUTES = [
  [/^#?\/?$/, "run", "page-run.js"],
  [/^#\/run$/, "run", "page-run.js"],
  [/^#\/runs\/([\w-]+)\/live$/, "run", "page-trace.js", true],
  [/^#\/runs\/([\w-]+)$/, "history", "page-verdict.js", true],
  [/^#\/claims\/([\w-]+)$/, "history", "page-drift.js", true],
  [/^#\/history$/, "history", "page-history.js"],
  [/^#\/monitors$/, "monitors", "page-monitors.js"],
  [/^#\/sources$/, "sources", "page-sources.js"],
  [/^#\/sources\/([\w-]+)$/, "sources", "page-sources.js"],
  [/^#\/benchmarks$/, "benchmarks", "page-benchmarks.js"],
  [/^#\/settings$/, "settings", "page-settings.js"],
  [/^#\/key$/, "settings", "page-key.js"],
];

// A page's module. A fetch the network failed is tried again (twice, a moment apart) under another
// URL, since the browser remembers a failed import by its URL.
async function loadPage(file) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await import(attempt ? `./${file}?attempt=${attempt}` : `./${file}`);
    } catch (err) {
      if (attempt === 2) throw err;
      await new Promise((resolve) => setTimeout(resolve, 400 * (attempt + 1)));
    }
  }
}

let leave = null; // the current page's clean-up

const TAB = "cc.tab";
let tab = null; // the tab highlighted now (null before the first page of this document)

function tabFrom(hash, home) {
  if (tab) return tab === "settings" ? home : tab;
  try {
    const kept = JSON.parse(sessionStorage.getItem(TAB) || "null");
    if (kept?.hash === hash) return kept.tab; // a reload: the same page, under the same tab
  } catch { /* nothing kept */ }
  return home;
}

async function route() {
  if (leave) { try { leave(); } catch { /* a page's clean-up must not block the next */ } leave = null; }
  const hash = location.hash || "#/run";
  let found = ROUTES.find(([re]) => re.test(hash));
  if (!getKey()) found = ROUTES[ROUTES.length - 1]; // no key yet: ask for one first
  if (!found) found = ROUTES[0];
  const [re, home, file, reached] = found;
  const params = hash.match(re)?.slice(1) || [];
  const nav = reached ? tabFrom(hash, home) : home;
  if (file !== "page-key.js") {
    tab = nav;
    try { sessionStorage.setItem(TAB, JSON.stringify({ hash, tab })); } catch { /* storage off: no reload memory */ }
  }
  for (const a of document.querySelectorAll("[data-nav]")) {
    // "page" on the tab's own page; "true" (the current section) on a page reached from it
    if (a.dataset.nav === nav) a.setAttribute("aria-current", reached ? "true" : "page");
    else a.removeAttribute("aria-current");
  }
  const token = (route.token = {});
  try {
    const page = await loadPage(file);
    if (route.token !== token) return;
    const view = h("div");
    mount(main, view);
    leave = (await page.render(view, ...params)) || null;
  } catch (err) {
    if (route.token !== token) return;
    const again = h("button#try-again", { type: "button", onclick: () => route() }, "Try again");
    mount(main, h("div.card", h("h1", "Something went wrong"), h("p.error", { role: "alert" }, err.message), again));
  }
  document.title = `${main.querySelector("h1")?.textContent || "claimcourt"} · claimcourt`;
}

// The skip link moves focus, not the route (the routes live in the hash too).
document.querySelector(".skip").addEventListener("click", (e) => {
  e.preventDefault();
  main.focus();
});

window.addEventListener("hashchange", () => {
  route();
  main.focus({ preventScroll: true });
});
window.addEventListener("cc:unauthorized", () => {
  if (!location.hash.startsWith("#/key")) location.hash = "#/key";
});

// ---- theme
const toggle = document.getElementById("theme-toggle");
function showTheme() {
  const dark = document.documentElement.dataset.theme === "dark";
  toggle.setAttribute("aria-label", dark ? "Switch to light theme" : "Switch to dark theme");
  toggle.title = toggle.getAttribute("aria-label");
}
toggle.addEventListener("click", () => {
  const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
  document.documentElement.dataset.theme = next;
  localStorage.setItem("cc.theme", next);
  showTheme();
  window.dispatchEvent(new CustomEvent("cc:theme"));
});
showTheme();

// ---- running debates: a banner each, on every page, until the run ends
const ACTIVE = "cc.active";
const banners = document.getElementById("banners");
const following = new Map(); // run id → {stop, el}

export function activeRuns() {
  try { return JSON.parse(localStorage.getItem(ACTIVE) || "[]"); } catch { return []; }
}

export function watchRun(run) {
  const runs = activeRuns().filter((r) => r.run_id !== run.run_id);
  runs.push({ run_id: run.run_id, claim: run.claim });
  localStorage.setItem(ACTIVE, JSON.stringify(runs));
  showBanners();
}

function unwatch(runId) {
  localStorage.setItem(ACTIVE, JSON.stringify(activeRuns().filter((r) => r.run_id !== runId)));
  following.get(runId)?.stop();
  following.get(runId)?.el.remove();
  following.delete(runId);
}

const STAGE_WORDS = {
  suitability: "checking suitability", decompose: "decomposing", retrieve: "retrieving evidence",
  argue: "arguing", moderate: "moderating", control: "deciding the next round", adjudicate: "judging",
  review: "reviewing the judgements", score: "scoring", finish: "finishing",
};

export function showBanners() {
  if (!getKey()) return;
  for (const run of activeRuns()) {
    if (following.has(run.run_id)) continue;
    const status = h("span.small.muted", "connecting…");
    const el = h(
      "div.banner", { "data-run": run.run_id, role: "status" },
      h("span.pulse", { "aria-hidden": "true" }),
      h("span.grow", h("strong", "Debate running: "), run.claim, " ", status),
      h("a.button", { href: `#/runs/${run.run_id}/live` }, "Watch live"),
    );
    banners.append(el);
    let round = null;
    const stop = live.follow(run.run_id, (event) => {
      if (event.type === "socket.error") { unwatch(run.run_id); return; }
      if (event.round) round = event.round;
      if (event.type === "stage.started" && event.stage) {
        status.textContent = `— ${round ? `round ${round}, ` : ""}${STAGE_WORDS[event.stage] || event.stage}`;
      }
      if (ENDS.has(event.type)) {
        unwatch(run.run_id);
        window.dispatchEvent(new CustomEvent("cc:run-ended", { detail: { run_id: run.run_id, event } }));
      }
    });
    following.set(run.run_id, { stop, el });
    el.hidden = location.hash === `#/runs/${run.run_id}/live`;
    // A run that ended while no page was open: its status says so at once.
    api(`/runs/${run.run_id}`).then(
      (r) => { if (r.status !== "running") unwatch(run.run_id); },
      (err) => { if (err instanceof ApiError && err.status === 404) unwatch(run.run_id); },
    );
  }
}

// The banner of the run whose live trace is open would only repeat it.
function hideOwnBanner() {
  for (const { el } of following.values()) el.hidden = location.hash === `#/runs/${el.dataset.run}/live`;
}
window.addEventListener("hashchange", hideOwnBanner);

route();
showBanners();
hideOwnBanner();
window.addEventListener("cc:key", showBanners);
