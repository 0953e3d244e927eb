import Foundation

/// Deterministic, non-periodic test bytes addressable by offset, so huge bodies can be produced and
/// checked piece by piece without ever being held whole.
///
/// The 8 bytes of block `k = offset / 8` are the little-endian bytes of `splitmix64(seed &+ k)`, where
/// `splitmix64(x)` is what the SplitMix64 generator returns from state `x` (so with seed 0 the first
/// bytes are `af cd 1d 7b 39 a8 20 e2`, i.e. `0xE220_A839_7B1D_CDAF`).
///
/// ```swift
/// let piece = TestPattern.bytes(seed: 7, range: 1_000..<2_000)
/// try TestPattern.writeFile(at: url, length: 200 << 20)
/// #expect(try TestPattern.checksumOfFile(url).checksum == TestPattern.checksum(range: 0..<(200 << 20)))
/// ```
enum TestPattern {
    /// The piece size used when writing files and computing checksums (1 MiB).
    static let chunkSize = 1 << 20

    /// The SplitMix64 output for state `state`.
    static func splitmix64(_ state: UInt64) -> UInt64 {
        var z = state &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The pattern bytes at offsets `range` (which must not be negative).
    static func bytes(seed: UInt64 = 0, range: Range<Int64>) -> Data {
        precondition(range.lowerBound >= 0, "TestPattern: negative offset")
        var data = Data(count: Int(range.upperBound - range.lowerBound))
        data.withUnsafeMutableBytes { fill($0, seed: seed, offset: range.lowerBound) }
        return data
    }

    /// Fills `buffer` with the pattern bytes starting at `offset`, one 8-byte block at a time.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer, seed: UInt64, offset: Int64) {
        guard let base = buffer.baseAddress else { return }
        let count = buffer.count
        var block = UInt64(offset / 8)
        var written = 0
        let skip = Int(offset % 8)
        if skip != 0 {  // a partial first block
            var word = splitmix64(seed &+ block).littleEndian
            let length = min(8 - skip, count)
            withUnsafeBytes(of: &word) { base.copyMemory(from: $0.baseAddress! + skip, byteCount: length) }
            written = length
            block &+= 1
        }
        while count - written >= 8 {
            base.storeBytes(
                of: splitmix64(seed &+ block).littleEndian, toByteOffset: written, as: UInt64.self)
            written += 8
            block &+= 1
        }
        if written < count {  // a partial last block
            var word = splitmix64(seed &+ block).littleEndian
            let length = count - written
            withUnsafeBytes(of: &word) {
                (base + written).copyMemory(from: $0.baseAddress!, byteCount: length)
            }
        }
    }

    /// Creates (or replaces) the file at `url` with pattern bytes `0..<length`, written 1 MiB at a time.
    static func writeFile(at url: URL, length: Int64, seed: UInt64 = 0) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var offset: Int64 = 0
        while offset < length {
            let end = min(length, offset + Int64(chunkSize))
            try handle.write(contentsOf: bytes(seed: seed, range: offset..<end))
            offset = end
        }
    }

    /// The `TestChecksum` value of pattern bytes `range`, computed 1 MiB at a time.
    static func checksum(seed: UInt64 = 0, range: Range<Int64>) -> UInt64 {
        var checksum = TestChecksum()
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let length = Int(min(range.upperBound - offset, Int64(chunkSize)))
            buffer.withUnsafeMutableBytes { raw in
                let piece = UnsafeMutableRawBufferPointer(rebasing: raw[0..<length])
                fill(piece, seed: seed, offset: offset)
                checksum.update(UnsafeRawBufferPointer(piece))
            }
            offset += Int64(length)
        }
        return checksum.value
    }

    /// The `TestChecksum` value and length of the file at `url`, read 1 MiB at a time.
    static func checksumOfFile(_ url: URL) throws -> (checksum: UInt64, length: Int64) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var checksum = TestChecksum()
        while let piece = try handle.read(upToCount: chunkSize), !piece.isEmpty {
            checksum.update(piece)
        }
        return (checksum.value, checksum.count)
    }
}

/// A streaming 64-bit FNV-1a checksum: feeding the same bytes in any split gives the same `value`.
/// About 0.7 s per 200 MiB in a debug build.
struct TestChecksum: Sendable, Equatable {
    static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// The checksum of every byte fed so far (`offsetBasis` when none).
    private(set) var value: UInt64 = offsetBasis
    /// How many bytes were fed.
    private(set) var count: Int64 = 0

    init() {}

    /// `value` as 16 lowercase hex digits, as the sink route reports it.
    var hex: String { Self.hex(value) }

    /// `value` as 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        let prime = Self.prime
        bytes.withMemoryRebound(to: UInt8.self) { typed in
            guard var pointer = typed.baseAddress else { return }
            let end = pointer + typed.count
            while pointer < end {
                hash = (hash ^ UInt64(pointer.pointee)) &* prime
                pointer += 1
            }
        }
        value = hash
        count += Int64(bytes.count)
    }
}
