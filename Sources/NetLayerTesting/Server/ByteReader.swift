import Foundation

/// Buffered reading over any byte source (a socket in the server, a `Data` in unit tests).
/// Owned by one connection thread; not shared.
final class ByteReader {
    /// Reads up to `buffer.count` bytes into `buffer`; returns the count, 0 at end, negative on error.
    typealias Source = (UnsafeMutableRawBufferPointer) -> Int

    private let source: Source
    private var buffer: [UInt8] = []
    private var start = 0
    private var scratch = [UInt8](repeating: 0, count: readSize)
    private static let readSize = 64 * 1024

    init(source: @escaping Source) {
        self.source = source
    }

    /// Reader over fixed bytes (for parser tests).
    convenience init(bytes: Data) {
        var remaining = bytes[...]
        self.init { destination in
            let count = min(destination.count, remaining.count)
            guard count > 0 else { return 0 }
            destination.copyBytes(from: remaining.prefix(count))
            remaining = remaining.dropFirst(count)
            return count
        }
    }

    private var buffered: Int { buffer.count - start }

    /// Pulls more bytes from the source; false at end of stream or on error.
    private func fill() -> Bool {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > Self.readSize {
            buffer.removeFirst(start)
            start = 0
        }
        let count = scratch.withUnsafeMutableBytes { source($0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: scratch[0..<count])
        return true
    }

    enum Line {
        case line([UInt8])
        /// End of stream; `partial` when some bytes of an unfinished line were dropped.
        case end(partial: Bool)
        case tooLong
    }

    /// Reads one line ending in LF (a CR before it is removed). `limit` bounds the line length.
    func readLine(limit: Int) -> Line {
        var scanned = start
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                guard newline - start <= limit else { return .tooLong }
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = Array(buffer[start..<end])
                start = newline + 1
                return .line(line)
            }
            if buffered > limit { return .tooLong }
            let offset = buffer.count - start
            if !fill() { return .end(partial: buffered > 0) }
            scanned = start + offset
        }
    }

    /// Hands at most `maxCount` bytes to `consume`: buffered ones first, else what one read of the
    /// source returns. Returns how many, 0 at end of stream or on error. For streamed bodies.
    func readSome(maxCount: Int, _ consume: (UnsafeRawBufferPointer) -> Void) -> Int {
        guard maxCount > 0 else { return 0 }
        if buffered == 0, !fill() { return 0 }
        let count = min(maxCount, buffered)
        buffer.withUnsafeBytes { consume(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
        start += count
        return count
    }

    /// Reads exactly `count` bytes; nil when the stream ends first.
    func readExactly(_ count: Int) -> Data? {
        guard count > 0 else { return Data() }
        var data = Data(count: count)
        let fromBuffer = min(count, buffered)
        data.withUnsafeMutableBytes { raw in
            buffer.withUnsafeBytes { source in
                raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + fromBuffer)]))
            }
        }
        start += fromBuffer
        var filled = fromBuffer
        while filled < count {
            let got = data.withUnsafeMutableBytes { raw in
                source(UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
            }
            if got <= 0 { return nil }
            filled += got
        }
        return data
    }
}
