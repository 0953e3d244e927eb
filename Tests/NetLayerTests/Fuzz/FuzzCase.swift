import Foundation

/// One generated call: everything a caller passes to a target and to `makeExecutor`.
///
/// The case holds inputs only. Where params go and what a server should read is derived from
/// DESIGN by ``FuzzExpectation`` and ``FuzzRefusal``, so a shrunk case is judged by the same rules
/// as the original.
struct FuzzCase: Sendable {
    /// `GET`, `DELETE` (query methods) or `POST`, `PUT`, `PATCH`.
    var method: String
    var encoding: FuzzEncoding = .automatic
    /// Params of the target (`Target.init(params:)`); the call's win per top-level key.
    var targetParams: [FuzzEntry] = []
    /// Params of the call (`makeExecutor(params:)`).
    var params: [FuzzEntry] = []
    /// Header fields at the target and call levels, `Content-Type` included.
    var headers: [FuzzHeader] = []
    var pathStyle: FuzzPathStyle = .colon
    /// The path part is keyed `":id"` instead of `"id"`.
    var pathKeyWithColon = false
    var pathValue: FuzzPathValue = .string("x")
    var files: [FuzzFile] = []
    var body: FuzzBody?

    /// The path template after the fixed `/fuzz/<tag>` prefix: `:id`, `{id}` or `v-{id}.x`.
    var templateSegment: String {
        switch pathStyle {
        case .colon: ":id"
        case .braces: "{id}"
        case .bracesInside: "v-{id}.x"
        }
    }

    /// The path segment a server should decode, DESIGN §3: the value fills the token exactly once.
    var expectedSegment: String {
        switch pathStyle {
        case .colon, .braces: pathValue.text
        case .bracesInside: "v-" + pathValue.text + ".x"
        }
    }

    /// Headers of one level, in order.
    func headers(at level: FuzzLevel) -> [FuzzHeader] {
        headers.filter { $0.level == level }
    }
}

/// The `placement:` argument.
enum FuzzEncoding: String, Sendable {
    case automatic, json, multipart
}

/// Where a header is set.
enum FuzzLevel: String, Sendable {
    case target, call
}

struct FuzzHeader: Sendable {
    var level: FuzzLevel
    var name: String
    var value: String
}

enum FuzzPathStyle: Sendable {
    case colon, braces, bracesInside
}

/// The value for the `id` path part.
enum FuzzPathValue: Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)

    /// The text DESIGN puts in the segment (before percent-encoding).
    var text: String {
        switch self {
        case .string(let text): text
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }

    var swiftSource: String {
        switch self {
        case .string(let text): text.fuzzLiteral
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        }
    }
}

/// A multipart file part, `FilePart.data(_:filename:contentType:)`.
struct FuzzFile: Sendable {
    /// The key in `files:`, which is the part's field name.
    var field: String
    var filename: String
    /// Nil: NetLayer guesses from the filename's extension.
    var contentType: String?
    var data: [UInt8]
}

/// An explicit body, `Body.data(_:contentType:)`.
struct FuzzBody: Sendable {
    var data: [UInt8]
    var contentType: String?
}

// MARK: - Printing

extension FuzzCase {
    /// The call as Swift source a person can paste into a test, every string shown with
    /// ``Swift/String/fuzzLiteral`` so control and invisible characters are visible.
    var swiftSource: String {
        var lines: [String] = []
        let targetHeaders = headers(at: .target)
        var targetLine = "let target = FuzzTarget(resource: api, path: \"/fuzz/<tag>/\(templateSegment)\""
        if !targetHeaders.isEmpty { targetLine += ", headers: " + Self.source(targetHeaders) }
        if !targetParams.isEmpty { targetLine += ", params: " + Self.source(targetParams) }
        lines.append(targetLine + ")")
        lines.append("try await target.makeExecutor(")
        var arguments = ["method: HTTPMethod(rawValue: \(method.fuzzLiteral))"]
        arguments.append(
            "pathParts: [\((pathKeyWithColon ? ":id" : "id").fuzzLiteral): \(pathValue.swiftSource)]")
        let callHeaders = headers(at: .call)
        if !callHeaders.isEmpty { arguments.append("headers: " + Self.source(callHeaders)) }
        if !params.isEmpty { arguments.append("params: " + Self.source(params)) }
        if let body {
            arguments.append(
                "body: .data(\(Self.source(body.data)), contentType: \(body.contentType?.fuzzLiteral ?? "nil"))"
            )
        }
        if !files.isEmpty {
            let parts = files.map { file in
                "\(file.field.fuzzLiteral): .data(\(Self.source(file.data)), "
                    + "filename: \(file.filename.fuzzLiteral), "
                    + "contentType: \(file.contentType?.fuzzLiteral ?? "nil"))"
            }
            arguments.append("files: [" + parts.joined(separator: ", ") + "]")
        }
        if encoding != .automatic { arguments.append("placement: .\(encoding.rawValue)") }
        lines += arguments.enumerated().map { index, argument in
            "    " + argument + (index == arguments.count - 1 ? "" : ",")
        }
        lines.append(").execute()")
        return lines.joined(separator: "\n")
    }

    private static func source(_ headers: [FuzzHeader]) -> String {
        "["
            + headers.map { "\($0.name.fuzzLiteral): \($0.value.fuzzLiteral)" }.joined(
                separator: ", ") + "]"
    }

    private static func source(_ entries: [FuzzEntry]) -> String {
        "[" + entries.map { "\($0.key.fuzzLiteral): \($0.value.swiftSource)" }.joined(separator: ", ")
            + "]"
    }

    /// `Data("text".utf8)` for UTF-8 text, else the bytes in hex.
    static func source(_ bytes: [UInt8]) -> String {
        if let text = fuzzUTF8(bytes) { return "Data(\(text.fuzzLiteral).utf8)" }
        return "Data([" + bytes.map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: ", ")
            + "])"
    }
}
