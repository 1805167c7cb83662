extension HistoryWindow {
    /// Ends the history window where it has to end: by bytes, then at a kept state (`align`);
    /// then lets go of the kept states older than the window needs. The host calls it whenever
    /// the window's end can move: a version made durable or published, and recovery.
    ///
    /// Past `byteLimit` the oldest actions leave the window. The cut moves up to a kept state,
    /// so every version left can still be rebuilt (`?version=`, replayed answers), and never past
    /// the kept state a rollback to the last durable version starts from, nor past a version the
    /// subscribers have not been sent yet (a fan-out waiting on its queue).
    ///
    /// Inlined into the host, which calls it on every publication: the usual case is a few loads.
    @inlinable
    public mutating func trim(durable: Int, published: Int, byteLimit: Int) {
        // The usual case, in O(1): the window fits its bytes and starts just after the oldest kept
        // state, and the next kept state is not yet before the window's start. Then nothing
        // leaves: `versionToDropThrough` has nothing to drop, neither branch of `align` applies,
        // and no kept state is older than the window needs.
        if let first = history.firstVersion, keptStates.states.first?.version == first - 1, history.bytes <= byteLimit {
            let windowStart = min(durable, published) - length
            if keptStates.states.count < 2 || keptStates.states[1].version > windowStart { return }
        }
        cut(durable: durable, published: published, byteLimit: byteLimit)
    }

    /// `trim` past its usual case.
    @usableFromInline
    mutating func cut(durable: Int, published: Int, byteLimit: Int) {
        defer {
            align(durable: durable, published: published)
            if let oldest = history.firstVersion { keptStates.trim(keeping: oldest - 1) }
        }
        guard let needed = history.versionToDropThrough(toFit: byteLimit) else { return }
        let keep = min(durable, published)
        let floor = keptStates.nearest(atOrBefore: keep)?.version ?? keep
        let aligned = keptStates.states.first { $0.version >= needed }?.version ?? needed
        history.drop(through: min(aligned, floor))
    }

    /// Lets the versions before the `--history` window leave the ring only through a kept state:
    /// the ring then starts just after one, so every version the action log and resume offer can
    /// also be read with `?version=`, which replays from a kept state. Letting them go one at a
    /// time left up to a keep interval at the window's start that the log listed and `?version=`
    /// answered 404. The ring holds `--history` to `--history` + `keepEvery` durable, published
    /// versions, and those not yet durable or published besides.
    ///
    /// With large states the kept states' budget lets the oldest go, and none may reach back to
    /// the window's start; the ring is then cut at the oldest kept state it still reaches from,
    /// as the 64 MiB trim of large actions cuts it: the window ends sooner, and the log still
    /// lists nothing `?version=` cannot read. Never past what a rollback or a publication needs.
    private mutating func align(durable: Int, published: Int) {
        guard let first = history.firstVersion else { return }
        let floor = min(durable, published)
        let windowStart = floor - length
        if first <= windowStart, let base = keptStates.nearest(atOrBefore: windowStart)?.version, base >= first {
            history.drop(through: base)
        } else if let base = keptStates.states.first(where: { $0.version >= first - 1 })?.version, base >= first, base <= floor {
            // The versions before `base` cannot be rebuilt: no kept state reaches them.
            history.drop(through: base)
        }
    }
}
