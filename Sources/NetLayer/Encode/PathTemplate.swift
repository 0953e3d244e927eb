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
        var values: [String: ParamValue] = [:]
        for (key, value) in parts {
            let name = key.hasPrefix(":") ? String(key.dropFirst()) : key
            if values[name] != nil {
                throw .invalidPathPart(name, reason: "it is given twice, as \"\(name)\" and \":\(name)\"")
            }
            values[name] = value.paramValue
        }
        var used = Set<String>()
        var missing: [String] = []
        var output: [UInt8] = []
        output.reserveCapacity(template.utf8.count + 16)

        func substitute(_ name: String) throws(NetLayerError) {
            guard let value = values[name], value != .null else {
                if !missing.contains(name) { missing.append(name) }
                return
            }
            used.insert(name)
            guard let text = value.scalarText(bools: .literal) else {
                throw .invalidPathPart(name, reason: "an array or dictionary cannot fill one path segment")
            }
            if text.isEmpty || text == "." || text == ".." {
                throw .invalidPathPart(name, reason: "the value \"\(text)\" would change the path's meaning")
            }
            if case .number(let number) = value, !JSONParams.isJSONNumber(number) {
                throw .invalidPathPart(name, reason: "\(number) is not a finite number")
            }
            PercentEncoding.append(text, allowing: PercentEncoding.pathSegment, to: &output)
        }

        // Tokens and separators are ASCII, so walking UTF-8 bytes never splits a character that
        // matters; other bytes are copied through untouched.
        let bytes = Array(template.utf8)
        var index = 0
        var atSegmentStart = true
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
                try substitute(String(decoding: bytes[(index + 1)..<end], as: UTF8.self))
                index = end
                atSegmentStart = false
                continue
            }
            if byte == UInt8(ascii: "{"), let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")),
                close > index + 1,
                bytes[(index + 1)..<close].allSatisfy(isIdentifier)
            {
                try substitute(String(decoding: bytes[(index + 1)..<close], as: UTF8.self))
                index = close + 1
                atSegmentStart = false
                continue
            }
            output.append(byte)
            atSegmentStart = byte == UInt8(ascii: "/")
            index += 1
        }
        let unknown = values.keys.filter { !used.contains($0) && values[$0] != .null }.sorted()
        if !missing.isEmpty {
            throw .missingPathParts(missing.sorted(), unknown: unknown, template: template)
        }
        if !unknown.isEmpty { throw .unknownPathParts(unknown, template: template) }
        return String(decoding: output, as: UTF8.self)
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
