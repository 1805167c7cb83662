import HTTPEngine

/// What a browser loads (API.md "Inspector and browser client"): `/`, the inspector page, the
/// script and style it is built from, and the browser client. All of it is text compiled into
/// the binary, so the page works offline and loads nothing from another origin.
///
/// The router asks here only for a path no API route took, on its way to a 404: a session
/// request never reaches this code, and none of it is on the API's request path.
///
/// ```swift
/// if let answer = Inspector.answer(to: request) { exchange.send(answer) }
/// ```
enum Inspector {
    /// The methods every path here answers.
    static let allow = "GET, HEAD, OPTIONS"

    /// The answer when `request`'s path is one of the browser's, nil otherwise.
    static func answer(to request: HTTPRequest) -> HTTPResponse? {
        let path = request.path
        guard let asset = asset(at: path, accept: request.headers.combined("Accept")) else { return nil }
        switch request.method {
        case "GET", "HEAD":
            break
        case "OPTIONS":
            var headers = HTTPHeaders()
            headers.add("Allow", allow)
            return HTTPResponse(status: 204, headers: headers, body: [])
        default:
            return Problem(405, "method-not-allowed", "\(request.method) is not allowed here; use \(allow)",
                           headers: [("Allow", allow)]).response()
        }
        // The page reads the session from the fragment, which never reaches a server; a query
        // (where a token would land in logs and history) is refused rather than silently dropped.
        if let name = request.queryItems().first?.name {
            return Problem(400, "unknown-parameter", "\(path) takes no query parameter, and '\(name)' was given; "
                           + "the inspector reads the session from the fragment: /inspect#id=<id>&token=<token>",
                           extra: [("parameter", .string(name))]).response()
        }
        return asset.response(for: request, vary: path == "/" ? "Accept" : nil)
    }

    private static func asset(at path: String, accept: String?) -> StaticAsset? {
        switch path {
        case "/": return HomePage.prefersHTML(accept: accept) ? HomePage.html : HomePage.json
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
