/// Flattens params into name/value pairs and writes `application/x-www-form-urlencoded` text.
///
/// Keys are sorted in byte order at every level, so the same call always yields the same bytes.
/// Only RFC 3986 unreserved characters stay literal; brackets are sent as `%5B`/`%5D`, space as `%20`.
struct FormEncoder: Sendable {
    var options: EncodingOptions

    /// The params as (name, text) pairs, names still unencoded (`tags[]`, `filter[min]`).
    func pairs(_ params: [String: ParamValue]) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        result.reserveCapacity(params.count)
        for key in params.keys.sorted(by: Self.byteOrder) {
            if let value = params[key] { flatten(name: key, value: value, into: &result) }
        }
        return result
    }

    /// The params as encoded `k=v&k2=v2` text.
    func encode(_ params: [String: ParamValue]) -> String {
        Self.join(pairs(params))
    }

    /// Joins pairs into encoded form text.
    static func join(_ pairs: [(name: String, value: String)]) -> String {
        var output = ""
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output += "&" }
            output += PercentEncoding.encode(pair.name, allowing: PercentEncoding.unreserved)
            output += "="
            output += PercentEncoding.encode(pair.value, allowing: PercentEncoding.unreserved)
        }
        return output
    }

    static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    private func flatten(name: String, value: ParamValue, into result: inout [(name: String, value: String)]) {
        switch value {
        case .null:
            return
        case .bool, .number, .string:
            if let text = value.scalarText(bools: options.bools) { result.append((name, text)) }
        case .array(let items):
            for (index, item) in items.enumerated() {
                let isContainer: Bool
                switch item {
                case .array, .dictionary: isContainer = true
                default: isContainer = false
                }
                let childName: String
                switch options.arrays {
                case .brackets: childName = isContainer ? "\(name)[\(index)]" : "\(name)[]"
                case .noBrackets: childName = isContainer ? "\(name)[\(index)]" : name
                case .indexed: childName = "\(name)[\(index)]"
                }
                flatten(name: childName, value: item, into: &result)
            }
        case .dictionary(let entries):
            for key in entries.keys.sorted(by: Self.byteOrder) {
                if let child = entries[key] { flatten(name: "\(name)[\(key)]", value: child, into: &result) }
            }
        }
    }
}
