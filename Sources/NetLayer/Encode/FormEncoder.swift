import Foundation

/// Flattens params into name/value pairs and writes `application/x-www-form-urlencoded` text.
///
/// Keys are sorted in byte order at every level, so the same call always yields the same bytes.
/// Only RFC 3986 unreserved characters stay literal; brackets are sent as `%5B`/`%5D`, space as `%20`.
/// `nil` is dropped (a `nil` array element too, and the indexes after it close up, as in JSON). An
/// empty array or dictionary has no form representation and is omitted (JSON keeps `[]` and `{}`).
struct FormEncoder: Sendable {
    var options: ParamStyle

    /// The params as (name, text) pairs, names still unencoded (`tags[]`, `filter[min]`).
    func pairs(_ params: [String: ParamValue]) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        result.reserveCapacity(params.count)
        for key in Self.sortedKeys(params) {
            if let value = params[key] { flatten(name: key, value: value, into: &result) }
        }
        return result
    }

    /// The params as encoded `k=v&k2=v2` text: the pairs of ``pairs(_:)``, percent-encoded, written
    /// straight into one buffer.
    func encode(_ params: [String: ParamValue]) -> String {
        if params.isEmpty { return "" }
        var output: [UInt8] = []
        output.reserveCapacity(params.count * 24)
        for key in Self.sortedKeys(params) {
            guard let value = params[key] else { continue }
            var name: [UInt8] = []
            PercentEncoding.append(key, allowing: PercentEncoding.unreserved, to: &name)
            appendEncoded(name: name, value: value, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let openBracket = Array("%5B".utf8)
    private static let closeBracket = Array("%5D".utf8)
    private static let emptyBrackets = Array("%5B%5D".utf8)

    /// The encoding counterpart of `flatten`: same names, same order, already encoded.
    private func appendEncoded(name: [UInt8], value: ParamValue, to output: inout [UInt8]) {
        switch value {
        case .null:
            return
        case .bool, .number, .string:
            guard let text = value.scalarText(bools: options.bools) else { return }
            if !output.isEmpty { output.append(UInt8(ascii: "&")) }
            output.append(contentsOf: name)
            output.append(UInt8(ascii: "="))
            PercentEncoding.append(text, allowing: PercentEncoding.unreserved, to: &output)
        case .array(let items):
            let scalarName: [UInt8]
            switch options.arrays {
            case .brackets: scalarName = name + Self.emptyBrackets
            case .noBrackets: scalarName = name
            case .indexed: scalarName = []
            }
            // A nil element is dropped and the indexes after it close up, as in JSON.
            for (index, item) in items.lazy.filter({ $0 != .null }).enumerated() {
                let isContainer: Bool
                switch item {
                case .array, .dictionary: isContainer = true
                default: isContainer = false
                }
                if isContainer || options.arrays == .indexed {
                    appendEncoded(
                        name: name + Self.openBracket + Array(String(index).utf8) + Self.closeBracket,
                        value: item,
                        to: &output)
                } else {
                    appendEncoded(name: scalarName, value: item, to: &output)
                }
            }
        case .dictionary(let entries):
            for key in Self.sortedKeys(entries) {
                guard let child = entries[key] else { continue }
                var childName = name + Self.openBracket
                PercentEncoding.append(key, allowing: PercentEncoding.unreserved, to: &childName)
                childName += Self.closeBracket
                appendEncoded(name: childName, value: child, to: &output)
            }
        }
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
            for (index, item) in items.lazy.filter({ $0 != .null }).enumerated() {
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
