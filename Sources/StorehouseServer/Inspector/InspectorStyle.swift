/// `GET /inspect.css`: the one style sheet of `/` and `/inspect`, light and dark.
enum InspectorStyle {
    static let css = StaticAsset(contentType: "text/css; charset=utf-8", text: cssText)

    private static let cssText = ##"""
/* Storehouse pages: one sheet for / and /inspect, light and dark from the system's preference. */
:root {
  --bg: #f5f6f8; --card: #ffffff; --line: #e2e5ea; --text: #1b2230; --muted: #5d6878;
  --accent: #3b5bdb; --accent-soft: #e8edff; --accent-text: #ffffff;
  --ok: #2b8a3e; --ok-soft: #e6f4ea; --warn: #b35c00; --warn-soft: #fff4e0; --bad: #c92a2a; --bad-soft: #fdecec;
  --touched: #fff0c2; --touched-line: #f59f00; --within: #f59f0033;
  --string: #2b8a3e; --number: #1c64c8; --literal: #9c36b5; --key: #1b2230; --index: #8a94a6;
  --mono: ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  --sans: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --radius: 10px; --shadow: 0 1px 2px #1b22300d, 0 2px 8px #1b22300a;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0e1116; --card: #161b22; --line: #2a313c; --text: #e4e8ee; --muted: #97a1b0;
    --accent: #7b9bff; --accent-soft: #7b9bff22; --accent-text: #0e1116;
    --ok: #69db7c; --ok-soft: #69db7c1f; --warn: #ffc078; --warn-soft: #ffc0781f; --bad: #ff8787; --bad-soft: #ff87871f;
    --touched: #f59f0033; --touched-line: #fcc419; --within: #fcc41926;
    --string: #8ce99a; --number: #74c0fc; --literal: #e599f7; --key: #e4e8ee; --index: #6c7788;
    --shadow: 0 1px 2px #0006;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.5 var(--sans); }
code, pre, textarea, .mono { font-family: var(--mono); font-size: 13px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
h1, h2, h3 { line-height: 1.25; margin: 0; }
h1 { font-size: 1.6rem; }
h2 { font-size: 1rem; font-weight: 650; letter-spacing: .01em; }
[hidden] { display: none !important; }
.muted { color: var(--muted); }
.small { font-size: 13px; }
.spacer { flex: 1; }

/* Header bar */
.bar { position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: .75rem; flex-wrap: wrap;
  padding: .6rem 1.25rem; background: var(--card); border-bottom: 1px solid var(--line); }
.brand { display: inline-flex; align-items: center; gap: .5rem; font-weight: 700; color: var(--text); font-size: 1.05rem; }
.brand:hover { text-decoration: none; }
.logo { width: 22px; height: 22px; border-radius: 6px; background: url("/favicon.svg") center / cover no-repeat; }
.crumb { color: var(--muted); }
.crumb::before { content: "/"; margin-right: .75rem; color: var(--line); }
.links { margin-left: auto; display: flex; gap: 1rem; }
.session { display: flex; align-items: center; gap: .5rem; min-width: 0; flex: 1 1 12rem; }
.session .kind { padding: .1rem .55rem; border-radius: 999px; background: var(--accent-soft); color: var(--accent); font-weight: 600; font-size: 13px; }
.session .id { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 26ch; }
.meta { display: flex; align-items: center; gap: .75rem; margin-left: auto; }
.status { display: inline-flex; align-items: center; gap: .4rem; font-weight: 600; font-size: 13px; padding: .15rem .6rem;
  border-radius: 999px; background: var(--warn-soft); color: var(--warn); }
.status::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: currentColor; }
.status[data-state="live"] { background: var(--ok-soft); color: var(--ok); }
.status[data-state="live"]::before { animation: pulse 2s ease-in-out infinite; }
.status[data-state="ended"], .status[data-state="closed"] { background: var(--bad-soft); color: var(--bad); }
.status[data-state="idle"] { background: var(--accent-soft); color: var(--muted); }
@keyframes pulse { 50% { opacity: .35; } }
.version-box:has(#version:empty) { display: none; }
.version-box { display: inline-flex; align-items: baseline; gap: .35rem; }
.version-box .label { color: var(--muted); font-size: 13px; }
.version-box strong { font: 700 1.35rem/1 var(--mono); font-variant-numeric: tabular-nums; min-width: 2ch; }

/* Cards and layout */
main { padding: 1.25rem; max-width: 1500px; margin: 0 auto; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 1rem 1.1rem; min-width: 0; }
.card-head { display: flex; align-items: center; gap: .6rem; flex-wrap: wrap; margin-bottom: .75rem; }
.workspace { display: grid; gap: 1rem; grid-template-columns: minmax(0, 1fr); }
.side { display: grid; gap: 1rem; align-content: start; min-width: 0; }
@media (min-width: 900px) {
  .workspace { grid-template-columns: minmax(0, 1.35fr) minmax(20rem, 1fr); grid-template-areas: "state side" "log side"; align-items: start; }
  .state-card { grid-area: state; }
  .side { grid-area: side; }
  .log-card { grid-area: log; }
}
@media (max-width: 600px) {
  main { padding: .75rem; }
  .bar { padding: .5rem .75rem; gap: .5rem; }
  .crumb { display: none; }
  .session { order: 3; flex-basis: 100%; }
  .card { padding: .85rem; }
}

/* Controls */
button, .button { font: inherit; font-size: 14px; font-weight: 600; padding: .4rem .85rem; border-radius: 8px; cursor: pointer;
  border: 1px solid var(--line); background: var(--card); color: var(--text); display: inline-block; }
button:hover, .button:hover { border-color: var(--accent); text-decoration: none; }
button:disabled { opacity: .6; cursor: progress; }
button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
button.ghost { border-color: transparent; background: transparent; color: var(--muted); font-weight: 500; padding: .25rem .5rem; }
button.ghost:hover { color: var(--accent); }
button.link { border: 0; background: none; padding: 0; color: var(--accent); font-weight: 500; font-size: 13px; }
input, select, textarea { font: inherit; font-weight: 400; color: var(--text); background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: .4rem .55rem; min-width: 0; }
textarea { width: 100%; resize: vertical; min-height: 4.5rem; }
input:focus, select:focus, textarea:focus, button:focus-visible, summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
label { display: grid; gap: .3rem; font-size: 13px; font-weight: 600; color: var(--muted); }
.stack { display: grid; gap: .7rem; }
.row { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
.inline label { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
.inline { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
.hint { margin: -.3rem 0 0; font-size: 12px; color: var(--muted); word-break: break-word; }
.hint:empty { display: none; }
.result { color: var(--ok); font-size: 13px; font-weight: 600; }
.error { margin: .5rem 0 0; padding: .5rem .7rem; border-radius: 8px; background: var(--bad-soft); color: var(--bad); font-size: 14px; }
.pill { padding: .05rem .55rem; border-radius: 999px; background: var(--accent-soft); color: var(--accent); font-size: 12px; font-weight: 600; }
.pill[data-mode="past"] { background: var(--warn-soft); color: var(--warn); }
.travel input[type=range] { flex: 1 1 10rem; accent-color: var(--accent); padding: 0; border: 0; background: none; }
.travel input[type=number] { width: 6.5rem; }
.diff { margin-top: .75rem; }
.diff label { display: flex; align-items: center; gap: .4rem; }
.diff input { width: 5.5rem; }

/* Connect */
.connect { max-width: 36rem; margin: 2rem auto; display: grid; gap: 1rem; }
.connect p { margin: 0; }
.divider { display: flex; align-items: center; gap: .75rem; color: var(--muted); font-size: 13px; }
.divider::before, .divider::after { content: ""; flex: 1; border-top: 1px solid var(--line); }

/* The state tree */
.banner { display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; justify-content: space-between; padding: .5rem .75rem;
  margin-bottom: .75rem; border-radius: 8px; background: var(--warn-soft); color: var(--warn); font-size: 14px; }
.tree { font: 13px/1.6 var(--mono); overflow-x: auto; padding: .25rem 0; }
.tree.readonly { border-left: 3px solid var(--warn); padding-left: .5rem; }
.tree details > summary { cursor: pointer; list-style: none; padding-left: 1.1rem; position: relative; border-radius: 4px; white-space: nowrap; }
.tree details > summary::-webkit-details-marker { display: none; }
.tree details > summary::before { content: "▸"; position: absolute; left: .15rem; color: var(--muted); transition: transform .12s; }
.tree details[open] > summary::before { transform: rotate(90deg); }
.tree .children { margin-left: .55rem; padding-left: .8rem; border-left: 1px dashed var(--line); }
.tree .leaf { padding-left: 1.1rem; border-radius: 4px; white-space: pre-wrap; word-break: break-word; }
.tree .key { color: var(--key); font-weight: 600; }
.tree .key.index { color: var(--index); font-weight: 400; }
.tree .colon { color: var(--muted); }
.tree .brace { color: var(--muted); }
.tree .count { color: var(--muted); font-size: 12px; margin: 0 .35rem; font-family: var(--sans); }
.tree details[open] > summary .count { opacity: .8; }
.tree .more, .tree .empty { color: var(--muted); padding-left: 1.1rem; font-style: italic; }
.value.string { color: var(--string); }
.value.number { color: var(--number); }
.value.boolean, .value.null { color: var(--literal); }
.tree .touched > summary, .tree .leaf.touched { background: var(--touched); box-shadow: inset 3px 0 0 var(--touched-line); animation: flash 1.2s ease-out; }
.tree .within > summary { box-shadow: inset 3px 0 0 var(--within); }
@keyframes flash { from { background: var(--touched-line); } to { background: var(--touched); } }
.raw { margin-top: .85rem; border-top: 1px solid var(--line); padding-top: .6rem; }
.raw summary { cursor: pointer; color: var(--muted); font-size: 13px; font-weight: 600; }
.raw pre { margin: .5rem 0 0; max-height: 18rem; overflow: auto; padding: .6rem .75rem; border-radius: 8px; background: var(--bg); border: 1px solid var(--line); }

/* Log, outputs, patches */
.log, .outputs, .ops { list-style: none; margin: 0; padding: 0; }
.log { max-height: 32rem; overflow-y: auto; }
.log .entry { display: grid; grid-template-columns: auto minmax(0, 1fr); column-gap: .75rem; row-gap: .2rem; padding: .55rem .25rem; border-top: 1px solid var(--line); }
.log .entry:first-child { border-top: 0; }
.log .entry > :not(.ver) { grid-column: 2; justify-self: start; max-width: 100%; }
.log .entry.viewed { background: var(--warn-soft); border-radius: 8px; }
.ver { grid-row: span 3; align-self: start; min-width: 2.6rem; padding: .1rem .4rem; font: 600 12px/1.6 var(--mono); color: var(--accent); background: var(--accent-soft); border: 0; border-radius: 6px; text-align: center; }
.ver.static { display: inline-block; min-width: 2rem; }
.what { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
.type { font-weight: 650; }
.source { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .04em; padding: 0 .45rem; border-radius: 999px; }
.source.client { background: var(--accent-soft); color: var(--accent); }
.source.effect { background: var(--ok-soft); color: var(--ok); }
time { color: var(--muted); font: 12px var(--mono); margin-left: auto; }
.payload, .json { color: var(--muted); word-break: break-all; }
.ops li { display: flex; gap: .45rem; align-items: baseline; flex-wrap: wrap; font-size: 13px; padding: .05rem 0; }
.patch.none { color: var(--muted); font-size: 12px; font-style: italic; }
.op { font: 700 11px var(--mono); text-transform: uppercase; padding: 0 .35rem; border-radius: 4px; background: var(--accent-soft); color: var(--accent); }
.op.add { background: var(--ok-soft); color: var(--ok); }
.op.remove { background: var(--bad-soft); color: var(--bad); }
.op.replace, .op.move, .op.copy { background: var(--warn-soft); color: var(--warn); }
.path { font-weight: 600; }
.ops .none { color: var(--muted); }
.outputs { max-height: 14rem; overflow-y: auto; }
.outputs li { display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; padding: .4rem 0; border-top: 1px solid var(--line); }
.outputs li:first-child { border-top: 0; }

/* Home page */
.prose { max-width: 62rem; }
.prose section { margin-bottom: 2rem; }
.prose h2 { font-size: 1.15rem; margin-bottom: .75rem; }
.intro p { max-width: 46rem; font-size: 16px; }
.prose pre { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: .85rem 1rem; overflow-x: auto; }
.kinds { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(19.5rem, 1fr)); align-items: start; }
.kind header { display: flex; align-items: center; justify-content: space-between; gap: .5rem; margin-bottom: .5rem; }
.kind .button { font-size: 13px; padding: .25rem .6rem; }
.kind .actions { margin: 0 0 .5rem; padding-left: 1.1rem; }
.kind details summary { cursor: pointer; color: var(--muted); font-size: 13px; }
.kind pre { font-size: 12px; white-space: pre-wrap; word-break: break-all; }
"""##
}
