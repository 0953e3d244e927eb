import Foundation

/// One stored response: its head as the cache keeps it, the instants it was requested and
/// received (RFC 9111 §4.2.3), the request fields that selected it (§4.1), and its body.
///
/// Entries are made by the cache stage. A store keeps them as they are, or as
/// ``encoded()`` bytes that ``init(encoded:)`` reads back and checks.
public struct HTTPCacheEntry: Sendable, Hashable {
    let stored: StoredResponse
    /// The response body.
    public let body: Data

    init(stored: StoredResponse, body: Data) {
        self.stored = stored
        self.body = body
    }

    /// The status code.
    public var statusCode: Int { stored.status }

    /// The stored header fields.
    public var headerFields: HeaderFields { stored.headers }

    /// When the response was received.
    public var receivedAt: Date { stored.responseTime }

    /// Whether this entry and `other` answer the same requests (their `Vary` names the same fields
    /// with the same values): a store keeps one of them, the newer.
    public func selectsSameRequests(as other: HTTPCacheEntry) -> Bool { stored.vary == other.stored.vary }

    /// What it counts against a store's bound: its body, its fields, and 64 bytes.
    public var size: Int {
        body.count + stored.headers.reduce(64) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}

// MARK: Encoding

extension HTTPCacheEntry {
    /// The entry as bytes, for a store that writes it down: a versioned binary form ending with a
    /// checksum of the rest. It holds the response's fields and body, the instants, and the request
    /// fields its `Vary` names, except credentials (`Authorization`, `Cookie` and the resource's
    /// secret headers), which the key's partition stands for: nothing secret beyond what the
    /// response itself holds.
    public func encoded() -> Data {
        var writer = EntryWriter()
        writer.bytes.append(contentsOf: Self.magic)
        writer.bytes.append(Self.version)
        writer.integer(UInt16(clamping: stored.status))
        writer.integer(stored.requestTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.integer(stored.responseTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.integer(UInt16(clamping: stored.vary.fields.count))
        for field in stored.vary.fields.prefix(Int(UInt16.max)) {
            writer.string(field.name)
            if let value = field.value {
                writer.bytes.append(1)
                writer.string(value)
            } else {
                writer.bytes.append(0)
            }
        }
        writer.integer(UInt32(clamping: stored.headers.count))
        for field in stored.headers {
            writer.string(field.name)
            writer.string(field.value)
        }
        writer.integer(UInt64(body.count))
        writer.bytes.append(contentsOf: body)
        writer.integer(Checksum.of(writer.bytes))
        return Data(writer.bytes)
    }

    /// Reads what ``encoded()`` wrote.
    /// - Throws: ``NetLayerError/Code/decodingFailed`` for bytes that are not a whole entry of this
    ///   version: truncated, extended, changed anywhere (the checksum), or out of range (a status
    ///   outside 100–999, a time that is not finite, a field name that is not a token, a value with
    ///   a line break or a NUL, more `Vary` fields than a stored response may have).
    public init(encoded data: Data) throws(NetLayerError) {
        let bytes = [UInt8](data)
        func failure(_ why: String) -> NetLayerError {
            NetLayerError(.decodingFailed, "The cache entry cannot be read: \(why).")
        }
        guard bytes.count >= Self.magic.count + 1 + 8, bytes.starts(with: Self.magic) else {
            throw failure("it is not a NetLayer cache entry")
        }
        guard bytes[Self.magic.count] == Self.version else { throw failure("it has another version") }
        var trailer = EntryReader(bytes: bytes, position: bytes.count - 8)
        guard let checksum: UInt64 = trailer.integer(), checksum == Checksum.of(bytes[..<(bytes.count - 8)])
        else { throw failure("its checksum does not match") }
        var reader = EntryReader(bytes: Array(bytes[..<(bytes.count - 8)]), position: Self.magic.count + 1)
        guard let status: UInt16 = reader.integer(), (100...999).contains(status),
            let requestBits: UInt64 = reader.integer(), let responseBits: UInt64 = reader.integer()
        else { throw failure("its status is out of range") }
        let requestTime = Double(bitPattern: requestBits)
        let responseTime = Double(bitPattern: responseBits)
        guard requestTime.isFinite, responseTime.isFinite else { throw failure("its times are not finite") }
        guard let varyCount: UInt16 = reader.integer(), varyCount <= VaryKey.maximumNames else {
            throw failure("its Vary has too many fields")
        }
        var varyFields: [VaryKey.Field] = []
        for _ in 0..<varyCount {
            guard let name = reader.string(), FieldList.isToken(name[...]), let flag = reader.byte(),
                flag <= 1
            else { throw failure("a Vary field is malformed") }
            var value: String?
            if flag == 1 {
                guard let read = reader.string(), Self.isFieldValue(read) else {
                    throw failure("a Vary field is malformed")
                }
                value = read
            }
            varyFields.append(VaryKey.Field(name: name, value: value))
        }
        guard let headerCount: UInt32 = reader.integer() else { throw failure("it is truncated") }
        var received: [(name: String, value: String)] = []
        for _ in 0..<headerCount {
            guard let name = reader.string(), FieldList.isToken(name[...]), let value = reader.string(),
                Self.isFieldValue(value)
            else { throw failure("a header field is malformed") }
            received.append((name, value))
        }
        guard let bodyLength: UInt64 = reader.integer(), bodyLength == UInt64(reader.remaining),
            let body = reader.take(Int(bodyLength))
        else { throw failure("its body length does not match") }
        self.init(
            stored: StoredResponse(
                status: Int(status), headers: HeaderFields(received: received),
                requestTime: Date(timeIntervalSinceReferenceDate: requestTime),
                responseTime: Date(timeIntervalSinceReferenceDate: responseTime),
                vary: VaryKey(fields: varyFields)),
            body: Data(body))
    }

    /// `NLCE`.
    static let magic: [UInt8] = [0x4E, 0x4C, 0x43, 0x45]
    /// The form's version.
    static let version: UInt8 = 1

    /// Whether `value` may be a stored field value: no CR, LF or NUL.
    static func isFieldValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
    }
}

/// Appends big-endian integers and length-prefixed UTF-8 strings.
struct EntryWriter {
    var bytes: [UInt8] = []

    mutating func integer<Value: FixedWidthInteger>(_ value: Value) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        integer(UInt32(clamping: utf8.count))
        bytes.append(contentsOf: utf8.prefix(Int(UInt32.max)))
    }
}

/// Reads what ``EntryWriter`` wrote; every read is bounded by what is left, and `nil` past it.
struct EntryReader {
    let bytes: [UInt8]
    var position: Int

    var remaining: Int { bytes.count - position }

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func integer<Value: FixedWidthInteger & UnsignedInteger>() -> Value? {
        guard let part = take(MemoryLayout<Value>.size) else { return nil }
        return part.reduce(Value.zero) { $0 << 8 | Value($1) }
    }

    mutating func string() -> String? {
        guard let length: UInt32 = integer(), let part = take(Int(length)) else { return nil }
        // Not `String(validating:)` (macOS 15, iOS 18): decoding repairs invalid UTF-8, so a
        // string that does not give the same bytes back was not valid.
        let text = String(decoding: part, as: UTF8.self)
        return text.utf8.elementsEqual(part) ? text : nil
    }
}

/// FNV-1a over 64 bits: a checksum that finds a torn, truncated or changed entry. Not a defence
/// against someone who may write the store's files (they can write a valid entry as well).
enum Checksum {
    static func of<Bytes: Collection>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
