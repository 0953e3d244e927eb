import Foundation

/// A response a NetLayerTesting double answers with, made from a status, header fields and a body.
/// It gives ``StubResponse`` and ``LoopbackResponse`` the same shorthands: `.json`, `.text`, `.data`.
public protocol ScriptedResponse: Sendable {
    /// Creates a response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: Name and value pairs, in order; names may repeat.
    ///   - body: The body.
    init(status: Int, headers: [(String, String)], body: Data)
}

extension ScriptedResponse {
    /// A JSON body with `Content-Type: application/json`.
    /// - Parameters:
    ///   - text: The JSON text, sent as UTF-8.
    ///   - status: Default 200.
    public static func json(_ text: String, status: Int = 200) -> Self {
        Self(status: status, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
    }

    /// A JSON body encoded from a value, with `Content-Type: application/json`.
    /// - Parameters:
    ///   - value: The value.
    ///   - status: Default 200.
    ///   - encoder: Default a plain `JSONEncoder`.
    /// - Throws: The encoder's error.
    public static func json<Value: Encodable>(
        encoding value: Value, status: Int = 200, encoder: JSONEncoder = JSONEncoder()
    ) throws -> Self {
        Self(status: status, headers: [("Content-Type", "application/json")], body: try encoder.encode(value))
    }

    /// A text body with `Content-Type: text/plain; charset=utf-8`.
    /// - Parameters:
    ///   - text: The text, sent as UTF-8.
    ///   - status: Default 200.
    public static func text(_ text: String, status: Int = 200) -> Self {
        Self(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// Raw bytes.
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: Default `application/octet-stream`.
    ///   - status: Default 200.
    public static func data(
        _ data: Data, contentType: String = "application/octet-stream", status: Int = 200
    ) -> Self {
        Self(status: status, headers: [("Content-Type", contentType)], body: data)
    }
}
