/// `multipart/form-data` parsing written from RFC 2046 §5.1.1 and RFC 7578, strict where DESIGN §8
/// fixes the shape: no preamble, CRLF line ends, no epilogue after the closing delimiter.
enum FuzzMultipartParser {
    /// One body part as read.
    struct Part: Sendable {
        /// Header fields in order (name as sent, value trimmed).
        var headers: [FuzzPair]
        /// Parameters of `Content-Disposition` after `form-data`, unquoted, in order.
        var disposition: [FuzzPair]
        var body: [UInt8]

        func header(_ name: String) -> [String] {
            headers.filter { fuzzLowerASCII($0.name) == fuzzLowerASCII(name) }.map(\.value)
        }

        func parameter(_ name: String) -> [String] {
            disposition.filter { fuzzLowerASCII($0.name) == name }.map(\.value)
        }
    }

    /// The `boundary` parameter of a `multipart/form-data` Content-Type.
    static func boundary(fromContentType value: String) -> Result<String, FuzzParseError> {
        let bytes = Array(value.utf8)
        let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        let essence = fuzzTrimOWS(String(decoding: bytes[..<semicolon], as: UTF8.self))
        guard fuzzLowerASCII(essence) == "multipart/form-data" else {
            return .failure(
                FuzzParseError("Content-Type \(value.fuzzLiteral) is not multipart/form-data"))
        }
        let parameters: [FuzzPair]
        switch parseParameters(bytes[semicolon...]) {
        case .success(let list): parameters = list
        case .failure(let error): return .failure(error)
        }
        let boundaries = parameters.filter { fuzzLowerASCII($0.name) == "boundary" }
        guard boundaries.count == 1, let boundary = boundaries.first?.value else {
            return .failure(
                FuzzParseError("Content-Type \(value.fuzzLiteral) needs exactly one boundary"))
        }
        // RFC 2046: 1–70 bchars, not ending in a space.
        let bchars = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(bchars.contains),
            boundary.utf8.last != 0x20
        else { return .failure(FuzzParseError("boundary \(boundary.fuzzLiteral) breaks RFC 2046")) }
        return .success(boundary)
    }

    /// Splits a body on `--boundary` delimiters and reads each part's header section.
    static func parse(_ body: [UInt8], boundary: String) -> Result<[Part], FuzzParseError> {
        let dash = Array("--".utf8)
        let delimiter = dash + Array(boundary.utf8)
        let crlfDelimiter = Array("\r\n".utf8) + delimiter
        guard body.starts(with: delimiter) else {
            return .failure(
                FuzzParseError("the body does not start with --boundary: \(fuzzShow(body.prefix(80)))"))
        }
        var parts: [Part] = []
        var index = delimiter.count
        while true {
            if body[index...].starts(with: dash) {
                let rest = body[(index + 2)...]
                guard rest.elementsEqual("\r\n".utf8) else {
                    return .failure(
                        FuzzParseError("after the closing delimiter comes \(fuzzShow(rest)) instead of CRLF"))
                }
                return .success(parts)
            }
            guard body[index...].starts(with: "\r\n".utf8) else {
                return .failure(FuzzParseError("a delimiter is not followed by CRLF at byte \(index)"))
            }
            index += 2
            guard let end = firstRange(of: crlfDelimiter, in: body[...], from: index) else {
                return .failure(FuzzParseError("a part is not closed by CRLF--boundary"))
            }
            switch parsePart(body[index..<end]) {
            case .success(let part): parts.append(part)
            case .failure(let error): return .failure(error)
            }
            index = end + crlfDelimiter.count
        }
    }

    /// The index of the first occurrence of `needle` in `haystack` at or after `start`.
    private static func firstRange(of needle: [UInt8], in haystack: ArraySlice<UInt8>, from start: Int)
        -> Int?
    {
        guard let first = needle.first else { return nil }
        var index = start
        while index + needle.count <= haystack.endIndex {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Header lines up to the first empty line, then the content.
    private static func parsePart(_ bytes: ArraySlice<UInt8>) -> Result<Part, FuzzParseError> {
        var headers: [FuzzPair] = []
        var index = bytes.startIndex
        while true {
            guard let lineEnd = firstRange(of: Array("\r\n".utf8), in: bytes, from: index) else {
                return .failure(FuzzParseError("a part's header section does not end"))
            }
            let line = bytes[index..<lineEnd]
            index = lineEnd + 2
            if line.isEmpty { break }
            guard line.first != 0x20, line.first != 0x09 else {
                return .failure(FuzzParseError("folded part header line \(fuzzShow(line))"))
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                let name = fuzzUTF8(line[line.startIndex..<colon]), fuzzIsToken(name),
                let value = fuzzUTF8(line[(colon + 1)...])
            else { return .failure(FuzzParseError("malformed part header line \(fuzzShow(line))")) }
            if value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) {
                return .failure(FuzzParseError("control character in part header \(fuzzShow(line))"))
            }
            headers.append(FuzzPair(name: name, value: fuzzTrimOWS(value)))
        }
        var part = Part(headers: headers, disposition: [], body: Array(bytes[index...]))
        let dispositions = part.header("Content-Disposition")
        guard dispositions.count == 1, let disposition = dispositions.first else {
            return .failure(FuzzParseError("a part needs exactly one Content-Disposition"))
        }
        let bytesOfDisposition = Array(disposition.utf8)
        let semicolon = bytesOfDisposition.firstIndex(of: UInt8(ascii: ";")) ?? bytesOfDisposition.count
        let type = fuzzTrimOWS(String(decoding: bytesOfDisposition[..<semicolon], as: UTF8.self))
        guard fuzzLowerASCII(type) == "form-data" else {
            return .failure(
                FuzzParseError("Content-Disposition \(disposition.fuzzLiteral) is not form-data"))
        }
        switch parseParameters(bytesOfDisposition[semicolon...]) {
        case .success(let parameters): part.disposition = parameters
        case .failure(let error): return .failure(error)
        }
        return .success(part)
    }

    /// `*( OWS ";" OWS token "=" ( token / quoted-string ) )` (RFC 9110 §5.6.6); quoted strings
    /// unescaped per §5.6.4 (`\x` reads as `x`). Non-ASCII octets are allowed in quoted strings
    /// (RFC 7578 §5.1 sends names as UTF-8).
    static func parseParameters(_ bytes: ArraySlice<UInt8>) -> Result<[FuzzPair], FuzzParseError> {
        var result: [FuzzPair] = []
        var index = bytes.startIndex
        func skipOWS() {
            while index < bytes.endIndex, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }
        func fail(_ what: String) -> Result<[FuzzPair], FuzzParseError> {
            .failure(FuzzParseError("\(what) in parameters \(fuzzShow(bytes))"))
        }
        while true {
            skipOWS()
            if index == bytes.endIndex { return .success(result) }
            guard bytes[index] == UInt8(ascii: ";") else { return fail("expected ';'") }
            index += 1
            skipOWS()
            let nameStart = index
            while index < bytes.endIndex, fuzzIsTokenByte(bytes[index]) { index += 1 }
            guard index > nameStart, index < bytes.endIndex, bytes[index] == UInt8(ascii: "=") else {
                return fail("expected name=")
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            index += 1
            var value: [UInt8] = []
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var closed = false
                while index < bytes.endIndex {
                    let byte = bytes[index]
                    index += 1
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        break
                    }
                    if byte == UInt8(ascii: "\\") {
                        guard index < bytes.endIndex else { break }
                        value.append(bytes[index])
                        index += 1
                    } else {
                        guard byte >= 0x20 || byte == 0x09, byte != 0x7F else {
                            return fail("control character")
                        }
                        value.append(byte)
                    }
                }
                guard closed else { return fail("unterminated quoted-string") }
            } else {
                let start = index
                while index < bytes.endIndex, fuzzIsTokenByte(bytes[index]) { index += 1 }
                guard index > start else { return fail("empty value") }
                value = Array(bytes[start..<index])
            }
            guard let text = fuzzUTF8(value) else { return fail("invalid UTF-8") }
            result.append(FuzzPair(name: name, value: text))
        }
    }
}
