/// Rebuilds one session from its files (runs on recovery worker threads; touches only that session's files).
struct SessionRecovery {
    struct Files {
        var id: String
        var segments: [Int] = []
        var snapshot = false
        var snapshotTemp = false
        var previousSnapshot = false
    }

    enum Outcome {
        /// With a warning when the session did not start from its newest snapshot.
        case recovered(RecoveredSession, RecoveredFiles, warning: String?)
        case failed(id: String, reason: String, RecoveredFiles)
        case discarded
        /// Recovered and handed to the caller as it was read (`Journal.recover(each:)`): only
        /// the files are kept, for the writer to adopt.
        case handedOn(id: String, RecoveredFiles, warning: String?)
        /// Recovered, handed on and parked by the caller: the writer does not open it.
        case parked(id: String, warning: String?)
    }

    let disk: Disk
    var stats = JournalRecovery.Stats()

    init(disk: Disk) {
        self.disk = disk
    }

    mutating func recover(_ files: Files) -> Outcome {
        let id = files.id
        let segments = files.segments.sorted()
        var infos: [(seq: Int, maxVersion: Int?)] = segments.map { ($0, nil) }
        var meta: [UInt8]?
        func failed(_ reason: String) -> Outcome {
            // The meta record still says whose session it is (the server keeps it answering its owner).
            // Every segment, a torn creation included: the writer only ever deletes a failed session's files.
            .failed(id: id, reason: reason, RecoveredFiles(id: id, meta: meta ?? metaRecord(id, segments) ?? [],
                                                           segments: segments.map { (seq: $0, maxVersion: nil) },
                                                           hasSnapshot: files.snapshot, snapshotVersion: nil,
                                                           lastSegmentSize: 0, lastSegmentAllocated: 0, lastVersion: nil, failure: reason))
        }
        // Changes to the files wait until the session is known to recover: a failed session's
        // files stay exactly as they were, for inspection.
        var repairs: [Repair] = []
        if files.snapshotTemp { repairs.append(.unlink(FileNames.snapshotTemp(id))) }

        // The newest snapshot, or the one before it when the newest is damaged: a snapshot keeps
        // every segment after the one it replaced, so `.prev` plus the segments is complete.
        var snapshot: (version: Int, bytes: [UInt8])?
        var damaged: String?
        if files.snapshot {
            switch readSnapshot(FileNames.snapshot(id)) {
            case .success(let s): snapshot = s
            case .failure(.unreadable(let reason)): return failed(reason)  // not damage: no reason to go back
            case .failure(.damaged(let reason)): damaged = "snapshot \(FileNames.snapshot(id)) is corrupt: \(reason)"
            }
        }
        if snapshot == nil, files.previousSnapshot {
            switch readSnapshot(FileNames.snapshotPrevious(id)) {
            case .success(let s): snapshot = s
            case .failure(.unreadable(let reason)): return failed(reason)
            case .failure(.damaged(let reason)):
                let previous = "snapshot \(FileNames.snapshotPrevious(id)) is corrupt: \(reason)"
                damaged = damaged.map { $0 + "; " + previous } ?? previous
            }
        }
        // Without any snapshot the records must reach back to the first one: no segment was ever
        // compacted, so they are 1, 2, … with none missing (a compaction's unlinks may reach the
        // disk in any order, so segment 1 alone proves nothing).
        if damaged != nil, snapshot == nil, segments.isEmpty || segments != Array(1...segments.count) {
            return failed((damaged ?? "") + "; the records before it were compacted")
        }

        var records: [(version: Int, bytes: [UInt8])] = []
        var last: Int? = snapshot?.version
        var lastSegmentSize = 0
        /// The newest segment's length on disk: its records, then zeros the writer preallocated.
        var lastSegmentAllocated = 0
        /// Where each segment's records end (its zero tail, if any, begins there).
        var recordEnds: [Int] = []
        var dropLastSegment = false
        var tornWarning: String?
        var tornCopy = ""
        let snapshotVersion = snapshot?.version ?? Int.min

        for (index, seq) in segments.enumerated() {
            let isLast = index == segments.count - 1
            let name = FileNames.segment(id, seq)
            let bytes: [UInt8]
            do { bytes = try disk.readAll(name) } catch { return failed("\(error)") }
            stats.files += 1
            stats.bytes += bytes.count

            /// `torn`'s last value: where the torn write's group-end frame ends, when it landed.
            enum End { case clean(Int), torn(Int, String, Int?), corrupt(Int, String), gap(Int, Int) }
            var segMax: Int?
            let end: End = bytes.withUnsafeBytes { buf -> End in
                var offset = 0
                var committed = 0
                /// The segment's format, from its meta record.
                var format: UInt8 = 0
                var batch: [(Int, Range<Int>)] = []
                while offset < buf.count {
                    // Zeros to the end are space the writer preallocated (under `always`, so a sync
                    // need not also write the file's new size): the records end here.
                    if buf[offset] == 0, Frame.onlyZeros(in: buf, from: offset) { break }
                    switch Frame.parse(buf, at: offset) {
                    case .failure(let e):
                        // A power cut can land a write's pages in any order, so the valid frames
                        // of a torn last write may follow its bad ones. Damage is a bad frame that
                        // a later write found synced (format 2's group-end frames say how far);
                        // format 1 can only ask whether anything valid follows. A bad meta record
                        // leaves the format unknown: its creation's group-end frame tells.
                        let groupEnds = format >= 2 || (format == 0 && Frame.groupEndExists(in: buf, after: offset))
                        if groupEnds {
                            if Frame.syncedPast(offset, in: buf) { return .corrupt(offset, e.reason) }
                            return .torn(committed, e.reason, Frame.lastGroupEndEnd(in: buf, after: offset))
                        }
                        if Frame.validFrameExists(in: buf, after: offset) { return .corrupt(offset, e.reason) }
                        return .torn(committed, e.reason, nil)
                    case .success(let f):
                        if offset == 0 {
                            guard f.kind == .meta else { return .corrupt(0, "segment does not start with a meta record") }
                            if meta == nil { meta = [UInt8](UnsafeRawBufferPointer(rebasing: buf[f.payload])) }
                            format = f.format
                            committed = f.end
                        } else {
                            switch f.kind {
                            case .meta, .snapshot:
                                return .corrupt(offset, "unexpected record kind \(f.kind.rawValue)")
                            case .groupEnd:
                                if batch.isEmpty { committed = f.end }
                            case .recordMore:
                                batch.append((f.version, f.payload))
                            case .recordEnd:
                                batch.append((f.version, f.payload))
                                for (v, range) in batch {
                                    segMax = v
                                    if let l = last, v <= l {
                                        if v <= snapshotVersion { continue }
                                        // A later write of the same version wins (an append refused after its bytes reached the file).
                                        while let r = records.last, r.version >= v { records.removeLast() }
                                    } else if let l = last, v != l + 1 {
                                        return .gap(l, v)
                                    }
                                    records.append((v, [UInt8](UnsafeRawBufferPointer(rebasing: buf[range]))))
                                    last = v
                                }
                                batch.removeAll(keepingCapacity: true)
                                committed = f.end
                            }
                        }
                        offset = f.end
                    }
                }
                if !batch.isEmpty { return .torn(committed, "append interrupted before its last record", nil) }
                return .clean(offset)
            }
            infos[index].maxVersion = segMax
            switch end {
            case .clean(0):
                // Empty or zeros only, not even a meta record: `rotate` (or a creation) made the
                // file and a crash came before its first write reached the disk. Kept, appends
                // would follow no meta record and the next recovery would find the segment corrupt.
                guard isLast else { return failed("\(name): a segment with no records that is not the newest") }
                stats.tornTails += 1
                repairs.append(.unlink(name))
                dropLastSegment = true
            case .clean(let end):
                lastSegmentSize = end
                lastSegmentAllocated = bytes.count
                recordEnds.append(end)
            case .gap(let l, let v):
                return failed("\(name): version \(v) follows \(l) (records missing)")
            case .corrupt(let offset, let reason):
                return failed("\(name): corrupt record at byte \(offset) with valid records after it: \(reason)")
            case .torn(let committed, let reason, let landedEnd):
                guard isLast else {
                    return failed("\(name): torn record at byte \(committed) in a segment that is not the newest: \(reason)")
                }
                stats.tornTails += 1
                if let end = landedEnd, committed > 0, end > committed {
                    // Torn (never synced, so never acknowledged) or damage to the last write,
                    // which no later write vouches for: the two look alike. Cut as torn, the
                    // bytes are kept beside the segment rather than lost.
                    let copy = FileNames.tornCopy(id, seq)
                    repairs.append(.keep(copy, Array(bytes[committed..<end])))
                    tornWarning = "\(name): cut a torn write at byte \(committed) (\(reason)) whose end had reached the disk; its \(end - committed) bytes"
                    tornCopy = copy
                }
                if committed == 0 {
                    // The segment's meta record never became durable: it was being created.
                    repairs.append(.unlink(name))
                    dropLastSegment = true
                } else {
                    repairs.append(.truncate(name, committed))
                    lastSegmentSize = committed
                    lastSegmentAllocated = committed
                    recordEnds.append(committed)
                }
            }
        }
        if dropLastSegment { infos.removeLast() }
        guard let meta, !infos.isEmpty else {
            if snapshot == nil && damaged == nil {
                stats.discardedSessions += 1
                for name in [FileNames.snapshot(id), FileNames.snapshotPrevious(id), FileNames.snapshotCorrupt(id)] {
                    repairs.append(.unlink(name))
                }
                var notKept: String?
                if let reason = apply(repairs, notKept: &notKept) { return failed(reason) }
                return .discarded
            }
            return failed("no segment with a meta record next to the snapshot")
        }
        if dropLastSegment {
            // The previous segment becomes the current one again; its size is its file size.
            if let prev = infos.last, let size = try? disk.readAll(FileNames.segment(id, prev.seq)).count, let end = recordEnds.last {
                lastSegmentSize = end
                lastSegmentAllocated = size
            }
        }
        if let s = snapshot, let first = records.first, first.version != s.version + 1 {
            return failed("record \(first.version) follows snapshot \(s.version) (records missing)")
        }
        if snapshot == nil, damaged != nil, let first = records.first, first.version != 1 {
            return failed((damaged ?? "") + "; the first record is \(first.version)")
        }
        var notKept: String?
        if let reason = apply(repairs, notKept: &notKept) { return failed(reason) }
        var warning = tornWarning.map { $0 + (notKept.map { " could not be kept in \(tornCopy) (\($0))" } ?? " are kept in \(tornCopy)") }
        if let damaged {
            // Kept aside for inspection: the next snapshot must not take it for the previous one.
            if files.snapshot {
                do { try disk.rename(FileNames.snapshot(id), FileNames.snapshotCorrupt(id)) } catch { return failed("\(error)") }
            }
            warning = (warning.map { $0 + "; " } ?? "") + damaged + (snapshot.map { "; recovered from the previous snapshot (version \($0.version))" }
                                 ?? "; recovered from the first record") + ", \(records.count) records after it"
        }
        stats.records += records.count
        let session = RecoveredSession(id: id, meta: meta, snapshot: snapshot, records: records)
        let files = RecoveredFiles(id: id, meta: meta, segments: infos, hasSnapshot: files.snapshot && damaged == nil,
                                   snapshotVersion: snapshot?.version,
                                   lastSegmentSize: lastSegmentSize, lastSegmentAllocated: lastSegmentAllocated,
                                   lastVersion: last, failure: nil)
        return .recovered(session, files, warning: warning)
    }

    /// The meta record at the start of the newest segment that has one, for a session that failed
    /// before its segments were read.
    private func metaRecord(_ id: String, _ segments: [Int]) -> [UInt8]? {
        for seq in segments.reversed() {
            let name = FileNames.segment(id, seq)
            // The first frame only: its length, then its header and body (a segment can be large).
            guard let head = try? disk.readAll(name, limit: Frame.headerSize), head.count == Frame.headerSize else { continue }
            let length = Int(head[0]) | Int(head[1]) << 8 | Int(head[2]) << 16 | Int(head[3]) << 24
            guard length <= Frame.maxBody, let bytes = try? disk.readAll(name, limit: Frame.headerSize + length) else { continue }
            let meta = bytes.withUnsafeBytes { buf -> [UInt8]? in
                guard case .success(let f) = Frame.parse(buf, at: 0), f.kind == .meta else { return nil }
                return [UInt8](UnsafeRawBufferPointer(rebasing: buf[f.payload]))
            }
            if let meta { return meta }
        }
        return nil
    }

    /// A change to a recovering session's files, made only once it is known to recover.
    enum Repair {
        case unlink(String)
        case truncate(String, Int)
        /// Bytes cut off, appended to a file for inspection (synced before the cut is made).
        case keep(String, [UInt8])
    }

    /// Makes the repairs; the reason the session fails when one cannot be made. A copy that could
    /// not be kept is said in `notKept` instead.
    private func apply(_ repairs: [Repair], notKept: inout String?) -> String? {
        for repair in repairs {
            switch repair {
            case .unlink(let name): disk.unlink(name)
            case .truncate(let name, let size):
                do { try disk.truncateFile(name, to: size) } catch { return "\(error)" }
            case .keep(let name, let cut):
                // Best effort: the cut is made either way (a full disk must not fail a session
                // that only has a torn tail), and the warning says whether the bytes were kept.
                // A recovery that kept them and crashed before its cut does not keep them twice.
                let kept = try? disk.readAll(name)
                if let kept, kept.count >= cut.count, kept.suffix(cut.count).elementsEqual(cut) { continue }
                do {
                    let fd = try disk.openAppending(name)
                    defer { disk.close(fd) }
                    try disk.write(fd, cut, at: 0, name: name)
                    try disk.dataSync(fd, name: name)
                } catch {
                    notKept = "\(error)"
                    if kept == nil { disk.unlink(name) }  // no empty copy left behind
                }
            }
        }
        return nil
    }

    /// Why a snapshot file was not used: damaged bytes (go back to an older one) or a failed read
    /// (the session fails: its snapshot may be fine).
    enum SnapshotProblem: Error {
        case damaged(String)
        case unreadable(String)
    }

    /// One snapshot file: a single snapshot frame, nothing after it.
    private mutating func readSnapshot(_ name: String) -> Result<(version: Int, bytes: [UInt8]), SnapshotProblem> {
        let bytes: [UInt8]
        do { bytes = try disk.readAll(name) } catch { return .failure(.unreadable("\(error)")) }
        stats.files += 1
        stats.bytes += bytes.count
        return bytes.withUnsafeBytes { buf in
            switch Frame.parse(buf, at: 0) {
            case .failure(let e): return .failure(.damaged(e.reason))
            case .success(let f):
                guard f.kind == .snapshot, f.end == buf.count else { return .failure(.damaged(Frame.Invalid.badKind(f.kind.rawValue).reason)) }
                return .success((f.version, [UInt8](UnsafeRawBufferPointer(rebasing: buf[f.payload]))))
            }
        }
    }
}
