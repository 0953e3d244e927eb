/// `application/x-www-form-urlencoded` parsing as a server does it (WHATWG URL Standard §5.1,
/// the form of RFC 1866 / HTML), plus a strict check of how DESIGN §6 says the text is written.
enum FuzzFormParser {
    /// Splits on `&`, skips empty pieces, splits each at its first `=`, turns `+` into a space and
    /// percent-decodes. Decoded bytes that are not UTF-8 are an error (a server would substitute
    /// U+FFFD and read something else than was meant).
    static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<[FuzzPair], FuzzParseError> {
        var pairs: [FuzzPair] = []
        for piece in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { piece[piece.startIndex..<$0] } ?? piece[...]
            let rawValue = equals.map { piece[piece.index(after: $0)...] } ?? []
            guard let name = fuzzUTF8(decode(rawName, plusIsSpace: true)),
                let value = fuzzUTF8(decode(rawValue, plusIsSpace: true))
            else {
                return .failure(
                    FuzzParseError("form/query piece \(fuzzShow(piece)) does not decode to UTF-8"))
            }
            pairs.append(FuzzPair(name: name, value: value))
        }
        return .success(pairs)
    }

    /// Percent-decoding: `%` and two hex digits become that byte; any other `%` stays as is.
    static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes, plusIsSpace: Bool) -> [UInt8] {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%"), index + 2 < input.count, let high = fuzzHexValue(input[index + 1]),
                let low = fuzzHexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
                index += 1
            }
        }
        return output
    }

    /// DESIGN §6 writes only unreserved characters literally, everything else as `%XX`, with `&`
    /// between pairs and one `=` in each, and no empty pair. Returns what breaks that, or nil.
    static func designViolation<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        let input = Array(bytes)
        if input.isEmpty { return nil }
        for piece in input.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            guard !piece.isEmpty else { return "an empty pair (\"&&\" or a leading/trailing \"&\")" }
            guard piece.filter({ $0 == UInt8(ascii: "=") }).count == 1 else {
                return "pair \(fuzzShow(piece)) does not hold exactly one literal '='"
            }
            var index = piece.startIndex
            while index < piece.endIndex {
                let byte = piece[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < piece.endIndex, let high = fuzzHexValue(piece[index + 1]),
                        let low = fuzzHexValue(piece[index + 2])
                    else { return "a '%' not followed by two hex digits in \(fuzzShow(piece))" }
                    let decoded = high << 4 | low
                    if fuzzIsUnreserved(decoded) {
                        return "unreserved \(fuzzShow([decoded])) percent-encoded in \(fuzzShow(piece))"
                    }
                    index += 3
                } else {
                    guard fuzzIsUnreserved(byte) || byte == UInt8(ascii: "=") else {
                        return
                            "\(fuzzShow([byte])) sent literally in \(fuzzShow(piece)) (only unreserved characters may be)"
                    }
                    index += 1
                }
            }
        }
        return nil
    }
}

/// A parser's complaint about bytes that should have been well-formed.
struct FuzzParseError: Error, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
