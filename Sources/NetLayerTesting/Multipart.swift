import Foundation
import NetLayer

/// One part of a `multipart/*` request body (RFC 2046 §5.1, RFC 7578 for `multipart/form-data`),
/// as ``RecordedRequest/multipartParts()`` reads it.
///
/// ```swift
/// let parts = try request.multipartParts()
/// #expect(parts.map(\.name) == ["title", "cover"])
/// #expect(parts[1].filename == "cover.png" && parts[1].contentType == "image/png")
/// ```
public struct MultipartPart: Sendable, Hashable {
    /// The part's header fields in the order they were sent, names spelled as sent; look them up
    /// case-insensitively with ``header(_:)``.
    public let headerFields: HeaderFields
    /// The exact bytes between the part's header block and the line break before the next
    /// delimiter.
    public let body: Data
    /// The `name` parameter of the part's `Content-Disposition` (its quoted-string unescaped; a
    /// percent-escape such as `%22`, which browsers and NetLayer send for `"`, is left as sent);
    /// `nil` when there is no such parameter.
    public let name: String?
    /// The `filename` parameter of the part's `Content-Disposition`, read as ``name`` is; `nil` for
    /// a plain field.
    public let filename: String?

    /// The value of the part's `Content-Type` field as sent; `nil` when it has none (RFC 7578 then
    /// means `text/plain`).
    public var contentType: String? { headerFields["Content-Type"] }

    /// The body as UTF-8 text; `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// The first value of the part's header field `name` (compared case-insensitively); `nil` when
    /// absent.
    public func header(_ name: String) -> String? {
        headerFields[name]
    }
}

/// Why a body could not be read as `multipart/*`, from ``RecordedRequest/multipartParts()``.
public enum MultipartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request has no `Content-Type` (`nil`), or one that is not `multipart/…`.
    case notMultipart(contentType: String?)
    /// The `Content-Type` cannot be read: an unterminated quoted string, a parameter without `=`.
    case malformedContentType(String)
    /// The `Content-Type` has no `boundary` parameter (`nil`), or one that is not 1 to 70 of the
    /// characters RFC 2046 allows (letters, digits, `'()+_,-./:=?` and space, not ending in a space).
    case invalidBoundary(String?)
    /// The body holds no `--<boundary>` delimiter line.
    case missingDelimiter
    /// The body ends before the close delimiter `--<boundary>--`; `partsRead` parts were complete.
    case missingCloseDelimiter(partsRead: Int)
    /// The header block of the part at `part` (counted from 0) has no empty line ending it.
    case unterminatedHeaders(part: Int)
    /// A header line of the part at `part` (counted from 0) is not `name: value` with a token name.
    case malformedHeader(part: Int, line: String)
    /// The `Content-Disposition` of the part at `part` (counted from 0) cannot be read (an
    /// unterminated quoted string, a parameter without `=`).
    case malformedDisposition(part: Int, value: String)

    /// What is wrong, in a sentence.
    public var description: String {
        switch self {
        case .notMultipart(let type):
            "not a multipart body: "
                + (type.map { "Content-Type is \($0.debugDescription)" } ?? "no Content-Type")
        case .malformedContentType(let type): "cannot read Content-Type \(type.debugDescription)"
        case .invalidBoundary(let boundary):
            boundary.map { "invalid multipart boundary \($0.debugDescription)" }
                ?? "the multipart Content-Type has no boundary parameter"
        case .missingDelimiter: "the multipart body has no delimiter line"
        case .missingCloseDelimiter(let count):
            "the multipart body ends without its close delimiter after \(count) complete part(s)"
        case .unterminatedHeaders(let part):
            "multipart part \(part): its header block has no empty line ending it"
        case .malformedHeader(let part, let line):
            "multipart part \(part): header line \(line.debugDescription) is not `name: value`"
        case .malformedDisposition(let part, let value):
            "multipart part \(part): cannot read Content-Disposition \(value.debugDescription)"
        }
    }
}

extension RecordedRequest {
    /// The parts of a `multipart/*` body (`multipart/form-data` as NetLayer, browsers and curl send
    /// it), in order.
    ///
    /// The boundary comes from `Content-Type` (a token or a quoted string). A preamble before the
    /// first delimiter and an epilogue after the close delimiter are skipped, as is white space
    /// after a delimiter; line breaks must be CRLF. A part may have no header fields; folded header
    /// lines are unfolded. A body made of the close delimiter alone has no parts (an empty form).
    /// Header text is read as UTF-8 (as RFC 7578 allows for file names), or as ISO-8859-1 when it is
    /// not valid UTF-8.
    /// - Throws: ``MultipartError`` saying what is wrong; never crashes on any bytes.
    public func multipartParts() throws(MultipartError) -> [MultipartPart] {
        let contentType = header("Content-Type")
        guard let contentType,
            contentType.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("multipart/")
        else { throw .notMultipart(contentType: contentType) }
        guard let type = MultipartText.parameters(contentType) else {
            throw .malformedContentType(contentType)
        }
        guard let boundary = type.parameters.first(where: { $0.name.lowercased() == "boundary" })?.value
        else { throw .invalidBoundary(nil) }
        guard MultipartText.isValidBoundary(boundary) else { throw .invalidBoundary(boundary) }
        return try MultipartText.parts(of: [UInt8](body), boundary: Array(boundary.utf8))
    }
}

/// The reading behind ``RecordedRequest/multipartParts()``.
enum MultipartText {
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// The parts of `body` between `--boundary` delimiter lines.
    static func parts(of body: [UInt8], boundary: [UInt8]) throws(MultipartError) -> [MultipartPart] {
        let dashBoundary = Array("--".utf8) + boundary
        let delimiter = [cr, lf] + dashBoundary
        // The first delimiter may open the body or follow a preamble.
        var found: (close: Bool, next: Int)?
        var searchFrom = 0
        if starts(body, with: dashBoundary, at: 0) { found = delimiterEnd(body, after: dashBoundary.count) }
        while found == nil {
            guard let at = firstIndex(of: delimiter, in: body, from: searchFrom) else {
                throw .missingDelimiter
            }
            found = delimiterEnd(body, after: at + delimiter.count)
            searchFrom = at + 1
        }
        var parts: [MultipartPart] = []
        while let current = found, !current.close {
            let start = current.next
            var end = start
            var next: (close: Bool, next: Int)?
            while next == nil {
                guard let at = firstIndex(of: delimiter, in: body, from: end) else {
                    throw .missingCloseDelimiter(partsRead: parts.count)
                }
                next = delimiterEnd(body, after: at + delimiter.count)
                end = next == nil ? at + 1 : at
            }
            parts.append(try part(body[start..<end], index: parts.count))
            found = next
        }
        return parts
    }

    /// After a delimiter's `--boundary` ending before `index`: `--` closes the body; white space
    /// then CRLF opens a part at `next`. `nil` when neither follows (the text is not a delimiter).
    private static func delimiterEnd(_ body: [UInt8], after index: Int) -> (close: Bool, next: Int)? {
        if starts(body, with: Array("--".utf8), at: index) { return (true, index + 2) }
        var cursor = index
        while cursor < body.count, body[cursor] == 0x20 || body[cursor] == 0x09 { cursor += 1 }
        guard starts(body, with: [cr, lf], at: cursor) else { return nil }
        return (false, cursor + 2)
    }

    /// One part: header lines up to an empty line, then the body.
    private static func part(_ bytes: ArraySlice<UInt8>, index: Int) throws(MultipartError) -> MultipartPart {
        let headerBytes: ArraySlice<UInt8>
        let body: ArraySlice<UInt8>
        if starts(bytes, with: [cr, lf], at: bytes.startIndex) {
            headerBytes = []
            body = bytes.dropFirst(2)
        } else {
            guard let blank = firstIndex(of: [cr, lf, cr, lf], in: bytes, from: bytes.startIndex) else {
                throw .unterminatedHeaders(part: index)
            }
            headerBytes = bytes[bytes.startIndex..<blank]
            body = bytes[(blank + 4)...]
        }
        var fields: [(name: String, value: String)] = []
        for line in lines(headerBytes) {
            if line.first == " " || line.first == "\t", let last = fields.popLast() {  // obsolete folding
                fields.append((last.name, last.value + " " + line.trimmingCharacters(in: .whitespaces)))
                continue
            }
            guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else {
                throw .malformedHeader(part: index, line: line)
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(
                in: CharacterSet(charactersIn: " \t"))
            fields.append((String(line[..<colon]), value))
        }
        let headerFields = HeaderFields(received: fields)
        var name: String?
        var filename: String?
        if let disposition = headerFields["Content-Disposition"] {
            guard let parsed = parameters(disposition) else {
                throw .malformedDisposition(part: index, value: disposition)
            }
            name = parsed.parameters.first { $0.name.lowercased() == "name" }?.value
            filename = parsed.parameters.first { $0.name.lowercased() == "filename" }?.value
        }
        return MultipartPart(headerFields: headerFields, body: Data(body), name: name, filename: filename)
    }

    /// The header block split at CRLF, each line decoded as UTF-8 or else ISO-8859-1.
    private static func lines(_ bytes: ArraySlice<UInt8>) -> [String] {
        guard !bytes.isEmpty else { return [] }
        var result: [String] = []
        var start = bytes.startIndex
        while let end = firstIndex(of: [cr, lf], in: bytes, from: start) {
            result.append(text(bytes[start..<end]))
            start = end + 2
        }
        result.append(text(bytes[start...]))
        return result
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(bytes: bytes, encoding: .utf8) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    /// `value; name=token; name="quoted \" string"` split into the value and its parameters;
    /// `nil` when a parameter has no `=` or a quoted string is not closed.
    static func parameters(_ field: String) -> (value: String, parameters: [(name: String, value: String)])? {
        var scalars = Substring(field).unicodeScalars[...]
        func skipSpace() {
            while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        }
        func take(while predicate: (Unicode.Scalar) -> Bool) -> String {
            var taken = String.UnicodeScalarView()
            while let first = scalars.first, predicate(first) {
                taken.append(first)
                scalars.removeFirst()
            }
            return String(taken)
        }
        skipSpace()
        let value = take { $0 != ";" }.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        var parameters: [(name: String, value: String)] = []
        while scalars.first == ";" {
            scalars.removeFirst()
            skipSpace()
            if scalars.isEmpty || scalars.first == ";" { continue }  // an empty parameter
            let name = take { $0 != "=" && $0 != ";" }.trimmingCharacters(
                in: CharacterSet(charactersIn: " \t"))
            guard scalars.first == "=", !name.isEmpty else { return nil }
            scalars.removeFirst()
            skipSpace()
            var parameterValue = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                var closed = false
                while let scalar = scalars.popFirst() {
                    if scalar == "\"" {
                        closed = true
                        break
                    }
                    if scalar == "\\", let escaped = scalars.popFirst() {
                        parameterValue.unicodeScalars.append(escaped)
                    } else {
                        parameterValue.unicodeScalars.append(scalar)
                    }
                }
                guard closed else { return nil }
                skipSpace()
                guard scalars.isEmpty || scalars.first == ";" else { return nil }
            } else {
                parameterValue = take { $0 != ";" }.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            }
            parameters.append((name, parameterValue))
        }
        return (value, parameters)
    }

    /// RFC 2046 §5.1.1: 1 to 70 `bchars`, the last not a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set(
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".unicodeScalars)
        return (1...70).contains(boundary.unicodeScalars.count) && boundary.last != " "
            && boundary.unicodeScalars.allSatisfy(allowed.contains)
    }

    /// An RFC 9110 token.
    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar)
                        || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
            }
    }

    private static func starts<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, with prefix: [UInt8], at index: Bytes.Index
    )
        -> Bool where Bytes.Index == Int
    {
        guard index >= bytes.startIndex, bytes.endIndex - index >= prefix.count else { return false }
        for offset in 0..<prefix.count where bytes[index + offset] != prefix[offset] { return false }
        return true
    }

    /// The index where `pattern` first occurs in `bytes` at or after `start`.
    private static func firstIndex<Bytes: RandomAccessCollection<UInt8>>(
        of pattern: [UInt8], in bytes: Bytes, from start: Int
    ) -> Int? where Bytes.Index == Int {
        guard let first = pattern.first, bytes.endIndex - pattern.count >= start else { return nil }
        var index = max(start, bytes.startIndex)
        while index <= bytes.endIndex - pattern.count {
            if bytes[index] == first, starts(bytes, with: pattern, at: index) { return index }
            index += 1
        }
        return nil
    }
}
