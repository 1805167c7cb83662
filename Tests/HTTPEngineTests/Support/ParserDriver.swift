import HTTPEngine

/// What a parser produced for a byte sequence, comparable across ways of slicing the input.
enum ParseOutcome: Equatable, CustomStringConvertible {
    case request(method: String, target: String, body: String, keepAlive: Bool)
    case expectContinue
    case error(Int)

    var description: String {
        switch self {
        case .request(let m, let t, let b, let k): return "\(m) \(t) body=\(b.debugDescription) keepAlive=\(k)"
        case .expectContinue: return "100-continue"
        case .error(let s): return "error \(s)"
        }
    }
}

/// Feeds `bytes` to a fresh parser in slices of `slice` bytes (0 = all at once), keeping unconsumed bytes
/// the way a connection does; returns every event until the input ends or an error.
func drive(_ bytes: [UInt8], slice: Int = 0, limits: HTTPParserLimits = HTTPParserLimits()) -> [ParseOutcome] {
    var parser = HTTPRequestParser(limits: limits)
    var pending: [UInt8] = []
    var outcomes: [ParseOutcome] = []
    var offset = 0
    let step = slice == 0 ? max(bytes.count, 1) : slice
    while offset < bytes.count {
        let end = min(bytes.count, offset + step)
        pending.append(contentsOf: bytes[offset..<end])
        offset = end
        while true {
            let (consumed, event) = pending.withUnsafeBufferPointer { parser.parse($0) }
            pending.removeFirst(consumed)
            switch event {
            case .needMore:
                break
            case .expectContinue:
                outcomes.append(.expectContinue)
                continue
            case .request(let r):
                outcomes.append(.request(method: r.method, target: r.target, body: String(decoding: r.body, as: UTF8.self), keepAlive: r.keepAlive))
                continue
            case .error(let e):
                outcomes.append(.error(e.status))
                return outcomes
            }
            break
        }
    }
    return outcomes
}

func drive(_ text: String, slice: Int = 0, limits: HTTPParserLimits = HTTPParserLimits()) -> [ParseOutcome] {
    drive(Array(text.utf8), slice: slice, limits: limits)
}
