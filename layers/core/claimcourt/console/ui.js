// Small DOM helpers and the pieces every page shares: pills, the score scale, times.

/** h("div.card#id", {onclick}, child, …): an element; strings become text (never HTML). */
export function h(spec, attrs, ...children) {
  const [, tag, rest] = spec.match(/^([a-z0-9]*)(.*)$/);
  const el = document.createElement(tag || "div");
  const classes = [];
  for (const [, kind, name] of rest.matchAll(/([.#])([\w-]+)/g)) {
    if (kind === "#") el.id = name;
    else classes.push(name);
  }
  if (classes.length) el.className = classes.join(" ");
  if (attrs !== undefined && (attrs === null || typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className += (el.className ? " " : "") + value;
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name === "style") setStyle(el, value); // through the CSSOM: the policy allows no style attribute
    else el.setAttribute(name, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function setStyle(el, text) {
  for (const rule of text.split(";")) {
    const at = rule.indexOf(":");
    if (at > 0) el.style.setProperty(rule.slice(0, at).trim(), rule.slice(at + 1).trim());
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function mount(target, ...children) {
  target.replaceChildren();
  append(target, children);
}

export const VERDICT_LABEL = {
  supported: "Supported",
  refuted: "Refuted",
  conflicting: "Conflicting",
  "not-enough-evidence": "Not enough evidence",
};

export function verdictPill(verdict, big = false) {
  if (!verdict) return null;
  return h(`span.pill.v-${verdict}${big ? ".big" : ""}`, { "data-verdict": verdict }, VERDICT_LABEL[verdict] || verdict);
}

export function statusPill(status) {
  return h(`span.pill.s-${status}`, status);
}

export function tierBadge(tier) {
  return h(`span.tier.${tier}`, { title: tier === "T1" ? "T1: primary source" : "T2: secondary source" }, tier);
}

/** The 0–100 scale with the interval as a band and the score as a mark, coloured by verdict. */
export function scale(score, interval, verdict, { mini = false, label = "Score" } = {}) {
  const low = interval?.low ?? score;
  const high = interval?.high ?? score;
  const text = `${label} ${score} of 100` + (interval ? `, 80% interval ${low} to ${high}` : "");
  return h(
    `div.scale${mini ? ".mini" : ""}.v-${verdict || "not-enough-evidence"}`,
    { role: "img", "aria-label": text },
    h("div.track"),
    h("div.band", { style: `left:${low}%;width:${Math.max(high - low, 0.6)}%` }),
    h("div.mark", { style: `left:${score}%` }),
    mini ? null : h("div.ticks", ["0", "25", "50", "75", "100"].map((t) => h("span", t))),
  );
}

export function when(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** "1 point", "2 points", "0 points", "1.5 points": a count with its unit, singular only for one. */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${Math.abs(Number(n)) === 1 ? one : many}`;
}

// A wide table scrolls sideways in its own box on a narrow screen (the page itself never does). The
// box is focusable only while it does scroll, so the keyboard can scroll it and never stops on it
// for nothing.
const scrolling = new ResizeObserver((entries) => {
  for (const { target } of entries) {
    if (!target.isConnected) { scrolling.unobserve(target); continue; }
    if (target.scrollWidth > target.clientWidth + 1) target.tabIndex = 0;
    else target.removeAttribute("tabindex");
  }
});

export function scrollBox(label, table) {
  const box = h("div.scroll-x", { role: "region", "aria-label": label }, table);
  scrolling.observe(box);
  return box;
}

/** A CSS custom property's value (the design system's tokens), for what is drawn on a canvas. */
export function css(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// uPlot (vendored, MIT), loaded the first time a page draws a chart.
let uPlotModule = null;
export async function loadUPlot() {
  if (!uPlotModule) {
    document.head.append(h("link", { rel: "stylesheet", href: "/console/uplot.css" }));
    uPlotModule = (await import("./uplot.esm.js")).default;
  }
  return uPlotModule;
}

export function seconds(ms) {
  if (ms === null || ms === undefined) return "";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}

export function usd(value) {
  return `$${(value || 0).toFixed(value >= 1 ? 2 : 4)}`;
}

export function download(name, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function errorBox(err) {
  return h("p.error", { role: "alert" }, err?.message || String(err));
}

export function claimLink(claimId, text) {
  return h("a", { href: `#/claims/${claimId}` }, text);
}
