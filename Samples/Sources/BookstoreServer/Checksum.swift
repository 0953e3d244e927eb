import Foundation
import NIOCore

/// FNV-1a (64 bit) of a byte stream, fed a chunk at a time: what the service reports for every
/// upload and uses as the export's `ETag`, so a client can check the bytes end to end. Not a
/// cryptographic hash; enough to catch a lost, repeated or reordered chunk.
public struct Checksum: Sendable, Hashable {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325
    /// Bytes fed so far.
    public private(set) var count: Int64 = 0

    public init() {}

    /// Feeds `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var hash = state
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        state = hash
        count += Int64(bytes.count)
    }

    /// Feeds `data`.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Feeds the readable bytes of `buffer`.
    public mutating func update(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { update($0) }
    }

    /// `fnv1a64-0123456789abcdef`.
    public var value: String {
        let hex = String(state, radix: 16)
        return "fnv1a64-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The checksum of `data`.
    public static func of(_ data: Data) -> String {
        var checksum = Checksum()
        checksum.update(data)
        return checksum.value
    }

    /// The checksum of a file (or a byte range of it), read 1 MiB at a time.
    public static func of(file: URL, range: Range<Int64>? = nil) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var checksum = Checksum()
        var left = range.map { Int64($0.count) } ?? .max
        try handle.seek(toOffset: UInt64(range?.lowerBound ?? 0))
        while left > 0, let chunk = try handle.read(upToCount: Int(min(left, 1 << 20))), !chunk.isEmpty {
            checksum.update(chunk)
            left -= Int64(chunk.count)
        }
        return checksum.value
    }
}
