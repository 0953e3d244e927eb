/// An ordered set of header fields whose names compare case-insensitively.
struct HeaderFields: Sendable {
    private(set) var fields: [(name: String, value: String)] = []

    /// Merges levels in order; a later level wins per name, and its spelling of the name is kept.
    /// - Throws: ``NetLayerError`` `.invalidHeader` when a name or value holds CR, LF or NUL, or a
    ///   name is empty or holds characters outside the HTTP token set.
    init(merging levels: [String: String]...) throws(NetLayerError) {
        for level in levels { try merge(level) }
    }

    /// Validates a level and merges it over the fields so far (see ``init(merging:)``).
    mutating func merge(_ level: [String: String]) throws(NetLayerError) {
        for name in FormEncoder.sortedKeys(level) {
            guard let value = level[name] else { continue }
            try Self.validate(name: name, value: value)
            set(name, value)
        }
    }

    /// Merges already validated fields over the fields so far.
    mutating func merge(_ other: HeaderFields) {
        if fields.isEmpty {
            fields = other.fields
            return
        }
        for field in other.fields { set(field.name, field.value) }
    }

    /// The value for a name, compared case-insensitively.
    subscript(name: String) -> String? {
        fields.first(where: { $0.name.caseInsensitiveEquals(name) })?.value
    }

    /// Sets a field, replacing any field of the same name (any case).
    mutating func set(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
            fields[index] = (name, value)
        } else {
            fields.append((name, value))
        }
    }

    /// The fields as a dictionary (names are unique case-insensitively, so nothing is lost).
    var dictionary: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(fields.count)
        for field in fields { result[field.name] = field.value }
        return result
    }

    /// Fields sorted by lower-cased name, for stable printing.
    var sorted: [(name: String, value: String)] {
        fields.sorted { $0.name.lowercased().utf8.lexicographicallyPrecedes($1.name.lowercased().utf8) }
    }

    static func validate(name: String, value: String) throws(NetLayerError) {
        if name.isEmpty { throw .invalidHeader(name: name, reason: "the name is empty") }
        for byte in name.utf8 where !tokenBytes.contains(byte) {
            let what =
                byte == 13
                ? "CR" : byte == 10 ? "LF" : byte == 0 ? "NUL" : "a character outside the token set"
            throw .invalidHeader(name: name, reason: "the name contains \(what)")
        }
        for byte in value.utf8 where byte == 13 || byte == 10 || byte == 0 {
            throw .invalidHeader(
                name: name, reason: "the value contains \(byte == 13 ? "CR" : byte == 10 ? "LF" : "NUL")")
        }
    }

    private static let tokenBytes = PercentEncoding.ByteSet(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 97 && (a | 0x20) <= 122)
        }
    }
}
