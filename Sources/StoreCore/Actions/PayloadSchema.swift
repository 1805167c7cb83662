/// JSON Schemas (draft 2020-12) of action and output payloads, as `GET /kinds` shows them: a
/// client, a form or a code generator learns what each type takes without reading the Swift.
///
/// ```swift
/// PayloadSchema.object(["id": PayloadSchema.integer, "title": PayloadSchema.string])
/// // {"type":"object","properties":{…},"required":["id","title"]}
/// ```
public enum PayloadSchema {
    public static let string: JSONValue = .object(["type": .string("string")])
    public static let integer: JSONValue = .object(["type": .string("integer")])
    public static let boolean: JSONValue = .object(["type": .string("boolean")])

    public static func array(of items: JSONValue) -> JSONValue {
        .object(["type": .string("array"), "items": items])
    }

    /// An object with these members, each required unless named in `optional`. Other members are
    /// allowed: the decoders ignore them.
    public static func object(_ properties: [String: JSONValue], optional: Set<String> = []) -> JSONValue {
        .object([
            "type": .string("object"),
            "properties": .object(properties),
            "required": .array(properties.keys.filter { !optional.contains($0) }.sorted().map(JSONValue.string)),
        ])
    }

    /// `schema` or null.
    public static func nullable(_ schema: JSONValue) -> JSONValue {
        .object(["anyOf": .array([schema, .object(["type": .string("null")])])])
    }
}

/// One type of a kind's one-off outputs (`event: output`), as `GET /kinds` lists it.
public struct OutputType: Sendable, Equatable {
    public let type: String
    /// nil when the output carries no payload.
    public let payloadSchema: JSONValue?

    public init(_ type: String, payloadSchema: JSONValue? = nil) {
        self.type = type
        self.payloadSchema = payloadSchema
    }
}
