/// The frame of every HTML page here: the same head (viewport, both color schemes, the icon and
/// the style sheet), a body class the style sheet keys on, and at most one script, from this origin.
///
/// ```swift
/// PageShell.document(title: "Storehouse", bodyClass: "home", script: nil, body: "<main>…</main>")
/// ```
enum PageShell {
    static func document(title: String, bodyClass: String, script: String?, body: String) -> String {
        let scriptTag = script.map { "<script type=\"module\" src=\"\($0)\"></script>\n" } ?? ""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(title)</title>
            <link rel="icon" href="/favicon.svg" type="image/svg+xml">
            <link rel="stylesheet" href="/inspect.css">
            \(scriptTag)</head>
            <body class="\(bodyClass)">
            \(body)</body>
            </html>

            """
    }
}
