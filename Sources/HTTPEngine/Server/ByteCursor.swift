/// Writes bytes at a pointer into memory the caller sized for all of them (`ResponseEncoder.encode`).
struct ByteCursor {
    private var at: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { at = start }

    @inline(__always) mutating func write(_ byte: UInt8) {
        at.initialize(to: byte)
        at += 1
    }

    @inline(__always) mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        at.initialize(from: base, count: bytes.count)
        at += bytes.count
    }

    @inline(__always) mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// A non-negative number in decimal.
    mutating func writeDecimal(_ n: Int) {
        var digits = 1, v = n
        while v >= 10 { v /= 10; digits += 1 }
        v = n
        for i in stride(from: digits - 1, through: 0, by: -1) {
            (at + i).initialize(to: UInt8(48 + v % 10))
            v /= 10
        }
        at += digits
    }

    func count(from start: UnsafeMutablePointer<UInt8>) -> Int { at - start }
}
