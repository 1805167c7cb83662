/// `GET /inspect`: the inspector page. It holds no script or style of its own (the security
/// policy allows none inline): `/inspect.js` and `/inspect.css` bring them, from this origin.
enum InspectorPage {
    static let html = StaticAsset(contentType: "text/html; charset=utf-8", text: PageShell.document(title: "Storehouse inspector", bodyClass: "inspector", script: "/inspect.js", body: htmlText), extraHeaders: Inspector.pageHeaders)

    /// What the page shows, inside its body.
    private static let htmlText = ##"""
<header class="bar">
  <a class="brand" href="/"><span class="logo" aria-hidden="true"></span>Storehouse</a>
  <span class="crumb">inspector</span>
  <div class="session" id="session" hidden>
    <span class="kind" id="kind"></span>
    <code class="id" id="session-id"></code>
  </div>
  <div class="meta">
    <span class="status" id="status" data-state="connecting" role="status">connecting</span>
    <span class="version-box" title="The session's current version"><span class="label">version</span> <strong id="version"></strong></span>
  </div>
</header>

<main>
  <section class="card connect" id="connect" hidden>
    <h1>Inspect a session</h1>
    <p class="muted">The session is read from the page address: <code>/inspect#id=&lt;id&gt;&amp;token=&lt;token&gt;</code>.
      The part after <code>#</code> is never sent to a server, so the token stays out of logs.</p>
    <form id="open-form" class="stack" autocomplete="off">
      <label>Session id <input name="id" required spellcheck="false" placeholder="id, or a whole inspector link"></label>
      <label>Token <input name="token" type="password" spellcheck="false" placeholder="the token POST /sessions gave"></label>
      <button type="submit" class="primary">Open</button>
    </form>
    <div class="divider"><span>or</span></div>
    <form id="new-form" class="inline">
      <label>Start a new session of kind <select name="kind"></select></label>
      <button type="submit">Create and inspect</button>
    </form>
    <p class="error" id="connect-error" role="alert" hidden></p>
  </section>

  <div class="workspace" id="workspace" hidden>
    <section class="card state-card" aria-labelledby="state-heading">
      <header class="card-head">
        <h2 id="state-heading">State</h2>
        <span class="pill" id="viewing" data-mode="live">live</span>
        <span class="muted small" id="marks"></span>
        <span class="spacer"></span>
        <button type="button" class="ghost" id="expand-all">Expand all</button>
        <button type="button" class="ghost" id="collapse-all">Collapse all</button>
      </header>
      <div class="banner" id="banner" hidden>
        <span>Viewing version <strong id="banner-version"></strong>, read-only. The session is at version <strong id="live-version"></strong>.</span>
        <button type="button" id="back-live">Back to live</button>
      </div>
      <div class="tree" id="tree" aria-label="State tree"></div>
      <details class="raw" open>
        <summary>JSON</summary>
        <pre id="state"></pre>
      </details>
    </section>

    <div class="side">
      <section class="card" aria-labelledby="dispatch-heading">
        <header class="card-head"><h2 id="dispatch-heading">Dispatch</h2></header>
        <form id="dispatch" class="stack">
          <label>Type <select name="type"></select></label>
          <label>Payload <textarea name="payload" rows="3" spellcheck="false"></textarea></label>
          <p class="hint" id="payload-hint"></p>
          <div class="row">
            <button type="submit" class="primary">Dispatch</button>
            <span class="muted small">Ctrl+Enter</span>
            <span class="result" id="dispatch-result" role="status"></span>
          </div>
          <p class="error" id="dispatch-error" role="alert" hidden></p>
        </form>
      </section>

      <section class="card" aria-labelledby="travel-heading">
        <header class="card-head"><h2 id="travel-heading">Versions</h2></header>
        <form id="travel" class="row travel">
          <input type="range" name="at" min="0" max="0" value="0" aria-label="Version">
          <input type="number" name="version" min="0" value="0" aria-label="Version number">
          <button type="submit">View</button>
          <button type="button" id="go-live" class="ghost">Live</button>
        </form>
        <p class="error" id="travel-error" role="alert" hidden></p>
        <form id="diff" class="row diff">
          <label>Diff <input type="number" name="from" min="0" value="0" aria-label="From version"></label>
          <label>to <input type="number" name="to" min="0" value="0" aria-label="To version"></label>
          <button type="submit">Compare</button>
        </form>
        <p class="muted small" id="diff-caption"></p>
        <ol class="ops" id="diff-result"></ol>
        <p class="error" id="diff-error" role="alert" hidden></p>
      </section>

      <section class="card" aria-labelledby="outputs-heading">
        <header class="card-head"><h2 id="outputs-heading">Outputs</h2></header>
        <ol class="outputs" id="outputs"></ol>
        <p class="muted small" id="outputs-empty">None yet: outputs are one-off messages (a toast, a confirmation) the store emits as they happen.</p>
      </section>
    </div>

    <section class="card log-card" aria-labelledby="log-heading">
      <header class="card-head"><h2 id="log-heading">Action log</h2><span class="pill" id="log-count">0</span>
        <span class="muted small">oldest first · select a version to view its state</span></header>
      <p class="muted small" id="log-note" hidden></p>
      <ol class="log" id="log"></ol>
      <p class="muted small" id="log-empty">No action yet. Dispatch one, or POST to the session.</p>
    </section>
  </div>
</main>
"""##
}
