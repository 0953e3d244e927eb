import Foundation

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
        for key in Self.sortedKeys(params) {
            if let value = params[key] { flatten(name: key, value: value, into: &result) }
        }
        return result
    }

    /// The params as encoded `k=v&k2=v2` text.
    func encode(_ params: [String: ParamValue]) -> String {
        if params.isEmpty { return "" }
        return Self.join(pairs(params))
    }

    /// Joins pairs into encoded form text.
    static func join(_ pairs: [(name: String, value: String)]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(pairs.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 } * 2)
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output.append(UInt8(ascii: "&")) }
            PercentEncoding.append(pair.name, allowing: PercentEncoding.unreserved, to: &output)
            output.append(UInt8(ascii: "="))
            PercentEncoding.append(pair.value, allowing: PercentEncoding.unreserved, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Byte order of the UTF-8 forms (equal to code point order).
    static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Keys in byte order. Swift's own `<` is a byte comparison for ASCII strings and much faster,
    /// so it is used when every key is ASCII (for others Swift orders by canonical equivalence).
    static func sortedKeys<Value>(_ dictionary: [String: Value]) -> [String] {
        let keys = Array(dictionary.keys)
        if keys.count < 2 { return keys }
        let allASCII = keys.allSatisfy { key in
            var key = key
            return key.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
        }
        return allASCII ? keys.sorted() : keys.sorted(by: byteOrder)
    }

    private func flatten(name: String, value: ParamValue, into result: inout [(name: String, value: String)])
    {
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
            for key in Self.sortedKeys(entries) {
                if let child = entries[key] {
                    flatten(name: name + "[" + key + "]", value: child, into: &result)
                }
            }
        }
    }
}
