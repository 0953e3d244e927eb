/// Byte-level percent-encoding, so that nothing is ever encoded twice and the output is exact.
enum PercentEncoding {
    /// A set of ASCII bytes that stay literal.
    struct ByteSet: Sendable {
        private var low: UInt64 = 0
        private var high: UInt64 = 0

        init(_ characters: String) {
            for byte in characters.utf8 { insert(byte) }
        }

        mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }

        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
            if byte < 128 { return high & (1 << UInt64(byte - 64)) != 0 }
            return false
        }

        func union(_ other: String) -> ByteSet {
            var copy = self
            for byte in other.utf8 { copy.insert(byte) }
            return copy
        }
    }

    /// RFC 3986 unreserved characters: the only ones literal in query and form keys and values.
    static let unreserved = ByteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    /// What may stay literal inside one path segment: unreserved, sub-delims, `:` and `@`.
    static let pathSegment = unreserved.union("!$&'()*+,;=:@")
    /// Characters that may appear literally in a URL we assemble (besides `%XX` escapes). Never `#`:
    /// a fragment is not sent, so everything after it would be dropped without a word.
    static let urlCharacters = pathSegment.union("/?[]%")

    /// The upper-case hex digit of a nibble.
    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
    }

    /// Appends the percent-encoded UTF-8 form of `text` to `output`.
    static func append(_ text: String, allowing allowed: ByteSet, to output: inout [UInt8]) {
        output.appendEncoded(text, allowing: allowed)
    }

    /// The first byte of `text` that may not appear literally in a URL, as a printable description.
    static func firstInvalidURLCharacter(in text: Substring) -> String? {
        if let result = text.utf8.withContiguousStorageIfAvailable(firstInvalidURLCharacter(in:)) {
            return result
        }
        return Array(text.utf8).withUnsafeBufferPointer(firstInvalidURLCharacter(in:))
    }

    static func firstInvalidURLCharacter(in text: String) -> String? {
        text.withUTF8Bytes(firstInvalidURLCharacter(in:))
    }

    static func firstInvalidURLCharacter(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let urlCharacters = urlCharacters
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let isEscape =
                    index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
                if !isEscape { return "'%' not followed by two hex digits" }
                index += 3
                continue
            }
            if !urlCharacters.contains(byte) {
                return byte == UInt8(ascii: " ") ? "a space" : "'\(String(decoding: [byte], as: UTF8.self))'"
            }
            index += 1
        }
        return nil
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
    }
}

/// Where encoders write bytes: an array, or a ``ByteWriter`` filling a buffer.
protocol ByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
    /// Appends the percent-encoded form of UTF-8 `bytes`: bytes outside `allowed` as `%XX`.
    mutating func appendEncoded(
        _ bytes: UnsafeBufferPointer<UInt8>, allowing allowed: PercentEncoding.ByteSet)
}

extension ByteSink {
    mutating func append(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
        var text = text
        text.withUTF8 { append($0) }
    }

    mutating func append(_ text: Substring) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) != nil { return }
        var text = text
        text.withUTF8 { append($0) }
    }

    mutating func appendEncoded(_ text: String, allowing allowed: PercentEncoding.ByteSet) {
        if text.utf8.withContiguousStorageIfAvailable({ appendEncoded($0, allowing: allowed) }) != nil {
            return
        }
        var text = text
        text.withUTF8 { appendEncoded($0, allowing: allowed) }
    }

    /// Byte by byte, the literal run before the first byte to escape in one piece (most names and
    /// values have none).
    mutating func appendEncoded(
        _ bytes: UnsafeBufferPointer<UInt8>, allowing allowed: PercentEncoding.ByteSet
    ) {
        var literal = 0
        while literal < bytes.count && allowed.contains(bytes[literal]) { literal += 1 }
        append(UnsafeBufferPointer(rebasing: bytes[..<literal]))
        if literal == bytes.count { return }
        for byte in bytes[literal...] {
            if allowed.contains(byte) {
                append(byte)
            } else {
                append(UInt8(ascii: "%"))
                append(PercentEncoding.hexDigit(byte >> 4))
                append(PercentEncoding.hexDigit(byte & 0x0F))
            }
        }
    }
}

extension Array: ByteSink where Element == UInt8 {
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// Writes into a buffer of a size estimated beforehand, with no check of uniqueness or growth per
/// byte. Never writes past the end: a byte that does not fit sets ``overflowed`` instead (the
/// caller then takes a slower path).
struct ByteWriter: ByteSink {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0
    private(set) var overflowed = false

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func append(_ byte: UInt8) {
        guard count < buffer.count else {
            overflowed = true
            return
        }
        buffer[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        guard bytes.count <= buffer.count - count, let target = buffer.baseAddress else {
            overflowed = true
            return
        }
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Scans and copies in one loop (names and values are short: a copy call per run would cost
    /// more than the bytes).
    mutating func appendEncoded(
        _ bytes: UnsafeBufferPointer<UInt8>, allowing allowed: PercentEncoding.ByteSet
    ) {
        guard bytes.count > 0 else { return }
        // Room for the worst case (every byte escaped), so no byte needs its own check.
        guard bytes.count <= (buffer.count - count) / 3, let target = buffer.baseAddress else {
            overflowed = true
            return
        }
        var position = count
        for byte in bytes {
            if allowed.contains(byte) {
                target[position] = byte
                position += 1
            } else {
                target[position] = UInt8(ascii: "%")
                target[position + 1] = PercentEncoding.hexDigit(byte >> 4)
                target[position + 2] = PercentEncoding.hexDigit(byte & 0x0F)
                position += 3
            }
        }
        count = position
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes: in place for a native string, from a copy
    /// otherwise.
    @inline(__always)
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }

    /// Whether every byte is ASCII.
    var isASCIIBytes: Bool {
        withUTF8Bytes { bytes in
            var bits: UInt8 = 0
            for byte in bytes { bits |= byte }
            return bits < 0x80
        }
    }
}
