import Foundation
import NetLayer

/// Why a request could not be read.
enum ParseError: Error, Equatable {
    /// The peer closed the connection cleanly between requests.
    case closed
    /// The peer closed (or the socket failed) in the middle of a request.
    case truncated
    /// Not valid HTTP/1.x; answered with 400.
    case malformed(String)
    /// Request line plus headers exceed the head limit; answered with 431.
    case headTooLarge
    /// Body exceeds the server's limit; answered with 413.
    case bodyTooLarge
}

/// How the request body is delimited.
enum BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}

/// A parsed request line and header section.
struct RequestHead: Sendable {
    let method: String
    let target: String
    let version: String
    let headerFields: HeaderFields
    let framing: BodyFraming
    /// Whether the connection may stay open after the response (HTTP/1.1 default, `Connection`).
    let keepAlive: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request with a body.
    let expectsContinue: Bool

    var path: String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }

    var rawQuery: String? {
        target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
    }
}

/// Parses HTTP/1.0 and HTTP/1.1 requests (RFC 9112), strictly enough to reject garbage with 400.
enum HTTPRequestParser {
    static let maxHeadBytes = 64 * 1024
    static let maxHeaderCount = 256

    /// Reads and parses the request line and headers. Skips empty lines before the request line.
    static func readHead(from reader: ByteReader) throws(ParseError) -> RequestHead {
        var lines: [String] = []
        var total = 0
        while true {
            switch reader.readLine(limit: maxHeadBytes - total) {
            case .tooLong:
                throw .headTooLarge
            case .end(let partial):
                throw (lines.isEmpty && !partial) ? .closed : .truncated
            case .line(let bytes):
                total += bytes.count + 2
                if bytes.isEmpty {
                    if lines.isEmpty { continue }  // tolerated empty line(s) before the request line
                    return try parseHead(lines)
                }
                guard lines.count <= maxHeaderCount else { throw .headTooLarge }
                lines.append(decodeFieldText(bytes))
            }
        }
    }

    /// Reads the body announced by `head`. Returns the bytes and any chunked trailers.
    static func readBody(
        for head: RequestHead, from reader: ByteReader, maxBytes: Int
    ) throws(ParseError) -> (body: Data, trailers: HeaderFields) {
        switch head.framing {
        case .none:
            return (Data(), HeaderFields())
        case .length(let length):
            guard length <= maxBytes else { throw .bodyTooLarge }
            guard let body = reader.readExactly(length) else { throw .truncated }
            return (body, HeaderFields())
        case .chunked:
            return try readChunked(from: reader, maxBytes: maxBytes)
        }
    }

    /// Reads the body announced by `head` piece by piece, handing each piece (at most one read's
    /// worth) to `consume` without keeping it. Returns the chunked trailers. Throws `.bodyTooLarge`
    /// once more than `maxBytes` would arrive, `.truncated` when the stream ends early.
    static func streamBody(
        for head: RequestHead, from reader: ByteReader, maxBytes: Int64,
        consume: (UnsafeRawBufferPointer) -> Void
    ) throws(ParseError) -> HeaderFields {
        switch head.framing {
        case .none:
            return HeaderFields()
        case .length(let length):
            guard Int64(length) <= maxBytes else { throw .bodyTooLarge }
            try stream(length, from: reader, consume: consume)
            return HeaderFields()
        case .chunked:
            return try streamChunked(from: reader, maxBytes: maxBytes, consume: consume)
        }
    }

    /// Parses the lines of a request head (request line first, no empty terminator line).
    static func parseHead(_ lines: [String]) throws(ParseError) -> RequestHead {
        guard let requestLine = lines.first else { throw .malformed("empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("request line is not 'METHOD target HTTP/1.x'") }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard isToken(method) else { throw .malformed("invalid method") }
        guard target == "*" || target.hasPrefix("/"),
            target.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { throw .malformed("invalid request-target") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .malformed("unsupported version") }

        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            fields.append(try parseField(line))
        }
        let headers = HeaderFields(received: fields)
        let framing = try framing(for: headers)
        let connection = tokens(headers, "Connection")
        let keepAlive =
            version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        let expects = headers.values(for: "Expect").contains { $0.lowercased() == "100-continue" }
        return RequestHead(
            method: method, target: target, version: version, headerFields: headers, framing: framing,
            keepAlive: keepAlive, expectsContinue: expects && version == "HTTP/1.1" && framing != .none
        )
    }

    /// Parses `name: value`; rejects obsolete line folding, bad names and control characters.
    static func parseField(_ line: String) throws(ParseError) -> (name: String, value: String) {
        guard let first = line.unicodeScalars.first, first != " ", first != "\t" else {
            throw .malformed("obsolete header line folding")
        }
        guard let colon = line.firstIndex(of: ":") else { throw .malformed("header line without ':'") }
        let name = String(line[..<colon])
        guard isToken(name) else { throw .malformed("invalid header name '\(name)'") }
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(
            in: CharacterSet(charactersIn: " \t"))
        guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F })
        else {
            throw .malformed("control character in header '\(name)'")
        }
        return (name, value)
    }

    private static func framing(for headers: HeaderFields) throws(ParseError) -> BodyFraming {
        let codings = tokens(headers, "Transfer-Encoding")
        if !codings.isEmpty {
            guard codings == ["chunked"] else { throw .malformed("unsupported transfer-coding") }
            return .chunked
        }
        let lengths = Set(tokens(headers, "Content-Length"))
        guard !lengths.isEmpty else { return .none }
        guard lengths.count == 1, let text = lengths.first, !text.isEmpty,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let length = Int(text)
        else { throw .malformed("invalid Content-Length") }
        return length == 0 ? .none : .length(length)
    }

    private static func readChunked(
        from reader: ByteReader, maxBytes: Int
    ) throws(ParseError) -> (body: Data, trailers: HeaderFields) {
        var body = Data()
        let trailers = try streamChunked(from: reader, maxBytes: Int64(maxBytes)) { piece in
            piece.withMemoryRebound(to: UInt8.self) { body.append($0) }
        }
        return (body, trailers)
    }

    private static func streamChunked(
        from reader: ByteReader, maxBytes: Int64, consume: (UnsafeRawBufferPointer) -> Void
    ) throws(ParseError) -> HeaderFields {
        var total: Int64 = 0
        while true {
            let sizeLine = try line(from: reader, limit: 4096)
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16), size >= 0
            else {
                throw .malformed("invalid chunk size")
            }
            if size == 0 { break }
            guard total + Int64(size) <= maxBytes else { throw .bodyTooLarge }
            try stream(size, from: reader, consume: consume)
            total += Int64(size)
            guard try line(from: reader, limit: 2).isEmpty else {
                throw .malformed("chunk not followed by CRLF")
            }
        }
        var trailers: [(name: String, value: String)] = []
        while true {
            let trailer = try line(from: reader, limit: maxHeadBytes)
            if trailer.isEmpty { return HeaderFields(received: trailers) }
            trailers.append(try parseField(trailer))
        }
    }

    /// Hands exactly `count` bytes to `consume`, in pieces.
    private static func stream(
        _ count: Int, from reader: ByteReader, consume: (UnsafeRawBufferPointer) -> Void
    ) throws(ParseError) {
        var remaining = count
        while remaining > 0 {
            let got = reader.readSome(maxCount: remaining, consume)
            guard got > 0 else { throw .truncated }
            remaining -= got
        }
    }

    private static func line(from reader: ByteReader, limit: Int) throws(ParseError) -> String {
        switch reader.readLine(limit: limit) {
        case .line(let bytes): return decodeFieldText(bytes)
        case .end: throw .truncated
        case .tooLong: throw .malformed("line too long")
        }
    }

    /// Comma-separated, trimmed, lowercased tokens of every header named `name`.
    static func tokens(_ headers: HeaderFields, _ name: String) -> [String] {
        headers.values(for: name)
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")).lowercased() }
            .filter { !$0.isEmpty }
    }

    /// RFC 9110 token: visible ASCII except delimiters.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
            }
    }

    /// UTF-8 when valid, else ISO Latin-1 (keeps every byte as one character).
    private static func decodeFieldText(_ bytes: [UInt8]) -> String {
        String(bytes: bytes, encoding: .utf8) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }
}
