import Foundation

/// Flattens params into name/value pairs and writes `application/x-www-form-urlencoded` text.
///
/// Keys are sorted in byte order at every level, so the same call always yields the same bytes.
/// Only RFC 3986 unreserved characters stay literal; brackets are sent as `%5B`/`%5D`, space as `%20`.
/// `nil` is dropped (a `nil` array element too, and the indexes after it close up, as in JSON). An
/// empty array or dictionary has no form representation and is omitted (JSON keeps `[]` and `{}`).
struct FormEncoder: Sendable {
    var options: ParamStyle

    /// Params as entries sorted by key in byte order, one per key.
    typealias Entries = [(key: String, value: ParamValue)]

    /// The params as (name, text) pairs, names still unencoded (`tags[]`, `filter[min]`).
    func pairs(_ params: [String: ParamValue]) -> [(name: String, value: String)] {
        pairs(sorted: Self.sortedEntries(params))
    }

    /// The pairs of entries already sorted by key (see ``sortedEntries(_:)``).
    func pairs(sorted entries: Entries) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        result.reserveCapacity(entries.count)
        for entry in entries { flatten(name: entry.key, value: entry.value, into: &result) }
        return result
    }

    /// The params as encoded `k=v&k2=v2` text: the pairs of ``pairs(_:)``, percent-encoded, written
    /// straight into one buffer.
    func encode(_ params: [String: ParamValue]) -> String {
        if params.isEmpty { return "" }
        var output: [UInt8] = []
        output.reserveCapacity(params.count * 24)
        append(sorted: Self.sortedEntries(params), to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// The encoded text of entries already sorted by key (see ``sortedEntries(_:)``).
    func encode(sorted entries: Entries) -> String {
        var output: [UInt8] = []
        append(sorted: entries, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the encoded pairs of entries sorted by key (see ``sortedEntries(_:)``) to `output`,
    /// `&` between pairs.
    /// - Parameter first: Written before the first pair, if any pair is written (`?` or `&` when
    ///   the pairs go at the end of a URL); `nil` for nothing.
    /// - Returns: Whether any pair was written.
    @discardableResult
    func append<Sink: ByteSink>(sorted entries: Entries, to output: inout Sink, first: UInt8? = nil) -> Bool {
        let unreserved = PercentEncoding.unreserved  // read once, not once per pair
        var wrote = false
        var name: [UInt8] = []
        // By index and by case, so that no entry is copied whole.
        for index in entries.indices {
            switch entries[index].value {
            case .null:
                continue
            case .bool(let flag):
                Self.separate(&output, wrote: &wrote, first: first)
                output.appendEncoded(entries[index].key, allowing: unreserved)
                output.append(UInt8(ascii: "="))
                output.append(Self.text(of: flag, options.bools))
            case .number(let text), .string(let text):
                Self.separate(&output, wrote: &wrote, first: first)
                output.appendEncoded(entries[index].key, allowing: unreserved)
                output.append(UInt8(ascii: "="))
                output.appendEncoded(text, allowing: unreserved)
            case .array(let items) where options.arrays != .indexed && Self.allScalars(items):
                // The common array: every element named alike (`k%5B%5D` or `k`), the name encoded once.
                name.removeAll(keepingCapacity: true)
                name.appendEncoded(entries[index].key, allowing: unreserved)
                if options.arrays == .brackets { name.append(Self.emptyBrackets) }
                name.withUnsafeBufferPointer { name in
                    for item in items {
                        switch item {
                        case .bool(let flag):
                            Self.separate(&output, wrote: &wrote, first: first)
                            output.append(name)
                            output.append(UInt8(ascii: "="))
                            output.append(Self.text(of: flag, options.bools))
                        case .number(let text), .string(let text):
                            Self.separate(&output, wrote: &wrote, first: first)
                            output.append(name)
                            output.append(UInt8(ascii: "="))
                            output.appendEncoded(text, allowing: unreserved)
                        case .null, .array, .dictionary:
                            continue
                        }
                    }
                }
            case .array, .dictionary:
                name.removeAll(keepingCapacity: true)
                name.appendEncoded(entries[index].key, allowing: unreserved)
                appendNested(
                    name: &name, value: entries[index].value, to: &output, wrote: &wrote, first: first)
            }
        }
        return wrote
    }

    /// A boolean as sent (only unreserved characters: nothing to encode).
    private static func text(of flag: Bool, _ style: ParamStyle.BoolEncoding) -> String {
        switch style {
        case .literal: flag ? "true" : "false"
        case .numeric: flag ? "1" : "0"
        }
    }

    /// Whether no item is an array or a dictionary (`nil` items are dropped, so they count).
    private static func allScalars(_ items: [ParamValue]) -> Bool {
        items.allSatisfy { item in
            switch item {
            case .array, .dictionary: false
            case .null, .bool, .number, .string: true
            }
        }
    }

    @inline(__always)
    private static func separate<Sink: ByteSink>(_ output: inout Sink, wrote: inout Bool, first: UInt8?) {
        if wrote {
            output.append(UInt8(ascii: "&"))
        } else {
            if let first { output.append(first) }
            wrote = true
        }
    }

    private static var openBracket: String { "%5B" }
    private static var closeBracket: String { "%5D" }
    private static var emptyBrackets: String { "%5B%5D" }

    /// The encoding counterpart of `flatten`: same names, same order, already encoded. `name` is
    /// the encoded name so far; it is extended for children and restored before returning.
    private func appendNested<Sink: ByteSink>(
        name: inout [UInt8], value: ParamValue, to output: inout Sink, wrote: inout Bool, first: UInt8?
    ) {
        switch value {
        case .null:
            return
        case .bool, .number, .string:
            guard let text = value.scalarText(bools: options.bools) else { return }
            Self.separate(&output, wrote: &wrote, first: first)
            name.withUnsafeBufferPointer { output.append($0) }
            output.append(UInt8(ascii: "="))
            output.appendEncoded(text, allowing: PercentEncoding.unreserved)
        case .array(let items):
            let mark = name.count
            // A nil element is dropped and the indexes after it close up, as in JSON.
            var index = 0
            for item in items {
                let isContainer: Bool
                switch item {
                case .null: continue
                case .array, .dictionary: isContainer = true
                case .bool, .number, .string: isContainer = false
                }
                if isContainer || options.arrays == .indexed {
                    name.append(Self.openBracket)
                    name.append(String(index))
                    name.append(Self.closeBracket)
                } else if options.arrays == .brackets {
                    name.append(Self.emptyBrackets)
                }
                appendNested(name: &name, value: item, to: &output, wrote: &wrote, first: first)
                name.removeSubrange(mark...)
                index += 1
            }
        case .dictionary(let entries):
            let mark = name.count
            for entry in Self.sortedEntries(entries) {
                name.append(Self.openBracket)
                name.appendEncoded(entry.key, allowing: PercentEncoding.unreserved)
                name.append(Self.closeBracket)
                appendNested(name: &name, value: entry.value, to: &output, wrote: &wrote, first: first)
                name.removeSubrange(mark...)
            }
        }
    }

    /// Byte order of the UTF-8 forms (equal to code point order).
    static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    /// Whether every key is ASCII: then Swift's own `<` is a byte comparison (and much faster than
    /// ``byteOrder(_:_:)``), and `==` is byte equality.
    private static func allASCII<Keys: Sequence<String>>(_ keys: Keys) -> Bool {
        keys.allSatisfy(\.isASCIIBytes)
    }

    /// Keys in byte order. Swift's own `<` is a byte comparison for ASCII strings and much faster,
    /// so it is used when every key is ASCII (for others Swift orders by canonical equivalence).
    static func sortedKeys<Value>(_ dictionary: [String: Value]) -> [String] {
        let keys = Array(dictionary.keys)
        if keys.count < 2 { return keys }
        return allASCII(keys) ? keys.sorted() : keys.sorted(by: byteOrder)
    }

    /// The entries of a dictionary in byte order of their keys.
    static func sortedEntries(_ dictionary: [String: ParamValue]) -> Entries {
        var entries = Entries(dictionary)
        if entries.count < 2 { return entries }
        if allASCII(dictionary.keys) {
            entries.sort { $0.key < $1.key }
        } else {
            entries.sort { byteOrder($0.key, $1.key) }
        }
        return entries
    }

    /// Merges the params of the three levels (a later level wins per top-level key, even with
    /// `nil`) into entries sorted by key in byte order: the same as merging dictionaries and
    /// sorting their keys, without hashing a key.
    static func merged(
        defaults: [String: ParamValue], target: [String: ParamValue], call: Params
    ) -> Entries {
        var entries: Entries = []
        entries.reserveCapacity(defaults.count + target.count + call.count)
        for (key, value) in defaults { entries.append((key, value)) }
        for (key, value) in target { entries.append((key, value)) }
        for (key, value) in call { entries.append((key, value.paramValue)) }
        return sortedMerging(entries)
    }

    /// Merges a call's params into entries already merged and sorted (a target's
    /// ``TargetDefaults/params``): the same result as merging the three levels at once.
    static func merged(base: Entries, call: Params) -> Entries {
        if call.isEmpty { return base }
        var entries: Entries = []
        entries.reserveCapacity(base.count + call.count)
        entries.append(contentsOf: base)
        for (key, value) in call { entries.append((key, value.paramValue)) }
        return sortedMerging(entries)
    }

    /// Entries in byte order of their keys, keeping the last of equal keys (sorted in place: the
    /// caller hands its array over).
    private static func sortedMerging(_ entries: consuming Entries) -> Entries {
        let count = entries.count
        if count < 2 { return entries }
        if count > 64 { return mergedByDictionary(entries) }
        // The first 8 bytes of each key as one big-endian integer, to compare keys cheaply (ASCII
        // keys only: their byte order is Swift's order); on the stack.
        let sorted = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { prefixes -> Bool in
            var ascii = true
            for index in 0..<count {
                let (prefix, isASCII) = entries[index].key.withUTF8Bytes { bytes -> (UInt64, Bool) in
                    var bits: UInt8 = 0
                    for byte in bytes { bits |= byte }
                    var prefix: UInt64 = 0
                    for index in 0..<8 {
                        prefix = prefix << 8 | UInt64(index < bytes.count ? bytes[index] : 0)
                    }
                    return (prefix, bits < 0x80)
                }
                ascii = ascii && isASCII
                prefixes.initializeElement(at: index, to: prefix)
            }
            if !ascii { return false }
            sortKeepingLast(&entries, prefixes: prefixes)
            return true
        }
        return sorted ? entries : mergedByDictionary(entries)
    }

    /// Non-ASCII keys that differ in bytes may still be equal Swift strings (canonical
    /// equivalence), so they merge as dictionary keys, exactly as levels always merged; many keys
    /// are sorted the general way.
    private static func mergedByDictionary(_ entries: Entries) -> Entries {
        var merged: [String: ParamValue] = [:]
        merged.reserveCapacity(entries.count)
        for entry in entries { merged[entry.key] = entry.value }
        return sortedEntries(merged)
    }

    /// Sorts a few dozen entries with ASCII keys in byte order and keeps the last of equal keys
    /// (the sort is stable, so that is the latest level's): an insertion sort that compares
    /// `prefixes`, and only equal prefixes as strings, through buffers, where swapping elements
    /// moves them without retaining anything.
    private static func sortKeepingLast(
        _ entries: inout Entries, prefixes: UnsafeMutableBufferPointer<UInt64>
    ) {
        guard entries.count > 1 else { return }
        let kept = entries.withUnsafeMutableBufferPointer { entries in
            for start in 1..<entries.count {
                var index = start
                while index > 0 {
                    let before = index - 1
                    let precedes =
                        prefixes[index] != prefixes[before]
                        ? prefixes[index] < prefixes[before] : entries[index].key < entries[before].key
                    if !precedes { break }
                    entries.swapAt(index, before)
                    prefixes.swapAt(index, before)
                    index = before
                }
            }
            var kept = 0
            for index in 0..<entries.count {
                let next = index + 1
                if next < entries.count && prefixes[next] == prefixes[index]
                    && entries[next].key == entries[index].key
                {
                    continue
                }
                if kept != index { entries.swapAt(kept, index) }
                kept += 1
            }
            return kept
        }
        if kept < entries.count { entries.removeSubrange(kept...) }
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
            for entry in Self.sortedEntries(entries) {
                flatten(name: name + "[" + entry.key + "]", value: entry.value, into: &result)
            }
        }
    }
}

extension FormEncoder {
    /// Entries as a dictionary.
    static func dictionary(_ entries: Entries) -> [String: ParamValue] {
        Dictionary(entries, uniquingKeysWith: { _, last in last })
    }

    /// Whether any entry has a value (not `nil`).
    static func hasValues(_ entries: Entries) -> Bool {
        entries.contains { entry in
            if case .null = entry.value { return false }
            return true
        }
    }
}
