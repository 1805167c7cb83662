/// `GET /client.js`: the browser client, an ES module (`connect`, `applyPatch`, `diff`, `requestJSON`).
/// A page on another origin may import it: module scripts are fetched with CORS, which every answer allows.
enum ClientModule {
    static let js = StaticAsset(contentType: "text/javascript; charset=utf-8", text: jsText)

    private static let jsText = ##"""
// Storehouse browser client: follows one session live (API.md "Inspector and browser client").
//
//   import { connect } from "/client.js";
//   const store = await connect(location.origin, id, token, (state, event) => render(state));
//   await store.send({ type: "counter/incrTapped" });
//   store.close();
//
// The event stream is read with fetch rather than EventSource: EventSource cannot send a header,
// so the token would travel in the URL (browser history, proxy logs) and the first connection
// could not carry Last-Event-ID; fetch sends the bearer header, sends Last-Event-ID on every
// reconnection, and sees the status, so a 401 or 404 stops the client instead of retrying forever.

/** A refusal from the server: `problem` is its RFC 9457 document, `message` its detail. */
export class StorehouseError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.name = "StorehouseError";
    this.status = status;
    this.problem = problem || { status };
  }
}

/**
 * Opens a session's event stream and keeps a local copy of its state.
 *
 * Resolves once the first snapshot is in, with `{state, version, status, send(action), close()}`;
 * rejects with a StorehouseError when the session is unknown or the token is not its own.
 * `onChange(state, event)` runs after every event, `event.type` one of `snapshot`, `change`
 * (with `action` and `patch`), `output` (with `output`) and `status` (with `status`: `live`,
 * `reconnecting`, `ended`). The local state is changed in place by each patch.
 * After a dropped connection it reconnects with `Last-Event-ID: <version>`: the server replays
 * what was missed, so every version is seen once, in order.
 */
export function connect(base, id, token, onChange = () => {}, options = {}) {
  const root = sessionURL(base, id);
  const stallMs = options.stallMs ?? 60000;
  let state;
  let version = -1;
  let status = "connecting";
  let closed = false;
  let controller = null;
  let retryMs = 2000;
  let settle;
  const ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });

  const store = {
    get state() { return state; },
    get version() { return version; },
    get status() { return status; },
    /** POSTs one action (or an array, applied as one batch); resolves to `{version, patch}`. */
    send(action) {
      return requestJSON(`${root}/actions`, token, {
        method: "POST", body: JSON.stringify(action), headers: { Prefer: "return=minimal" },
      });
    },
    /** Stops following the session. */
    close() {
      closed = true;
      if (controller) controller.abort();
      setStatus("closed");
    },
  };

  function notify(event) {
    try { onChange(state, event); } catch (error) { setTimeout(() => { throw error; }); }
  }

  function setStatus(next, extra = {}) {
    if (status === next) return;
    status = next;
    notify({ type: "status", status: next, ...extra });
  }

  function handle(type, data) {
    let message;
    try { message = JSON.parse(data); } catch { return "resync"; }
    switch (type) {
      case "snapshot":
        state = message.state;
        version = message.version;
        notify({ type: "snapshot", version });
        settle.resolve(store);
        setStatus("live");
        return null;
      case "change":
        if (message.version <= version) return null;            // already applied
        if (message.version !== version + 1) return "resync";   // never happens: the server fills gaps
        try { state = applyPatch(state, message.patch); } catch { return "resync"; }
        version = message.version;
        notify({ type: "change", version, action: message.action, patch: message.patch });
        return null;
      case "output":
        notify({ type: "output", version: message.version, output: message.output });
        return null;
      case "end":
        return message.reason === "shutdown" ? "reconnect" : `end:${message.reason}`;
      default:
        return null;
    }
  }

  async function follow() {
    let failures = 0;
    while (!closed) {
      controller = new AbortController();
      const headers = { Authorization: `Bearer ${token}`, Accept: "text/event-stream" };
      if (version >= 0) headers["Last-Event-ID"] = String(version);
      let outcome = "reconnect";
      try {
        const response = await fetch(`${root}/events`, { headers, signal: controller.signal, cache: "no-store" });
        if (!response.ok) {
          const error = new StorehouseError(response.status, await readProblem(response));
          // 503 (recovering, draining, too many) and 5xx are passing; anything else will not change.
          if (response.status < 500) {
            setStatus("ended", { reason: error.message, error });
            settle.reject(error);
            return;
          }
          throw error;
        }
        failures = 0;
        if (version >= 0) setStatus("live");
        outcome = await readStream(response.body, controller, stallMs, (field, value) => {
          if (field === "retry") retryMs = value;
        }, handle);
      } catch (error) {
        if (closed) return;
      }
      if (closed) return;
      if (outcome && outcome.startsWith("end:")) {
        setStatus("ended", { reason: outcome.slice(4) });
        settle.reject(new StorehouseError(410, { detail: `the session ended: ${outcome.slice(4)}` }));
        return;
      }
      if (outcome === "resync") version = -1;
      setStatus("reconnecting");
      failures += 1;
      // A stream that just ended is reopened at once; while the server stays away, after its
      // `retry:`, doubling up to 30 s, jittered so that many pages do not return at one instant.
      const wait = failures === 1 ? 250 : Math.min(retryMs * 2 ** Math.min(failures - 2, 4), 30000);
      await new Promise((resolve) => setTimeout(resolve, wait * (0.75 + Math.random() / 2)));
    }
  }

  follow();
  return ready;
}

/**
 * Reads a text/event-stream body (WHATWG HTML §9.2.6) and hands each event to `handle(type, data)`;
 * returns what `handle` returned when it is not null (or "reconnect" when the body ends).
 */
async function readStream(body, controller, stallMs, onField, handle) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let type = "";
  let data = [];
  let stall = setTimeout(() => controller.abort(), stallMs);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return "reconnect";
      clearTimeout(stall);
      stall = setTimeout(() => controller.abort(), stallMs);
      buffer += decoder.decode(value, { stream: true });
      let start = 0;
      for (;;) {
        const end = buffer.slice(start).search(/\r\n|\r|\n/);
        if (end < 0) break;
        const line = buffer.slice(start, start + end);
        const crlf = buffer.startsWith("\r\n", start + end);
        // A lone "\r" at the end of a chunk may be the first half of "\r\n": wait for more.
        if (!crlf && buffer[start + end] === "\r" && start + end + 1 === buffer.length) break;
        start += end + (crlf ? 2 : 1);
        if (line === "") {
          if (data.length > 0) {
            const outcome = handle(type || "message", data.join("\n"));
            if (outcome) { controller.abort(); return outcome; }
          }
          type = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") type = value;
        else if (field === "data") data.push(value);
        else if (field === "retry" && /^\d+$/.test(value)) onField("retry", Number(value));
      }
      buffer = buffer.slice(start);
    }
  } finally {
    clearTimeout(stall);
  }
}

function sessionURL(base, id) {
  const origin = String(base ?? "").replace(/\/+$/, "");
  return `${origin}/sessions/${encodeURIComponent(id)}`;
}

async function readProblem(response) {
  try { return await response.json(); } catch { return { status: response.status, detail: response.statusText }; }
}

/**
 * fetch with the session's bearer token, JSON in and out; a refusal throws a StorehouseError.
 *
 *   const { actions } = await requestJSON(`${base}/sessions/${id}/actions?since=0`, token);
 */
export async function requestJSON(url, token, init = {}) {
  const headers = { Accept: "application/json", ...(init.headers || {}) };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, { ...init, headers, cache: "no-store" });
  if (!response.ok) throw new StorehouseError(response.status, await readProblem(response));
  return response.status === 204 ? null : response.json();
}

/** RFC 6901: the reference tokens of a JSON Pointer ("" is the whole document). */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`not a JSON Pointer: ${pointer}`);
  return pointer.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** RFC 6901: the pointer of a list of keys and indexes. */
export function formatPointer(tokens) {
  return tokens.map((token) => `/${String(token).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function clone(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function equal(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && equal(a[key], b[key]));
}

/**
 * Applies an RFC 6902 patch to `document` in place and returns the document (a new value when
 * the patch replaces the root). Throws when an operation does not apply (RFC 6902 §5).
 */
export function applyPatch(document, patch) {
  let doc = document;
  for (const operation of patch) {
    const { op, path } = operation;
    switch (op) {
      case "add": doc = insert(doc, path, clone(operation.value)); break;
      case "remove": doc = removeAt(doc, path).doc; break;
      case "replace": doc = insert(removeAt(doc, path).doc, path, clone(operation.value)); break;
      case "move": {
        const taken = removeAt(doc, operation.from);
        doc = insert(taken.doc, path, taken.value);
        break;
      }
      case "copy": doc = insert(doc, path, clone(lookup(doc, operation.from))); break;
      case "test":
        if (!equal(lookup(doc, path), operation.value)) throw new Error(`test failed at ${path}`);
        break;
      default: throw new Error(`unknown patch operation ${op}`);
    }
  }
  return doc;
}

function lookup(doc, pointer) {
  let value = doc;
  for (const token of parsePointer(pointer)) {
    if (value === null || typeof value !== "object" || !(token in value)) throw new Error(`no value at ${pointer}`);
    value = Array.isArray(value) ? value[arrayIndex(value, token, false)] : value[token];
  }
  return value;
}

function arrayIndex(array, token, forAdd) {
  if (forAdd && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`not an array index: ${token}`);
  const index = Number(token);
  if (index > array.length || (!forAdd && index === array.length)) throw new Error(`index ${token} out of range`);
  return index;
}

function parentOf(doc, pointer) {
  const tokens = parsePointer(pointer);
  const last = tokens.pop();
  const parent = lookup(doc, formatPointer(tokens));
  if (parent === null || typeof parent !== "object") throw new Error(`no container at ${pointer}`);
  return { parent, last };
}

function insert(doc, pointer, value) {
  if (pointer === "") return value;
  const { parent, last } = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
  else parent[last] = value;
  return doc;
}

function removeAt(doc, pointer) {
  if (pointer === "") return { doc: undefined, value: doc };
  const { parent, last } = parentOf(doc, pointer);
  if (Array.isArray(parent)) {
    const [value] = parent.splice(arrayIndex(parent, last, false), 1);
    return { doc, value };
  }
  if (!Object.prototype.hasOwnProperty.call(parent, last)) throw new Error(`no value at ${pointer}`);
  const value = parent[last];
  delete parent[last];
  return { doc, value };
}

/**
 * An RFC 6902 patch that turns `from` into `to`: objects compared member by member, arrays
 * element by element (a longer array gains `add`s at its end, a shorter one loses its tail).
 */
export function diff(from, to, path = []) {
  if (equal(from, to)) return [];
  const bothArrays = Array.isArray(from) && Array.isArray(to);
  const bothObjects = !bothArrays && isObject(from) && isObject(to);
  if (!bothArrays && !bothObjects) return [{ op: "replace", path: formatPointer(path), value: clone(to) }];
  const operations = [];
  if (bothArrays) {
    const shared = Math.min(from.length, to.length);
    for (let i = 0; i < shared; i++) operations.push(...diff(from[i], to[i], [...path, i]));
    for (let i = from.length - 1; i >= shared; i--) operations.push({ op: "remove", path: formatPointer([...path, i]) });
    for (let i = shared; i < to.length; i++) operations.push({ op: "add", path: formatPointer([...path, i]), value: clone(to[i]) });
    return operations;
  }
  for (const key of Object.keys(from)) {
    if (!Object.prototype.hasOwnProperty.call(to, key)) operations.push({ op: "remove", path: formatPointer([...path, key]) });
    else operations.push(...diff(from[key], to[key], [...path, key]));
  }
  for (const key of Object.keys(to)) {
    if (!Object.prototype.hasOwnProperty.call(from, key)) operations.push({ op: "add", path: formatPointer([...path, key]), value: clone(to[key]) });
  }
  return operations;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
"""##
}
