extension Session {
    /// ``metadataJSON()`` appended to `out`: a listing page writes its thousand into one buffer.
    func appendMetadataJSON(to out: inout [UInt8]) {
        lock.withLock {
            SessionSummary.appendMetadataJSON(id: id, kind: kind.name, version: durableVersion, createdAt: createdAt, updatedAt: updatedAt,
                                              expiresAt: lifetime.expiresAt, subscribers: subscribers.count, resident: true,
                                              forkedFrom: forkedFrom, to: &out)
        }
    }
}
