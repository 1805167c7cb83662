import StoreCore
import StoreKinds

/// What the registry keeps of a hibernated session (docs/API.md "Lifecycle"): enough to list it,
/// to expire it and to load it back, and nothing of its state, history or answers.
///
/// ```swift
/// let summary = session.hibernationSummary(expectedVersion: 7)   // nil while anything holds it
/// summary?.metadataJSON()   // {"id":…,"version":7,…,"resident":false}
/// ```
struct SessionSummary: Sendable {
    let id: String
    let kind: any StoreKind
    let tokenHash: [UInt8]
    let version: Int
    let createdAt: Int64
    let updatedAt: Int64
    /// The session's own: its expiry clock goes on while it sleeps, and comes back with it.
    let lifetime: SessionLifetime
    let forkedFrom: ForkOrigin?

    func metadataJSON() -> [UInt8] {
        Self.metadataJSON(id: id, kind: kind.name, version: version, createdAt: createdAt, updatedAt: updatedAt,
                          expiresAt: lifetime.expiresAt, subscribers: 0, resident: false, forkedFrom: forkedFrom)
    }

    /// `{"id","kind","version","createdAt","updatedAt","expiresAt","subscribers","resident","forkedFrom"?}`: a
    /// session's metadata, resident or not.
    static func metadataJSON(id: String, kind: String, version: Int, createdAt: Int64, updatedAt: Int64, expiresAt: Int64?,
                             subscribers: Int, resident: Bool, forkedFrom: ForkOrigin?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(224)
        appendMetadataJSON(id: id, kind: kind, version: version, createdAt: createdAt, updatedAt: updatedAt, expiresAt: expiresAt,
                           subscribers: subscribers, resident: resident, forkedFrom: forkedFrom, to: &out)
        return out
    }

    /// ``metadataJSON(id:kind:version:createdAt:updatedAt:expiresAt:subscribers:resident:forkedFrom:)`` appended to
    /// `out`: a listing page writes a thousand into one buffer.
    static func appendMetadataJSON(id: String, kind: String, version: Int, createdAt: Int64, updatedAt: Int64, expiresAt: Int64?,
                                   subscribers: Int, resident: Bool, forkedFrom: ForkOrigin?, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":""#.utf8)
        out.append(contentsOf: id.utf8)
        appendMembersAfterID(kind: kind, version: version, createdAt: createdAt, updatedAt: updatedAt, expiresAt: expiresAt,
                           subscribers: subscribers, resident: resident, forkedFrom: forkedFrom, to: &out)
    }

    /// The same, once the caller wrote `{"id":"` and the id (a packed id writes its own bytes).
    static func appendMembersAfterID(kind: String, version: Int, createdAt: Int64, updatedAt: Int64, expiresAt: Int64?,
                                     subscribers: Int, resident: Bool, forkedFrom: ForkOrigin?, to out: inout [UInt8]) {
        out.append(contentsOf: #"","kind":""#.utf8)
        out.append(contentsOf: kind.utf8)
        out.append(contentsOf: #"","version":"#.utf8)
        out.append(contentsOf: String(version).utf8)
        out.append(contentsOf: #","createdAt":""#.utf8)
        Timestamp.append(millis: createdAt, to: &out)
        out.append(contentsOf: #"","updatedAt":""#.utf8)
        Timestamp.append(millis: updatedAt, to: &out)
        out.append(contentsOf: #"","expiresAt":"#.utf8)
        if let expiresAt {
            out.append(UInt8(ascii: "\""))
            Timestamp.append(millis: expiresAt, to: &out)
            out.append(UInt8(ascii: "\""))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","subscribers":"#.utf8)
        out.append(contentsOf: String(subscribers).utf8)
        out.append(contentsOf: resident ? #","resident":true"#.utf8 : #","resident":false"#.utf8)
        if let forkedFrom {
            out.append(contentsOf: #","forkedFrom":"#.utf8)
            out += forkedFrom.json.encoded()
        }
        out.append(UInt8(ascii: "}"))
    }
}
