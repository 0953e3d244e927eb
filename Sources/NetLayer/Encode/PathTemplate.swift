/// Fills `:name` and `{name}` tokens of a path template with percent-encoded values.
///
/// A `:name` token starts a segment and its name ends at the first character outside
/// `[A-Za-z0-9_]` (so `/models/:model:generate` works); `{name}` may appear anywhere. Each value is
/// encoded as exactly one path segment, and substitution happens once: literal text is never touched.
enum PathTemplate {
    /// Returns the template with every token replaced.
    /// - Throws: ``NetLayerError`` `.missingPathParts` for tokens without a value,
    ///   `.unknownPathParts` for values naming no token, `.invalidPathPart` for an empty, `.` or `..`
    ///   value or one that is not a scalar.
    static func fill(_ template: String, with parts: [String: any ParamConvertible]) throws(NetLayerError) -> String {
        if parts.isEmpty && !template.contains(":") && !template.contains("{") { return template }
        var values: [String: ParamValue] = [:]
        for (key, value) in parts {
            let name = key.hasPrefix(":") ? String(key.dropFirst()) : key
            values[name] = value.paramValue
        }
        var used = Set<String>()
        var missing: [String] = []
        var output = ""
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
            output += PercentEncoding.encode(text, allowing: PercentEncoding.pathSegment)
        }

        let chars = Array(template.unicodeScalars)
        var index = 0
        var atSegmentStart = true
        while index < chars.count {
            let char = chars[index]
            if char == "?" {  // the rest is a query written in the template: kept as is
                output.unicodeScalars.append(contentsOf: chars[index...])
                break
            }
            if char == ":" && atSegmentStart, index + 1 < chars.count, isIdentifier(chars[index + 1]) {
                var end = index + 1
                while end < chars.count && isIdentifier(chars[end]) { end += 1 }
                try substitute(String(String.UnicodeScalarView(chars[(index + 1)..<end])))
                index = end
                atSegmentStart = false
                continue
            }
            if char == "{", let close = chars[index...].firstIndex(of: "}"), close > index + 1,
                chars[(index + 1)..<close].allSatisfy(isIdentifier)
            {
                try substitute(String(String.UnicodeScalarView(chars[(index + 1)..<close])))
                index = close + 1
                atSegmentStart = false
                continue
            }
            output.unicodeScalars.append(char)
            atSegmentStart = char == "/"
            index += 1
        }
        if !missing.isEmpty { throw .missingPathParts(missing.sorted(), template: template) }
        let unknown = values.keys.filter { !used.contains($0) && values[$0] != .null }
        if !unknown.isEmpty { throw .unknownPathParts(unknown.sorted(), template: template) }
        return output
    }

    private static func isIdentifier(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_": true
        default: false
        }
    }
}
