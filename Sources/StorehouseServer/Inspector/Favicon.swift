/// `GET /favicon.svg`: the pages' icon.
enum Favicon {
    static let svg = StaticAsset(contentType: "image/svg+xml", text: svgText)

    private static let svgText = ##"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#3b5bdb"/><rect x="7" y="7" width="18" height="5" rx="1.5" fill="#fff"/><rect x="7" y="13.5" width="18" height="5" rx="1.5" fill="#fff" fill-opacity=".8"/><rect x="7" y="20" width="18" height="5" rx="1.5" fill="#fff" fill-opacity=".6"/></svg>
"""##
}
