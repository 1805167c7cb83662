import StoreCore

/// `GET /`: what this server is. A browser gets a page with the kinds and a way into the
/// inspector; any other client gets JSON with the links to follow.
enum HomePage {
    /// Proactive negotiation (RFC 9110 §12.5.1): HTML only when `text/html` is asked for with a
    /// higher weight than JSON (a browser's Accept); `*/*`, no Accept or a tie give JSON.
    static func prefersHTML(accept: String?) -> Bool {
        guard let accept else { return false }
        var html = 0.0, json = 0.0, any = 0.0
        for member in accept.split(separator: ",") {
            let parts = member.split(separator: ";").map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            guard let type = parts.first else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            switch type {
            case "text/html", "application/xhtml+xml": html = max(html, weight)
            case "application/json": json = max(json, weight)
            case "*/*", "application/*": any = max(any, weight)
            default: break
            }
        }
        return html > max(json, any)
    }

    static let json = StaticAsset(contentType: "application/json", text: """
        {"name":"\(ServerInfo.name)","version":"\(ServerInfo.version)","links":{\
        "inspector":"/inspect","client":"/client.js","kinds":"/kinds","sessions":"/sessions",\
        "health":"/healthz","ready":"/readyz","metrics":"/metrics"}}
        """)

    /// A kind as the page shows it.
    struct KindSummary: Equatable {
        let name: String
        let actionTypes: [String]
        let internalActionTypes: [String]
    }

    /// The kinds in the `GET /kinds` answer, in its order (the server's own bytes, so never malformed;
    /// a member that is not there shows as none).
    static func kinds(fromKindsBody body: [UInt8]) -> [KindSummary] {
        guard case .array(let kinds)? = (try? JSONReader.parse(body))?["kinds"] else { return [] }
        func strings(_ value: JSONValue?) -> [String] {
            guard case .array(let items)? = value else { return [] }
            return items.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        }
        return kinds.compactMap { kind in
            guard case .string(let name)? = kind["name"] else { return nil }
            return KindSummary(name: name, actionTypes: strings(kind["actionTypes"]), internalActionTypes: strings(kind["internalActionTypes"]))
        }
    }

    static func html(kinds: [KindSummary]) -> StaticAsset {
        StaticAsset(contentType: "text/html; charset=utf-8", text: page(kinds: kinds), extraHeaders: Inspector.pageHeaders)
    }

    static func page(kinds: [KindSummary]) -> String {
        var cards = ""
        for kind in kinds {
            let name = escape(kind.name)
            let actions = kind.actionTypes.map { "<li><code>\(escape($0))</code></li>" }.joined()
            let effects = kind.internalActionTypes.isEmpty ? "" : """
                <p class="muted small">Effects also send \(kind.internalActionTypes.map { "<code>\(escape($0))</code>" }.joined(separator: ", ")).</p>
                """
            cards += """
                <article class="card kind">
                  <header><h3>\(name)</h3><a class="button" href="/inspect#new=\(name)">New session</a></header>
                  <ul class="actions">\(actions)</ul>
                  \(effects)
                </article>

                """
        }
        return PageShell.document(title: "Storehouse", bodyClass: "home", script: nil, body: """
            <header class="bar">
              <a class="brand" href="/"><span class="logo" aria-hidden="true"></span>Storehouse</a>
              <span class="crumb">\(ServerInfo.version)</span>
              <nav class="links"><a href="/inspect">Inspector</a><a href="/kinds">Kinds</a><a href="/metrics">Metrics</a></nav>
            </header>
            <main class="prose">
              <section class="intro">
                <h1>One store per session, over HTTP</h1>
                <p>This is a Storehouse server. Each session holds one store: a typed state, actions, a pure reducer
                and effects that feed actions back. Clients <code>POST</code> actions, read the state and follow its
                changes as server-sent events with RFC 6902 patches; every action is journaled.</p>
                <p><a class="button primary" href="/inspect">Open the inspector</a>
                <span class="muted">to watch a session live, step through its versions and dispatch actions.</span></p>
              </section>
              <section>
                <h2>Kinds</h2>
                <div class="kinds">
            \(cards)    </div>
              </section>
              <section>
                <h2>From a program</h2>
                <pre>curl -s -X POST "$STOREHOUSE/sessions" -d '{"kind":"counter"}'
            # {"id":"…","kind":"counter","token":"…","version":0,"state":{…}}</pre>
                <p>From a page of your own: <code>import { connect } from "/client.js"</code>
                (<a href="/client.js">the module</a>). Asked without <code>Accept: text/html</code>,
                this address answers JSON with the links.</p>
              </section>
            </main>

            """)
    }

    /// Text as HTML content or a quoted attribute value.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
