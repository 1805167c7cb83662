import HTTPEngine

/// What a browser loads (API.md "Inspector and browser client"): `/`, the inspector page, the
/// script and style it is built from, and the browser client. All of it is text compiled into
/// the binary, so the page works offline and loads nothing from another origin.
///
/// The router asks here only for a path no API route took, on its way to a 404: a session
/// request never reaches this code, and none of it is on the API's request path.
///
/// ```swift
/// let inspector = Inspector(kindsBody: kindsBody)   // the answer of GET /kinds
/// if let answer = inspector.answer(to: request) { exchange.send(answer) }
/// ```
struct Inspector: Sendable {
    /// The methods every path here answers.
    static let allow = "GET, HEAD, OPTIONS"

    /// `/` for browsers: it lists the server's kinds, so it is made once the kinds are known.
    let homePage: StaticAsset

    /// `kindsBody` is the `GET /kinds` answer: the home page lists what it lists.
    init(kindsBody: [UInt8]) {
        homePage = HomePage.html(kinds: HomePage.kinds(fromKindsBody: kindsBody))
    }

    /// The answer when `request`'s path is one of the browser's, nil otherwise.
    func answer(to request: HTTPRequest) -> HTTPResponse? {
        let path = request.path
        guard let asset = asset(at: path, accept: request.headers.combined("Accept")) else { return nil }
        switch request.method {
        case "GET", "HEAD":
            break
        case "OPTIONS":
            var headers = HTTPHeaders()
            headers.add("Allow", Self.allow)
            return HTTPResponse(status: 204, headers: headers, body: [])
        default:
            return Problem(405, "method-not-allowed", "\(request.method) is not allowed here; use \(Self.allow)",
                           headers: [("Allow", Self.allow)]).response()
        }
        // The page reads the session from the fragment, which never reaches a server; a query
        // (where a token would land in logs and history) is refused rather than silently dropped.
        if let name = request.queryItems().first?.name {
            return Problem(400, "unknown-parameter", "\(path) takes no query parameter, and '\(Problem.quote(name))' was given; "
                           + "the inspector reads the session from the fragment: /inspect#id=<id>&token=<token>",
                           extra: [("parameter", .string(Problem.quote(name)))]).response()
        }
        return asset.response(for: request, vary: path == "/" ? "Accept" : nil)
    }

    private func asset(at path: String, accept: String?) -> StaticAsset? {
        switch path {
        case "/": return HomePage.prefersHTML(accept: accept) ? homePage : HomePage.json
        case "/inspect": return InspectorPage.html
        case "/inspect.css": return InspectorStyle.css
        case "/inspect.js": return InspectorScript.js
        case "/client.js": return ClientModule.js
        case "/favicon.svg": return Favicon.svg
        default: return nil
        }
    }

    /// The policy of every page here: its scripts, style, icon and API calls come from this
    /// origin only, nothing inline, no plugins, no framing, forms post nowhere else.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Headers of an HTML page: the policy, and no `Referer` carrying the page's address elsewhere.
    static let pageHeaders: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("Referrer-Policy", "no-referrer"),
    ]
}
