/// `GET /inspect.js`: the inspector's script, an ES module built on `/client.js`.
enum InspectorScript {
    static let js = StaticAsset(contentType: "text/javascript; charset=utf-8", text: jsText)

    private static let jsText = ##"""
// The inspector (API.md "Inspector and browser client"): one session, live, built on /client.js.
import { connect, requestJSON, diff, formatPointer, parsePointer } from "/client.js";

const $ = (selector) => document.querySelector(selector);
/** An element with attributes and children (strings become text, never HTML). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

const LOG_LIMIT = 1000;        // actions read back when the page opens; older ones stay viewable by version
const CHILDREN_LIMIT = 500;    // members shown per object or array in the tree
const OPEN_LIMIT = 50;         // a container with more members starts closed, so a large state renders fast
const PATCH_LIMIT = 30;        // read-back actions whose patch is computed at once (the others on a click)
const PATCH_STATE_BYTES = 32768; // ... when the state is at most this large: each costs two states read back

let kinds = [];
let session = null;            // { id, token, kind }
let live = { state: undefined, version: -1, patch: [], from: -1 };   // from: the first version the marks cover
let viewing = null;            // null while following live, else { version, state, patch }
const toggled = new Map();     // pointer -> open, for the tree's nodes a person opened or closed, kept across renders
const logged = new Map();      // version -> { li, entry }
let logStart = 0;              // the log shows the actions after this version
let backfill = null;

main();

async function main() {
  window.addEventListener("hashchange", () => location.reload());
  bindForms();
  try {
    kinds = (await requestJSON("/kinds")).kinds;
  } catch (error) {
    kinds = [];
  }
  fillKindChoice();
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.get("new")) return createSession(params.get("new"));
  if (params.get("id") && params.get("token")) return open(params.get("id"), params.get("token"));
  showConnect();
}

// Opening a session ---------------------------------------------------------------------------

function showConnect(message = "") {
  $("#connect").hidden = false;
  $("#workspace").hidden = true;
  $("#connect-error").textContent = message;
  $("#connect-error").hidden = !message;
  setStatus("idle", "no session");
}

function fillKindChoice() {
  const select = $("#new-form select[name=kind]");
  select.replaceChildren(...kinds.map((kind) => el("option", { value: kind.name }, kind.name)));
}

async function createSession(kind) {
  try {
    const created = await requestJSON("/sessions", null, { method: "POST", body: JSON.stringify({ kind }) });
    // The token goes into the fragment only: it is never sent to a server, so it stays out of logs.
    history.replaceState(null, "", `#id=${encodeURIComponent(created.id)}&token=${encodeURIComponent(created.token)}`);
    open(created.id, created.token);
  } catch (error) {
    history.replaceState(null, "", location.pathname);
    showConnect(error.message);
  }
}

async function open(id, token) {
  $("#connect").hidden = true;
  $("#workspace").hidden = false;
  setStatus("connecting");
  let meta;
  try {
    meta = await requestJSON(`/sessions/${encodeURIComponent(id)}`, token);
  } catch (error) {
    return showConnect(error.message);
  }
  session = { id, token, kind: meta.kind };
  $("#session").hidden = false;
  $("#kind").textContent = meta.kind;
  $("#session-id").textContent = id;
  $("#session-id").title = id;
  fillDispatch();
  connect(location.origin, id, token, onEvent).catch((error) => {
    setStatus("ended", error.message);
  });
}

// Changes are shown once per frame: a burst of them costs one render of the tree, and the
// version, the state and the log on the screen always agree with each other.
let pending = null;

function onEvent(state, event) {
  switch (event.type) {
    case "snapshot":
      flush();
      live = { state, version: event.version, patch: [], from: event.version };
      showLive();
      if (!viewing) setDiffDefaults(live.version);
      readLog();
      break;
    case "change":
      if (!pending) {
        pending = { entries: [], patch: [], from: event.version };
        if (document.hidden) setTimeout(flush, 250); else requestAnimationFrame(flush);
      }
      pending.entries.push([{ version: event.version, ...event.action }, event.patch]);
      pending.patch.push(...event.patch);
      live = { state, version: event.version, patch: pending.patch, from: pending.from };
      break;
    case "output":
      addOutput(event);
      break;
    case "status":
      setStatus(event.status, event.reason);
      break;
  }
}

function flush() {
  if (!pending) return;
  const { entries } = pending;
  pending = null;
  for (const [entry, patch] of entries) addLogEntry(entry, patch);
  showLive();
}

function setStatus(status, reason = "") {
  const badge = $("#status");
  badge.textContent = status === "idle" ? "not connected" : status;
  badge.dataset.state = status;
  badge.title = reason ? `${status}: ${reason}` : status;
}

// The state --------------------------------------------------------------------------------------

function showLive() {
  $("#version").textContent = String(live.version);
  document.title = `${session.kind} v${live.version} · Storehouse inspector`;
  const travel = $("#travel");
  travel.elements.at.max = String(live.version);
  if (!viewing) {
    travel.elements.at.value = String(live.version);
    travel.elements.version.value = String(live.version);
    renderState(live.state, live.patch);
  }
  $("#travel").elements.version.max = String(live.version);
  $("#live-version").textContent = String(live.version);
}

function renderState(state, patch) {
  renderJSON(state);
  const marks = markedPaths(patch);
  const tree = $("#tree");
  const rows = isContainer(state)
    ? entriesOf(state, CHILDREN_LIMIT).map(([key, value]) => node(key, value, [key], marks))
    : [node(null, state, [], marks)];
  if (isContainer(state) && rows.length === 0) rows.push(el("div", { class: "empty" }, Array.isArray(state) ? "[]" : "{}"));
  if (isContainer(state) && sizeOf(state) > CHILDREN_LIMIT) rows.push(el("div", { class: "more" }, `… ${sizeOf(state) - CHILDREN_LIMIT} more`));
  tree.replaceChildren(...rows);
  const viewed = viewing ? viewing.version : live.version;
  $("#viewing").textContent = viewing ? `version ${viewed}, read-only` : "live";
  $("#viewing").dataset.mode = viewing ? "past" : "live";
  $("#banner").hidden = !viewing;
  $("#tree").classList.toggle("readonly", Boolean(viewing));
  const from = !viewing && live.from < viewed ? `versions ${live.from}–${viewed}` : `version ${viewed}`;
  const paths = marks.touched.size;
  $("#marks").textContent = patch.length === 0 ? "" : `${paths} path${paths === 1 ? "" : "s"} changed by ${from}`;
}

/** The pointers a patch touched, and every container on the way to them. */
function markedPaths(patch) {
  const touched = new Set();
  const within = new Set();
  for (const operation of patch) {
    for (const pointer of [operation.path, operation.from]) {
      if (pointer === undefined) continue;
      const tokens = parsePointer(pointer);
      // A removed member is gone from the tree: its container stands for it.
      touched.add(operation.op === "remove" || (operation.op === "move" && pointer === operation.from)
        ? formatPointer(tokens.slice(0, -1)) : pointer);
      for (let i = 0; i < tokens.length; i++) within.add(formatPointer(tokens.slice(0, i)));
    }
  }
  return { touched, within };
}

/** `#state` is written only while the JSON panel is open: a large state is not stringified on every change. */
function renderJSON(state) {
  const panel = $("details.raw");
  panel.dataset.stale = panel.open ? "" : "1";
  if (panel.open) $("#state").textContent = JSON.stringify(state, null, 2);
}

function isContainer(value) { return value !== null && typeof value === "object"; }
function sizeOf(value) { return Array.isArray(value) ? value.length : Object.keys(value).length; }

/** The first `limit` members of an object or array as [key, value] pairs. */
function entriesOf(value, limit = Infinity) {
  if (Array.isArray(value)) return value.slice(0, limit).map((item, index) => [index, item]);
  const out = [];
  for (const key of Object.keys(value)) {
    if (out.length >= limit) break;
    out.push([key, value[key]]);
  }
  return out;
}

function node(key, value, tokens, marks) {
  const path = formatPointer(tokens);
  const mark = marks.touched.has(path) ? " touched" : marks.within.has(path) ? " within" : "";
  const label = key === null ? null : el("span", { class: typeof key === "number" ? "key index" : "key" }, String(key));
  const size = isContainer(value) ? sizeOf(value) : 0;
  if (size === 0) {
    return el("div", { class: `leaf${mark}`, "data-path": path }, label, label ? el("span", { class: "colon" }, ": ") : null, scalar(value));
  }
  const array = Array.isArray(value);
  const summary = el("summary", {}, label, label ? el("span", { class: "colon" }, ": ") : null,
    el("span", { class: "brace" }, array ? "[" : "{"),
    el("span", { class: "count" }, array ? `${size} item${size === 1 ? "" : "s"}` : `${size} key${size === 1 ? "" : "s"}`),
    el("span", { class: "brace" }, array ? "]" : "}"));
  const details = el("details", { class: `branch${mark}`, "data-path": path }, summary);
  // A closed node's members are made when it is first opened.
  const fill = () => {
    if (details.dataset.filled) return;
    details.dataset.filled = "1";
    const children = el("div", { class: "children" });
    for (const [childKey, childValue] of entriesOf(value, CHILDREN_LIMIT)) {
      children.append(node(childKey, childValue, [...tokens, childKey], marks));
    }
    if (size > CHILDREN_LIMIT) children.append(el("div", { class: "more" }, `… ${size - CHILDREN_LIMIT} more`));
    details.append(children);
  };
  details.open = toggled.has(path) ? toggled.get(path) : size <= OPEN_LIMIT;
  if (details.open) fill();
  details.addEventListener("toggle", () => {
    toggled.set(path, details.open);
    if (details.open) fill();
  });
  return details;
}

function scalar(value) {
  if (isContainer(value)) return el("span", { class: "value punct" }, Array.isArray(value) ? "[]" : "{}");
  const type = value === null ? "null" : typeof value;
  return el("span", { class: `value ${type}` }, type === "string" ? JSON.stringify(value) : String(value));
}

/** Opens or closes every node down to the members the tree shows. */
function setAllCollapsed(close) {
  toggled.clear();
  const walk = (value, tokens) => {
    if (!isContainer(value)) return;
    if (tokens.length > 0) toggled.set(formatPointer(tokens), !close);
    for (const [key, child] of entriesOf(value, CHILDREN_LIMIT)) walk(child, [...tokens, key]);
  };
  walk(viewing ? viewing.state : live.state, []);
  redraw();
}

function redraw() {
  if (viewing) renderState(viewing.state, viewing.patch);
  else renderState(live.state, live.patch);
}

// Versions: the state at any kept version, and the diff of two -------------------------------

function stateURL(version) {
  return `/sessions/${encodeURIComponent(session.id)}/state?version=${version}`;
}

async function view(version) {
  const error = $("#travel-error");
  error.hidden = true;
  if (!session) return;
  if (version === live.version) return backToLive();
  try {
    const answer = await requestJSON(stateURL(version), session.token);
    const entry = logged.get(version);
    viewing = { version, state: answer.state, patch: (entry && entry.patch) || [] };
    const travel = $("#travel");
    travel.elements.at.value = String(version);
    travel.elements.version.value = String(version);
    $("#banner-version").textContent = String(version);
    renderState(viewing.state, viewing.patch);
    setDiffDefaults(version);
    for (const { li } of logged.values()) li.classList.toggle("viewed", Number(li.dataset.version) === version);
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
}

function backToLive() {
  viewing = null;
  for (const { li } of logged.values()) li.classList.remove("viewed");
  showLive();
  setDiffDefaults(live.version);
}

function setDiffDefaults(version) {
  const form = $("#diff");
  form.elements.from.value = String(Math.max(0, version - 1));
  form.elements.to.value = String(version);
}

async function showDiff(from, to) {
  const list = $("#diff-result");
  const error = $("#diff-error");
  error.hidden = true;
  try {
    const [a, b] = await Promise.all([from, to].map((v) => requestJSON(stateURL(v), session.token)));
    const operations = diff(a.state, b.state);
    list.replaceChildren(...(operations.length ? operations.map(operationItem) : [el("li", { class: "none" }, "no difference")]));
    $("#diff-caption").textContent = `${operations.length} operation${operations.length === 1 ? "" : "s"} from version ${from} to ${to}`;
  } catch (failure) {
    list.replaceChildren();
    $("#diff-caption").textContent = "";
    error.textContent = failure.message;
    error.hidden = false;
  }
}

function operationItem(operation) {
  const parts = [el("span", { class: `op ${operation.op}` }, operation.op), el("code", { class: "path" }, operation.path || "/")];
  if (operation.from !== undefined) parts.push(el("span", { class: "muted" }, " from "), el("code", { class: "path" }, operation.from));
  if ("value" in operation) parts.push(el("code", { class: "json" }, compact(operation.value)));
  return el("li", {}, ...parts);
}

function compact(value, limit = 160) {
  const text = JSON.stringify(value);
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

// The action log and outputs -------------------------------------------------------------------

/** Reads the log's earlier actions (and any run a snapshot stood in for), so it has no gap. */
function readLog() {
  if (backfill) { backfill.again = true; return; }
  backfill = { again: false };
  (async () => {
    do {
      backfill.again = false;
      if (logged.size === 0) logStart = Math.max(0, live.version - LOG_LIMIT);
      let since = logStart;
      while (logged.has(since + 1)) since += 1;
      while (since < live.version) {
        let page;
        try {
          page = await requestJSON(`/sessions/${encodeURIComponent(session.id)}/actions?since=${since}&limit=1000`, session.token);
        } catch (error) {
          const oldest = error.problem && error.problem.oldestVersion;
          if (error.status === 404 && Number.isInteger(oldest) && oldest > since) {
            logStart = since = oldest;
            // Versions before the kept history cannot be viewed: the slider starts at the oldest kept.
            for (const name of ["at", "version"]) $("#travel").elements[name].min = String(oldest);
            continue;
          }
          break;
        }
        for (const action of page.actions) addLogEntry(action, null);
        if (page.next === null || page.next === undefined || page.next <= since) break;
        since = page.next;
      }
      $("#log-note").textContent = logStart > 0 ? `Actions up to version ${logStart} are not listed; view them by version.` : "";
      $("#log-note").hidden = logStart === 0;
    } while (backfill.again);
    backfill = null;
    fillPatches();
  })();
}

/** The patches of read-back actions (the log has none): the newest ones, from the states around them. */
async function fillPatches() {
  if (JSON.stringify(live.state).length > PATCH_STATE_BYTES) return;
  const missing = [...logged.entries()].filter(([, known]) => !known.patch).map(([version]) => version)
    .sort((a, b) => b - a).slice(0, PATCH_LIMIT);
  const work = async () => {
    for (let version = missing.shift(); version !== undefined; version = missing.shift()) {
      const known = logged.get(version);
      if (!known || known.patch) continue;
      try {
        known.patch = await patchOf(version);
        known.li.querySelector(".patch").replaceWith(patchView(version, known.patch));
      } catch {
        return;
      }
    }
  };
  await Promise.all([work(), work()]);
}

async function patchOf(version) {
  const [a, b] = await Promise.all([version - 1, version].map((v) => requestJSON(stateURL(v), session.token)));
  return diff(a.state, b.state);
}

function addLogEntry(entry, patch) {
  const known = logged.get(entry.version);
  if (known) {
    if (patch && !known.patch) { known.patch = patch; known.li.querySelector(".patch").replaceWith(patchView(entry.version, patch)); }
    return;
  }
  if (entry.version <= logStart) return;
  const list = $("#log");
  const follow = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  const at = entry.at ? new Date(entry.at) : null;
  const li = el("li", { "data-version": String(entry.version), class: "entry" },
    el("button", { type: "button", class: "ver", title: `View the state at version ${entry.version}` }, String(entry.version)),
    el("div", { class: "what" },
      el("code", { class: "type" }, entry.type),
      el("span", { class: `source ${entry.source || "client"}` }, entry.source || "client"),
      at ? el("time", { datetime: entry.at, title: entry.at }, formatTime(at)) : null),
    "payload" in entry ? el("code", { class: "payload json" }, compact(entry.payload, 240)) : null,
    patchView(entry.version, patch));
  li.querySelector(".ver").addEventListener("click", () => view(entry.version));
  // Oldest first: a backfilled entry goes before the later ones already shown.
  let next = null;
  for (let child = list.lastElementChild; child && Number(child.dataset.version) > entry.version; child = child.previousElementSibling) next = child;
  list.insertBefore(li, next);
  logged.set(entry.version, { li, patch });
  $("#log-count").textContent = `${logged.size}`;
  $("#log-empty").hidden = true;
  if (follow) list.scrollTop = list.scrollHeight;
}

function patchView(version, patch) {
  if (!patch) {
    const button = el("button", { type: "button", class: "link patch" }, "show patch");
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const known = logged.get(version);
        known.patch = await patchOf(version);
        button.replaceWith(patchView(version, known.patch));
      } catch (failure) {
        button.textContent = failure.message;
      }
    });
    return button;
  }
  if (patch.length === 0) return el("div", { class: "patch none" }, "no change");
  return el("ol", { class: "patch ops" }, ...patch.map(operationItem));
}

function addOutput(event) {
  const list = $("#outputs");
  $("#outputs-empty").hidden = true;
  const { type, payload } = event.output;
  list.append(el("li", {},
    el("span", { class: "ver static" }, String(event.version)),
    el("code", { class: "type" }, type),
    el("time", {}, formatTime(new Date())),
    payload === undefined ? null : el("code", { class: "payload json" }, compact(payload, 240))));
  list.scrollTop = list.scrollHeight;
}

function formatTime(date) {
  const pad = (n, width = 2) => String(n).padStart(width, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

// Dispatch -------------------------------------------------------------------------------------

function kindEntry() {
  return kinds.find((kind) => kind.name === session.kind) || { actionTypes: [] };
}

/** The payload's JSON Schema when /kinds gives one: undefined when unknown, null when none is taken. */
function payloadSchema(type) {
  const kind = kindEntry();
  const listed = (kind.actionTypes || []).find((item) => typeof item === "object" && item && item.type === type);
  if (listed) return listed.payloadSchema ?? null;
  const described = kind.actions || kind.actionSchemas;
  if (Array.isArray(described)) {
    const action = described.find((item) => item.type === type);
    return action ? action.payloadSchema ?? null : undefined;
  }
  const table = kind.payloadSchemas || kind.payloadSchema;
  if (table && typeof table === "object") return table[type] ?? null;
  return undefined;
}

function fillDispatch() {
  const form = $("#dispatch");
  const select = form.elements.type;
  select.replaceChildren(...actionTypes().map((type) => el("option", { value: type }, type)));
  describePayload();
}

/** The kind's client action types, whether /kinds lists them as names or as objects with a `type`. */
function actionTypes() {
  return (kindEntry().actionTypes || []).map((item) => (typeof item === "string" ? item : item.type)).filter(Boolean);
}

function describePayload() {
  const form = $("#dispatch");
  const schema = payloadSchema(form.elements.type.value);
  const textarea = form.elements.payload;
  const hint = $("#payload-hint");
  if (schema === null) {
    textarea.placeholder = "takes no payload";
    hint.textContent = "This action takes no payload.";
  } else if (schema) {
    textarea.placeholder = JSON.stringify(example(schema));
    hint.textContent = `Payload schema: ${compact(schema, 200)}`;
  } else {
    textarea.placeholder = "JSON, or empty for none";
    hint.textContent = "";
  }
}

/** A value of the schema's shape, shown as the payload's placeholder. */
function example(schema) {
  if (!schema || typeof schema !== "object") return null;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ("default" in schema) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const out = {};
      for (const [key, property] of Object.entries(schema.properties || {})) out[key] = example(property);
      return out;
    }
    case "array": return schema.items ? [example(schema.items)] : [];
    case "string": return "";
    case "integer": case "number": return schema.minimum ?? 0;
    case "boolean": return false;
    default: return null;
  }
}

/** The first way `value` breaks `schema` (the JSON Schema keywords a payload uses), or "". */
function violation(schema, value, where = "payload") {
  if (!schema || typeof schema !== "object") return "";
  const types = schema.type === undefined ? [] : [].concat(schema.type);
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const fits = (type) => type === actual || (type === "integer" && Number.isInteger(value)) || (type === "number" && actual === "number");
  if (types.length > 0 && !types.some(fits)) return `${where} should be ${types.join(" or ")}, not ${actual}`;
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    return `${where} should be one of ${schema.enum.map((option) => JSON.stringify(option)).join(", ")}`;
  }
  if (typeof value === "number" && schema.minimum !== undefined && value < schema.minimum) return `${where} should be at least ${schema.minimum}`;
  if (typeof value === "string" && schema.minLength !== undefined && value.length < schema.minLength) return `${where} should have at least ${schema.minLength} characters`;
  if (actual === "object") {
    for (const key of schema.required || []) if (!(key in value)) return `${where} needs "${key}"`;
    for (const [key, property] of Object.entries(schema.properties || {})) {
      if (key in value) { const found = violation(property, value[key], `${where}.${key}`); if (found) return found; }
    }
    if (schema.additionalProperties === false) {
      const extra = Object.keys(value).find((key) => !(key in (schema.properties || {})));
      if (extra) return `${where} has no member "${extra}"`;
    }
  }
  if (actual === "array" && schema.items) {
    for (let i = 0; i < value.length; i++) { const found = violation(schema.items, value[i], `${where}[${i}]`); if (found) return found; }
  }
  return "";
}

async function dispatch(event) {
  event.preventDefault();
  const form = $("#dispatch");
  const error = $("#dispatch-error");
  const result = $("#dispatch-result");
  error.hidden = true;
  result.textContent = "";
  const type = form.elements.type.value;
  const text = form.elements.payload.value.trim();
  const action = { type };
  if (text !== "") {
    try {
      action.payload = JSON.parse(text);
    } catch (failure) {
      return refuse(`The payload is not JSON: ${failure.message}`);
    }
  }
  const schema = payloadSchema(type);
  if (schema === null && "payload" in action) return refuse(`${type} takes no payload`);
  if (schema && !("payload" in action)) return refuse(`${type} needs a payload`);
  const broken = schema && violation(schema, action.payload);
  if (broken) return refuse(broken);
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const answer = await requestJSON(`/sessions/${encodeURIComponent(session.id)}/actions`, session.token, {
      method: "POST", body: JSON.stringify(action), headers: { Prefer: "return=minimal" },
    });
    result.textContent = `applied: version ${answer.version}`;
  } catch (failure) {
    const problem = failure.problem || {};
    refuse(failure.message, problem.status ? `${problem.status} ${problem.title || ""}`.trim() : "");
  } finally {
    button.disabled = false;
  }

  function refuse(detail, heading = "") {
    error.replaceChildren(heading ? el("strong", {}, heading) : "", heading ? " " : "", el("span", { class: "detail" }, detail));
    error.hidden = false;
  }
}

// Wiring ---------------------------------------------------------------------------------------

function bindForms() {
  $("#open-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    let id = form.elements.id.value.trim();
    let token = form.elements.token.value.trim();
    // A whole inspector link pasted into the id field works as well.
    const hash = id.indexOf("#");
    if (hash >= 0) {
      const params = new URLSearchParams(id.slice(hash + 1));
      id = params.get("id") || "";
      token = params.get("token") || token;
    }
    if (!id || !token) return showConnect("Give the session's id and its token.");
    location.hash = `id=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}`;
  });
  $("#new-form").addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `new=${encodeURIComponent(event.target.elements.kind.value)}`;
  });
  $("#dispatch").addEventListener("submit", dispatch);
  $("#dispatch").elements.type.addEventListener("change", describePayload);
  $("#dispatch").elements.payload.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("#dispatch").requestSubmit();
  });
  const travel = $("#travel");
  travel.elements.at.addEventListener("input", () => { travel.elements.version.value = travel.elements.at.value; });
  travel.elements.at.addEventListener("change", () => view(Number(travel.elements.at.value)));
  travel.addEventListener("submit", (event) => {
    event.preventDefault();
    const version = Number(travel.elements.version.value);
    if (Number.isInteger(version)) view(version);
  });
  $("#back-live").addEventListener("click", backToLive);
  $("#go-live").addEventListener("click", backToLive);
  $("#diff").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    showDiff(Number(form.elements.from.value), Number(form.elements.to.value));
  });
  $("details.raw").addEventListener("toggle", () => { if ($("details.raw").open && $("details.raw").dataset.stale) redraw(); });
  $("#expand-all").addEventListener("click", () => setAllCollapsed(false));
  $("#collapse-all").addEventListener("click", () => setAllCollapsed(true));
}
"""##
}
