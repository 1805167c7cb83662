/// The sizes the parser refuses beyond; the server fills them from `HTTPServerConfiguration`.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Header field lines (and, separately, trailer lines) of one request, in bytes.
    public var maxHeaderBytes: Int
    public var maxHeaderCount: Int
    public var maxTargetBytes: Int
    public var maxBodyBytes: Int

    public init(maxHeaderBytes: Int = 16 << 10, maxHeaderCount: Int = 100,
                maxTargetBytes: Int = 8 << 10, maxBodyBytes: Int = 1 << 20) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxTargetBytes = maxTargetBytes
        self.maxBodyBytes = maxBodyBytes
    }
}
