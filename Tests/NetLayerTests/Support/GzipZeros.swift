import Foundation

/// A valid gzip stream (RFC 1951, RFC 1952) of many zero bytes, made piece by piece without
/// compressing anything and never held whole: a gzip bomb for hostile-server tests.
///
/// The stream is a 10-byte header, the same deflate block repeated `blocks` times, a final empty
/// block and the trailer (CRC-32 and length of the inflated bytes). Each block is a fixed-Huffman
/// block holding one literal zero and `matches` copies of "length 258, distance 1"; `matches` is
/// 6 more than a multiple of 8, so a block is exactly a whole number of bytes (18 + 13 × `matches`
/// bits) and copies of it can follow one another. About 159 inflated bytes per byte sent.
struct GzipZeros: Sendable {
    /// How many times the block repeats.
    let blocks: Int64
    private let header = Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF])
    private let block: Data
    private let trailer: Data
    /// Zero bytes one block inflates to.
    let bytesPerBlock: Int64

    /// - Parameters:
    ///   - blocks: How many blocks.
    ///   - matchGroups: `matches` is `8 × matchGroups + 6`. Default 4,063: a block of 52,831 bytes
    ///     that inflates to 8,387,581 zeros.
    init(blocks: Int64, matchGroups: Int = 4_063) {
        let matches = 8 * matchGroups + 6
        var bits = DeflateBits()
        bits.append(0, count: 1)  // BFINAL: more blocks follow
        bits.append(1, count: 2)  // BTYPE 01: fixed Huffman codes
        bits.appendCode(0x30, length: 8)  // literal 0
        for _ in 0..<matches {
            bits.appendCode(0xC5, length: 8)  // length code 285: 258 bytes
            bits.appendCode(0, length: 5)  // distance code 0: 1 byte back
        }
        bits.appendCode(0, length: 7)  // end of block
        self.blocks = blocks
        self.block = bits.bytes
        self.bytesPerBlock = 1 + 258 * Int64(matches)
        let inflated = blocks * bytesPerBlock
        let crc = CRC32.ofZeros(count: inflated)
        let size = UInt32(truncatingIfNeeded: inflated)
        // A final fixed-Huffman block with nothing in it, then CRC-32 and ISIZE, little-endian.
        self.trailer =
            Data([0x03, 0x00])
            + Data((0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
            + Data((0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) })
    }

    /// The zero bytes the whole stream inflates to.
    var inflatedLength: Int64 { blocks * bytesPerBlock }

    /// The bytes on the wire.
    var length: Int64 { Int64(header.count) + blocks * Int64(block.count) + Int64(trailer.count) }

    /// The stream's bytes at offsets `range` (within `0..<length`).
    func bytes(_ range: Range<Int64>) -> Data {
        var out = Data(capacity: range.count)
        var offset = range.lowerBound
        let blocksEnd = Int64(header.count) + blocks * Int64(block.count)
        while offset < range.upperBound {
            let piece: Data
            let start: Int64
            if offset < Int64(header.count) {
                (piece, start) = (header, 0)
            } else if offset < blocksEnd {
                let inBlocks = offset - Int64(header.count)
                (piece, start) = (block, inBlocks - inBlocks % Int64(block.count) + Int64(header.count))
            } else {
                (piece, start) = (trailer, blocksEnd)
            }
            let from = Int(offset - start)
            let to = min(piece.count, Int(range.upperBound - start))
            out.append(piece[piece.startIndex + from..<piece.startIndex + to])
            offset = start + Int64(to)
        }
        return out
    }
}

/// Bits packed the deflate way: numbers least significant bit first, Huffman codes most
/// significant bit first, each byte filled from its lowest bit.
private struct DeflateBits {
    private(set) var bytes = Data()
    private var used = 8

    mutating func append(_ value: UInt32, count: Int) {
        for bit in 0..<count { appendBit((value >> bit) & 1) }
    }

    mutating func appendCode(_ code: UInt32, length: Int) {
        for bit in (0..<length).reversed() { appendBit((code >> bit) & 1) }
    }

    private mutating func appendBit(_ bit: UInt32) {
        if used == 8 {
            bytes.append(0)
            used = 0
        }
        bytes[bytes.count - 1] |= UInt8(bit) << used
        used += 1
    }
}

/// CRC-32 (ISO-HDLC, as gzip uses) of a run of zero bytes, in time logarithmic in its length:
/// each zero byte multiplies the register by x^8 modulo the polynomial (reflected bit order).
enum CRC32 {
    private static let polynomial: UInt32 = 0xEDB8_8320

    /// The CRC-32 of `count` zero bytes.
    static func ofZeros(count: Int64) -> UInt32 {
        ~multiply(xToThePower8Times(count), 0xFFFF_FFFF)
    }

    /// a × b modulo the polynomial; bit 31 is x^0.
    private static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var (product, b, mask) = (UInt32(0), b, UInt32(1) << 31)
        while mask != 0 {
            if a & mask != 0 { product ^= b }
            mask >>= 1
            b = b & 1 != 0 ? (b >> 1) ^ polynomial : b >> 1
        }
        return product
    }

    /// x^(8n) modulo the polynomial, by repeated squaring.
    private static func xToThePower8Times(_ n: Int64) -> UInt32 {
        var result = UInt32(1) << 31  // 1
        var square = UInt32(1) << 23  // x^8
        var n = n
        while n > 0 {
            if n & 1 != 0 { result = multiply(square, result) }
            square = multiply(square, square)
            n >>= 1
        }
        return result
    }
}
