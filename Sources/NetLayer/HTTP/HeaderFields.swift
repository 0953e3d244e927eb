/// One header field: a name and its value, as sent or received.
public struct HeaderField: Sendable, Hashable {
    /// The name, spelled as sent or received.
    public let name: String
    /// The value, trimmed of leading and trailing spaces and tabs.
    public let value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Ordered header fields whose names compare case-insensitively.
///
/// In a request, each name appears once (a later level replaced an earlier one) and every field was
/// checked: names are RFC 9110 tokens, values hold no control character but HTAB, and the framing
/// headers are NetLayer's. In a response, a name may repeat (`Set-Cookie`); ``values(for:)`` returns
/// them all.
public struct HeaderFields: Sendable, Hashable, Sequence {
    /// The fields in order.
    public private(set) var fields: [HeaderField] = []

    /// No fields.
    public init() {}

    /// Fields received from a server (or a stub), kept as given, repeated names included.
    /// - Parameter received: Name and value pairs in arrival order.
    public init(received: [(name: String, value: String)]) {
        fields = received.map { HeaderField($0.name, $0.value) }
    }

    /// The first value for a name, compared case-insensitively; `nil` when absent.
    public subscript(name: String) -> String? {
        fields.first(where: { $0.name.caseInsensitiveEquals(name) })?.value
    }

    /// Every value for a name, compared case-insensitively, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// How many fields there are.
    var count: Int { fields.count }

    /// Makes room for `capacity` fields in all.
    mutating func reserveCapacity(_ capacity: Int) { fields.reserveCapacity(capacity) }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[HeaderField]> { fields.makeIterator() }

    /// Sets a field after checking it as every caller-supplied header is checked, replacing any
    /// field of the same name; `nil` removes the field.
    /// - Throws: ``NetLayerError/Code/invalidHeader`` for a name that is not a token or is a framing
    ///   header, or a value with control characters.
    public mutating func setValue(_ value: String?, for name: String) throws(NetLayerError) {
        guard let value else {
            remove(name)
            return
        }
        set(name, try Self.validated(name: name, value: value))
    }

    /// Removes every field with this name (any case).
    mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Appends a field without replacing others of the same name (response fields).
    mutating func append(_ name: String, _ value: String) {
        fields.append(HeaderField(name, value))
    }

    /// Merges levels in order; a later level wins per name, and its spelling of the name is kept.
    /// Values are trimmed of leading and trailing spaces and tabs (RFC 9110 §5.5).
    /// - Throws: ``NetLayerError`` `.invalidHeader` (see ``validated(name:value:)``).
    init(merging levels: [String: String]...) throws(NetLayerError) {
        for level in levels { try merge(level) }
    }

    /// Validates a level and merges it over the fields so far (see ``init(merging:)``).
    mutating func merge(_ level: [String: String]) throws(NetLayerError) {
        if level.isEmpty { return }
        if level.count == 1, let (name, value) = level.first {
            set(name, try Self.validated(name: name, value: value))
            return
        }
        if level.count == 2 {
            // The common small level, in order without an array.
            let first = level[level.startIndex]
            let second = level[level.index(after: level.startIndex)]
            let inOrder =
                first.key.isASCIIBytes && second.key.isASCIIBytes
                ? first.key < second.key : FormEncoder.byteOrder(first.key, second.key)
            let (a, b) = inOrder ? (first, second) : (second, first)
            set(a.key, try Self.validated(name: a.key, value: a.value))
            set(b.key, try Self.validated(name: b.key, value: b.value))
            return
        }
        var entries = Array(level)
        if entries.count > 1 {
            // In byte order of the names (Swift's `<` is that for ASCII, and much faster).
            if level.keys.allSatisfy(\.isASCIIBytes) {
                entries.sort { $0.key < $1.key }
            } else {
                entries.sort { FormEncoder.byteOrder($0.key, $1.key) }
            }
        }
        for (name, value) in entries { set(name, try Self.validated(name: name, value: value)) }
    }

    /// Merges already validated fields over the fields so far.
    mutating func merge(_ other: HeaderFields) {
        if other.fields.isEmpty { return }
        if fields.isEmpty {
            fields = other.fields
            return
        }
        for field in other.fields { set(field.name, field.value) }
    }

    /// Sets a field, replacing any field of the same name (any case).
    mutating func set(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
            fields[index] = HeaderField(name, value)
        } else {
            fields.append(HeaderField(name, value))
        }
    }

    /// The fields as a dictionary, for `URLRequest`. NetLayer's own requests name each field once;
    /// fields a caller made with ``init(received:)`` may repeat a name, and their values are then
    /// joined with ", " in order (RFC 9110 §5.3), never dropped.
    var dictionary: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(fields.count)
        for field in fields {
            if let earlier = result.updateValue(field.value, forKey: field.name) {
                result[field.name] = earlier + ", " + field.value
            }
        }
        return result
    }

    /// Fields sorted by lower-cased name, for stable printing.
    var sorted: [HeaderField] {
        fields.sorted { $0.name.lowercased().utf8.lexicographicallyPrecedes($1.name.lowercased().utf8) }
    }

    /// Header names NetLayer owns because they frame the message or the connection. A caller's
    /// `Content-Length: 5` on a 12-byte body would let the last 7 bytes be read as the next request on
    /// a kept-alive connection (request smuggling); `Transfer-Encoding`, `Connection`, `Keep-Alive`,
    /// `TE`, `Trailer` and `Upgrade` change how the message or the connection ends; `Host` must match
    /// the URL. NetLayer and the transport compute all of them.
    static let framingNames: Set<String> = [
        "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "host",
    ]

    /// The value as sent: checked, then trimmed of leading and trailing spaces and tabs.
    /// - Throws: ``NetLayerError`` `.invalidHeader` when the name is empty, not an RFC 9110 token or
    ///   one of the ``framingNames``, or the value holds a control character other than HTAB
    ///   (CR, LF, NUL, 0x01–0x1F, DEL).
    static func validated(name: String, value: String) throws(NetLayerError) -> String {
        try validate(name: name)
        // The name is a token, so ASCII: comparing without case equals lower-casing it.
        if framingNames.contains(where: { $0.caseInsensitiveEquals(name) }) {
            throw .invalidHeader(
                name: name,
                reason: "NetLayer sets the framing headers itself (Content-Length, Transfer-Encoding, "
                    + "Connection, Keep-Alive, TE, Trailer, Upgrade, Host); a caller's value could split "
                    + "or stall the request on a shared connection")
        }
        return try validatedValue(value, name: name)
    }

    /// Checks a header name: not empty, only RFC 9110 token characters.
    static func validate(name: String) throws(NetLayerError) {
        if name.isEmpty { throw .invalidHeader(name: name, reason: "the name is empty") }
        let tokenBytes = tokenBytes
        let bad = name.withUTF8Bytes { bytes in bytes.first { !tokenBytes.contains($0) } }
        if let bad {
            throw .invalidHeader(
                name: name,
                reason: "the name contains \(describe(bad)), which is not allowed in an HTTP token")
        }
    }

    /// Checks a field value (no control character but HTAB) and trims leading and trailing spaces
    /// and tabs; a value that is empty after trimming is kept as an empty field.
    static func validatedValue(_ value: String, name: String) throws(NetLayerError) -> String {
        let (control, needsTrim) = value.withUTF8Bytes { bytes -> (UInt8?, Bool) in
            let control = bytes.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
            let first: UInt8? = bytes.first
            let last: UInt8? = bytes.last
            let edges = first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
            return (control, edges)
        }
        if let control { throw .invalidHeader(name: name, reason: "the value contains \(describe(control))") }
        guard needsTrim else { return value }
        let bytes = Array(value.utf8)
        var start = 0
        var end = bytes.count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// A byte as a person reads it in an error message: `CR`, `LF`, `NUL`, `0x01`, `'('`.
    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0D: return "CR"
        case 0x0A: return "LF"
        case 0x00: return "NUL"
        case 0x7F: return "DEL"
        case 0x20: return "a space"
        case 0..<0x20: return "the control character 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
        case 0x80...: return "a non-ASCII character"
        default: return "'\(Character(Unicode.Scalar(byte)))'"
        }
    }

    /// Whether a byte may appear in an RFC 9110 token (method names, header names).
    static func isTokenByte(_ byte: UInt8) -> Bool { tokenBytes.contains(byte) }

    private static let tokenBytes = PercentEncoding.ByteSet(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return withUTF8Bytes { lhs in
            other.withUTF8Bytes { rhs in
                for index in 0..<lhs.count {
                    let a = lhs[index]
                    let b = rhs[index]
                    if a != b && !(a | 0x20 == b | 0x20 && (a | 0x20) >= 97 && (a | 0x20) <= 122) {
                        return false
                    }
                }
                return true
            }
        }
    }
}
