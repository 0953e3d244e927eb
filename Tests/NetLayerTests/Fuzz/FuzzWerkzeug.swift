import Foundation

/// How httpbin (werkzeug 3.1 under gunicorn) re-presents what it parsed, so the httpbin comparison
/// transforms the expected view exactly the way httpbin's JSON forces, and no further.
enum FuzzWerkzeug {
    /// The path of httpbin's `url` for a request whose decoded path is `path`: werkzeug quotes the
    /// path keeping `!$&'()*+,/:;=@%` (so a literal `%` stays bare), then `uri_to_iri` unquotes every
    /// `%XX` except controls, space, `%`, DEL, `/`, `?` and `#`, re-quoting bytes that are not UTF-8.
    static func urlPath(_ path: String) -> String {
        let safe = Array("!$&'()*+,/:;=@%".utf8)
        var quoted: [UInt8] = []
        for byte in path.utf8 {
            if fuzzIsUnreserved(byte) || safe.contains(byte) {
                quoted.append(byte)
            } else {
                quoted += Array(fuzzPercentEscape(byte).utf8)
            }
        }
        return unquotePath(quoted)
    }

    /// `_unquote_path`: runs of `%XX` naming an unsafe byte stay as they are; everything between is
    /// percent-decoded as UTF-8, invalid bytes re-quoted as upper-case `%XX`.
    private static func unquotePath(_ text: [UInt8]) -> String {
        func unsafeEscape(at index: Int) -> Bool {
            guard index + 2 < text.count, text[index] == UInt8(ascii: "%"),
                let high = fuzzHexValue(text[index + 1]), let low = fuzzHexValue(text[index + 2])
            else { return false }
            let byte = high << 4 | low
            return byte <= 0x20 || byte == 0x25 || byte == 0x7F || byte == UInt8(ascii: "/")
                || byte == UInt8(ascii: "?")
                || byte == UInt8(ascii: "#")
        }
        var output = ""
        var pending: [UInt8] = []
        var index = 0
        while index < text.count {
            if unsafeEscape(at: index) {
                output += decodeQuoting(FuzzFormParser.decode(pending, plusIsSpace: false))
                pending = []
                output += String(decoding: text[index..<(index + 3)], as: UTF8.self)
                index += 3
            } else {
                pending.append(text[index])
                index += 1
            }
        }
        return output + decodeQuoting(FuzzFormParser.decode(pending, plusIsSpace: false))
    }

    /// UTF-8 decoding with Python's `werkzeug.url_quote` error handler: each byte of an invalid
    /// sequence becomes `%XX`.
    static func decodeQuoting(_ bytes: [UInt8]) -> String {
        var output = ""
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length > 0, let text = fuzzUTF8(bytes[index..<(index + length)]) {
                output += text
                index += length
            } else {
                output += fuzzPercentEscape(bytes[index])
                index += 1
            }
        }
        return output
    }

    /// The length of the well-formed UTF-8 sequence starting at `index` (Unicode Table 3-7), or 0.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: return 0
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }

    /// A multipart name as werkzeug reports it, from DESIGN's view of it (backslash escapes undone,
    /// see ``FuzzExpectation/multipartName(_:)``): werkzeug also turns every `%22` into `"` (the
    /// HTML-style escape), so a literal `%22` in a name reads as `"` too, as DESIGN §8 documents.
    static func multipartName(fromDesignView designView: String) -> String {
        let view = Array(designView.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < view.count {
            if index + 2 < view.count, view[index] == UInt8(ascii: "%"), view[index + 1] == UInt8(ascii: "2"),
                view[index + 2] == UInt8(ascii: "2")
            {
                output.append(UInt8(ascii: "\""))
                index += 3
            } else {
                output.append(view[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A header value as WSGI hands it on: the bytes read as ISO-8859-1. Undoes that (when every
    /// character fits a byte and the bytes are UTF-8), giving the text that was sent.
    static func headerText(_ value: String) -> String {
        guard value.unicodeScalars.allSatisfy({ $0.value <= 0xFF }) else { return value }
        let bytes = value.unicodeScalars.map { UInt8($0.value) }
        return fuzzUTF8(bytes) ?? value
    }

    /// httpbin's `json_safe`: UTF-8 text as is, anything else as a `data:` URL with base64.
    static func jsonSafe(_ bytes: [UInt8], contentType: String) -> String {
        fuzzUTF8(bytes) ?? "data:\(contentType);base64,\(Data(bytes).base64EncodedString())"
    }

    /// httpbin's `semiflatten` of a multi-dict: a name that occurs once maps to its value, a
    /// repeated one to the list of its values in order.
    static func semiflatten(_ pairs: [FuzzPair]) -> FuzzJSON {
        var members: [(String, [String])] = []
        for pair in pairs {
            if let index = members.firstIndex(where: { fuzzSame($0.0, pair.name) }) {
                members[index].1.append(pair.value)
            } else {
                members.append((pair.name, [pair.value]))
            }
        }
        return .object(
            members.map { name, values in
                (name, values.count == 1 ? .string(values[0]) : .array(values.map { .string($0) }))
            })
    }
}
