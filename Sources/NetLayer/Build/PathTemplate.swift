/// Fills `:name` and `{name}` tokens of a path template with percent-encoded values.
///
/// A `:name` token starts a segment and its name ends at the first character outside
/// `[A-Za-z0-9_]` (so `/models/:model:generate` works); `{name}` may appear anywhere. Each value is
/// encoded as exactly one path segment, and substitution happens once: literal text is never touched.
enum PathTemplate {
    /// Returns the template with every token replaced.
    /// - Throws: ``NetLayerError`` `.missingPathParts` for tokens without a value (naming the
    ///   unknown keys too, with a near miss suggested),
    ///   `.unknownPathParts` for values naming no token, `.invalidPathPart` for an empty, `.` or `..`
    ///   value, a non-finite number, one that is not a scalar, or a key given twice (`id` and `:id`).
    static func fill(_ template: String, with parts: [String: any ParamConvertible]) throws(NetLayerError)
        -> String
    {
        if parts.isEmpty
            && !template.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "{") })
        {
            return template
        }
        var filler = Filler()
        filler.parts.reserveCapacity(parts.count)
        filler.output.reserveCapacity(template.utf8.count + 16)
        for (key, value) in parts { try filler.add(key, value.paramValue) }
        var text = template
        if let failure = text.withUTF8({ filler.walk($0) }) { throw failure }
        let unknown =
            filler.parts.contains { !$0.used && !$0.value.isNull }
            ? filler.parts.filter { !$0.used && !$0.value.isNull }.map(\.name).sorted() : []
        if !filler.missing.isEmpty {
            throw .missingPathParts(filler.missing.sorted(), unknown: unknown, template: template)
        }
        if !unknown.isEmpty { throw .unknownPathParts(unknown, template: template) }
        return String(decoding: filler.output, as: UTF8.self)
    }

    /// The state of one fill. A few parts at most: an array searched in order costs less than
    /// hashing every name.
    private struct Filler {
        var parts: [(name: String, value: ParamValue, used: Bool)] = []
        var missing: [String] = []
        var output: [UInt8] = []

        mutating func add(_ key: String, _ value: ParamValue) throws(NetLayerError) {
            let name = key.utf8.first == UInt8(ascii: ":") ? String(key.dropFirst()) : key
            if parts.contains(where: { $0.name == name }) {
                throw .invalidPathPart(name, reason: "it is given twice, as \"\(name)\" and \":\(name)\"")
            }
            parts.append((name, value, false))
        }

        /// Copies the template's bytes to `output`, filling tokens.
        ///
        /// Tokens and separators are ASCII, so walking UTF-8 bytes never splits a character that
        /// matters; other bytes are copied through untouched.
        mutating func walk(_ bytes: UnsafeBufferPointer<UInt8>) -> NetLayerError? {
            var index = 0
            var atSegmentStart = true
            do throws(NetLayerError) {
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "?") {  // the rest is a query written in the template: kept as is
                        output.append(contentsOf: bytes[index...])
                        break
                    }
                    if byte == UInt8(ascii: ":") && atSegmentStart, index + 1 < bytes.count,
                        isIdentifier(bytes[index + 1])
                    {
                        var end = index + 1
                        while end < bytes.count && isIdentifier(bytes[end]) { end += 1 }
                        try substitute(bytes[(index + 1)..<end])
                        index = end
                        atSegmentStart = false
                        continue
                    }
                    if byte == UInt8(ascii: "{"),
                        let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")),
                        close > index + 1,
                        bytes[(index + 1)..<close].allSatisfy(isIdentifier)
                    {
                        try substitute(bytes[(index + 1)..<close])
                        index = close + 1
                        atSegmentStart = false
                        continue
                    }
                    // A literal run, copied in one piece: up to the next byte that may start a token
                    // or the query.
                    var end = index + 1
                    atSegmentStart = byte == UInt8(ascii: "/")
                    while end < bytes.count {
                        let next = bytes[end]
                        if next == UInt8(ascii: "?") || next == UInt8(ascii: "{")
                            || (next == UInt8(ascii: ":") && atSegmentStart)
                        {
                            break
                        }
                        atSegmentStart = next == UInt8(ascii: "/")
                        end += 1
                    }
                    output.append(contentsOf: bytes[index..<end])
                    index = end
                }
            } catch {
                return error
            }
            return nil
        }

        private mutating func substitute(_ token: Slice<UnsafeBufferPointer<UInt8>>) throws(NetLayerError) {
            // Byte equality first; Swift's equality (canonical equivalence, as a dictionary key
            // compares) on a miss.
            let found =
                parts.firstIndex { part in part.name.withUTF8Bytes { $0.elementsEqual(token) } }
                ?? parts.firstIndex { $0.name == String(decoding: token, as: UTF8.self) }
            guard let found, !parts[found].value.isNull else {
                let name = String(decoding: token, as: UTF8.self)
                if !missing.contains(name) { missing.append(name) }
                return
            }
            parts[found].used = true
            let name = parts[found].name
            let value = parts[found].value
            guard let text = value.scalarText(bools: .literal) else {
                throw .invalidPathPart(name, reason: "an array or dictionary cannot fill one path segment")
            }
            if text.isEmpty || text == "." || text == ".." {
                throw .invalidPathPart(name, reason: "the value \"\(text)\" would change the path's meaning")
            }
            if case .number(let number) = value, !JSONParams.isJSONNumber(number) {
                throw .invalidPathPart(name, reason: "\(number) is not a finite number")
            }
            output.appendEncoded(text, allowing: PercentEncoding.pathSegment)
        }
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
