extension StoreState {
    /// The state read from `reader`: by `init(reading:)` when the state is `JSONStreamDecodable`
    /// (no `JSONValue` of it), else through `init(json:path:)`.
    ///
    ///     let state = try JSONStreamReader.read(bytes) { (r) throws(StateDecodingError) in try TasksState.read(from: &r) }
    public static func read(from reader: inout JSONStreamReader) throws(StateDecodingError) -> Self {
        if let streamed = Self.self as? any JSONStreamDecodable.Type {
            guard let state = try streamed.init(reading: &reader) as? Self else {
                throw StateDecodingError(path: "", message: "\(Self.self) read as another type")
            }
            return state
        }
        return try Self(json: reader.readValue(), path: "")
    }
}
