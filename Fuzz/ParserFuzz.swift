// libFuzzer target for HTTPRequestParser, built by scripts/fuzz-parser.sh with
// `swiftc -sanitize=fuzzer,address` straight from the parser sources (not a SwiftPM target).
//
// Each input is parsed three ways: whole, split at a point chosen by the input, and byte by byte,
// under small limits (so every limit path is reachable) and under the defaults. Besides any trap
// or sanitizer report, a difference between the three is a crash: the parser's verdict must not
// depend on how the network slices the bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let small = HTTPParserLimits(maxHeaderBytes: 256, maxHeaderCount: 8, maxTargetBytes: 64, maxBodyBytes: 128)
    for limits in [small, HTTPParserLimits()] {
        let whole = fuzzDrive(bytes, slices: [bytes.count], limits: limits)
        let cut = size == 0 ? 0 : Int(bytes[0]) % (size + 1)
        let split = fuzzDrive(bytes, slices: [cut, size - cut], limits: limits)
        if whole != split { fatalError("split at \(cut) changed the verdict: \(whole) vs \(split)") }
        if size <= 256 {
            let single = fuzzDrive(bytes, slices: Array(repeating: 1, count: size), limits: limits)
            if whole != single { fatalError("byte-by-byte changed the verdict: \(whole) vs \(single)") }
        }
    }
    return 0
}

func fuzzDrive(_ bytes: [UInt8], slices: [Int], limits: HTTPParserLimits) -> [String] {
    var parser = HTTPRequestParser(limits: limits)
    var pending: [UInt8] = []
    var outcomes: [String] = []
    var offset = 0
    for slice in slices {
        pending.append(contentsOf: bytes[offset..<(offset + slice)])
        offset += slice
        while true {
            let (consumed, event) = pending.withUnsafeBufferPointer { parser.parse($0) }
            if consumed < 0 || consumed > pending.count { fatalError("consumed \(consumed) of \(pending.count)") }
            pending.removeFirst(consumed)
            switch event {
            case .needMore:
                break
            case .expectContinue:
                outcomes.append("100")
                continue
            case .request(let r):
                if r.body.count > limits.maxBodyBytes { fatalError("body over the limit") }
                outcomes.append("\(r.method) \(r.target) \(r.path) \(r.query ?? "-") \(r.headers.count) \(r.body) \(r.keepAlive)")
                _ = r.queryItems()
                continue
            case .error(let e):
                outcomes.append("error \(e.status)")
                return outcomes
            }
            break
        }
    }
    return outcomes
}
