// The console's only way to the server: the same HTTP API and WebSocket API any client uses, with
// the user's key (kept in this browser's storage, sent as a Bearer token; never a provider key).

const KEY = "cc.key";

export function getKey() {
  try { return localStorage.getItem(KEY) || ""; } catch { return ""; }
}
export function setKey(key) { localStorage.setItem(KEY, key); }
export function forgetKey() { localStorage.removeItem(KEY); sessionStorage.clear(); }

export class ApiError extends Error {
  constructor(status, problem, retryAfter) {
    super(problem?.detail || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code || "http_" + status;
    this.field = problem?.field;
    this.retryAfter = retryAfter;
    this.problem = problem; // the whole problem document: some carry more (an upload's per-file reasons)
  }
}

export async function api(path, { method = "GET", body, headers = {}, key = getKey() } = {}) {
  const init = { method, headers: { Authorization: `Bearer ${key}`, ...headers } };
  if (body instanceof FormData) {
    init.body = body; // multipart: the browser writes the Content-Type with its boundary
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON (a proxy's error page): the status says it */ }
  if (!response.ok) {
    const retry = Number(response.headers.get("Retry-After") || data?.retry_after_s || 0);
    if (response.status === 401 && key && key === getKey()) window.dispatchEvent(new CustomEvent("cc:unauthorized"));
    throw new ApiError(response.status, data, retry);
  }
  return data;
}

/** A file the API serves as it is (not JSON): its text. */
export async function apiText(path, key = getKey()) {
  const response = await fetch(path, { headers: { Authorization: `Bearer ${key}` } });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null), 0);
  return response.text();
}

/** The service's settings (providers, roles, the WebSocket URL): once per tab. */
export async function serviceSettings(fresh = false) {
  const cached = sessionStorage.getItem("cc.settings");
  if (cached && !fresh) return JSON.parse(cached);
  const settings = await api("/settings");
  sessionStorage.setItem("cc.settings", JSON.stringify(settings));
  return settings;
}

export const ENDS = new Set(["run.succeeded", "run.failed", "run.stopped"]);

/**
 * One WebSocket for the tab, shared by every page and the banner. It subscribes to a run once per
 * connection, keeps each run's events (so a page that starts following later gets them all), hands
 * each event on once and in order (it keeps the highest seq seen per run and skips any at or below
 * it), and reconnects with backoff: on the new connection the server sends the stored events again,
 * and whatever was seen is skipped, so every follower resumes from the last seq.
 */
class Live {
  constructor() {
    this.listeners = new Map(); // run id → Set of fn(event)
    this.events = new Map(); // run id → events so far, in seq order
    this.subscribed = new Set(); // run ids subscribed on the current connection
    this.stateListeners = new Set();
    this.ws = null;
    this.state = "idle";
    this.retry = 0;
    this.timer = null;
  }

  onState(fn) { this.stateListeners.add(fn); fn(this.state); return () => this.stateListeners.delete(fn); }

  setState(state) {
    this.state = state;
    for (const fn of this.stateListeners) fn(state);
  }

  /** fn(event) for every event of the run, from the first; returns a function that stops. */
  follow(runId, fn) {
    if (!this.listeners.has(runId)) this.listeners.set(runId, new Set());
    this.listeners.get(runId).add(fn);
    for (const event of this.events.get(runId) || []) fn(event);
    this.ensure().then(() => this.send(runId), () => {});
    return () => {
      const set = this.listeners.get(runId);
      set?.delete(fn);
    };
  }

  lastSeq(runId) {
    const events = this.events.get(runId);
    return events?.length ? events[events.length - 1].seq : 0;
  }

  send(runId) {
    if (this.ws?.readyState === WebSocket.OPEN && !this.subscribed.has(runId)) {
      this.subscribed.add(runId);
      this.ws.send(JSON.stringify({ action: "subscribe", run_id: runId }));
    }
  }

  async ensure() {
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) {
      return this.opened;
    }
    const settings = await serviceSettings();
    const base = settings.websocket_url || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/`;
    const url = `${base}${base.includes("?") ? "&" : "?"}api_key=${encodeURIComponent(getKey())}`;
    this.setState(this.retry ? "reconnecting" : "connecting");
    const ws = new WebSocket(url);
    this.ws = ws;
    this.subscribed = new Set();
    this.opened = new Promise((resolve) => {
      ws.onopen = () => {
        this.retry = 0;
        this.setState("live");
        for (const runId of this.listeners.keys()) this.send(runId);
        resolve();
      };
    });
    ws.onmessage = (message) => this.receive(JSON.parse(message.data));
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setState("reconnecting");
      const wait = Math.min(8000, 250 * 2 ** this.retry++);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.ensure().catch(() => {}), wait);
    };
    return this.opened;
  }

  receive(message) {
    if (message.type === "event") {
      const event = message.event;
      const runId = message.run_id;
      if (event.seq <= this.lastSeq(runId)) return; // seen before a reconnect: resume after it
      if (!this.events.has(runId)) this.events.set(runId, []);
      this.events.get(runId).push(event);
      for (const fn of [...(this.listeners.get(runId) || [])]) fn(event);
    } else if (message.type === "error") {
      for (const [runId, set] of this.listeners) {
        if (message.detail?.includes(runId)) for (const fn of set) fn({ type: "socket.error", ...message });
      }
    }
  }

  /** Drop the connection, as a network would: it reconnects by itself (the browser tests use it). */
  drop() { this.ws?.close(); }
}

export const live = new Live();
window.ccLive = live;
