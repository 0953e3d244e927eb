import Foundation

/// A request body whose exact length is known before anything is sent and which can be sent again
/// (a retry, a 307): an ordered list of segments, each bytes in memory or a byte range of a file.
///
/// Nothing here reads a whole file: a transport streams the segments (``chunks(size:)``), or the
/// URLSession transport spools them to a temporary file in pieces.
public struct RequestBody: Sendable, Hashable {
    /// One piece of a body.
    public enum Segment: Sendable, Hashable {
        /// Bytes in memory.
        case bytes(Data)
        /// A byte range of a regular local file, read when the request is sent.
        case file(URL, range: Range<Int64>)

        /// The segment's length in bytes; a file range too long for `Int64` (one starting below
        /// zero, which a body refuses anyway) counts as `Int64.max`.
        public var length: Int64 {
            switch self {
            case .bytes(let data): Int64(data.count)
            case .file(_, let range):
                range.upperBound.subtractingReportingOverflow(range.lowerBound).overflow
                    ? .max : range.upperBound - range.lowerBound
            }
        }
    }

    /// The segments, in order.
    public let segments: [Segment]
    /// The total length in bytes, sent as `Content-Length`.
    public let length: Int64
    /// The file this body is in its entirety, when it is exactly one whole file (uploaded without
    /// a copy).
    let wholeFile: URL?

    /// Bytes in memory.
    public init(_ data: Data) {
        segments = data.isEmpty ? [] : [.bytes(data)]
        length = Int64(data.count)
        wholeFile = nil
    }

    /// Segments sent one after the other; adjacent byte segments are joined.
    /// - Throws: ``NetLayerError/Code/encodingFailed`` for a file segment that is not a regular local
    ///   file or whose range reaches past the file's end, or segments longer than `Int64.max` bytes
    ///   together (a length no `Content-Length` can state).
    public init(segments: [Segment]) throws(NetLayerError) {
        var joined: [Segment] = []
        var total: Int64 = 0
        for segment in segments {
            if case .file(let url, let range) = segment {
                let size = try FileRead.regularFileSize(url, what: "body file")
                if range.lowerBound < 0 || range.upperBound > size {
                    throw .encodingFailed(
                        "the range \(range.lowerBound)..<\(range.upperBound) of \(url.path) is outside its \(size) bytes"
                    )
                }
            }
            if segment.length == 0 { continue }
            if case .bytes(let next) = segment, case .bytes(let previous)? = joined.last {
                joined[joined.count - 1] = .bytes(previous + next)
            } else {
                joined.append(segment)
            }
            let (sum, overflow) = total.addingReportingOverflow(segment.length)
            if overflow {
                throw .encodingFailed(
                    "the body's segments are longer than \(Int64.max) bytes together, more than a Content-Length can state"
                )
            }
            total = sum
        }
        self.segments = joined
        self.length = total
        self.wholeFile = nil
    }

    private init(file url: URL, size: Int64, range: Range<Int64>) {
        segments = range.isEmpty ? [] : [.file(url, range: range)]
        length = Int64(range.count)
        wholeFile = range == 0..<size ? url : nil
    }

    /// A file, or a byte range of it, read when the request is sent.
    /// - Parameters:
    ///   - url: A `file:` URL of a regular file.
    ///   - range: Default: the whole file.
    /// - Throws: ``NetLayerError/Code/encodingFailed`` for a URL that is not a regular local file or a
    ///   range outside it.
    public static func file(_ url: URL, range: Range<Int64>? = nil) throws(NetLayerError) -> RequestBody {
        let size = try FileRead.regularFileSize(url, what: "body file")
        let range = range ?? 0..<size
        if range.lowerBound < 0 || range.upperBound > size {
            throw .encodingFailed(
                "the range \(range.lowerBound)..<\(range.upperBound) of \(url.path) is outside its \(size) bytes"
            )
        }
        // The link's target: Linux URLSession would announce the size of the link itself.
        return RequestBody(file: url.resolvingSymlinksInPath(), size: size, range: range)
    }

    /// The whole body as one `Data` when every segment is in memory; `nil` when a file is involved.
    public var inMemoryBytes: Data? {
        if segments.isEmpty { return Data() }
        if segments.count == 1, case .bytes(let data) = segments[0] { return data }
        return nil
    }

    /// The body in chunks of at most `size` bytes, files read a chunk at a time.
    /// - Parameter size: Default ``defaultChunkSize``.
    public func chunks(size: Int = RequestBody.defaultChunkSize) -> Chunks {
        Chunks(segments: segments, chunkSize: max(1, size))
    }

    /// 256 KiB: large enough that per-chunk overhead vanishes, small enough to keep memory flat.
    public static let defaultChunkSize = 256 * 1024

    /// The chunks of a body, reading files as they go. Each iteration starts from the beginning,
    /// so a body can be sent again.
    public struct Chunks: AsyncSequence, Sendable {
        /// A chunk of bytes.
        public typealias Element = Data
        let segments: [Segment]
        let chunkSize: Int

        /// Where file chunks are read: never on the calling task's thread.
        var io = BlockingIO.shared

        /// Starts reading from the first segment.
        public func makeAsyncIterator() -> Iterator {
            Iterator(reader: SegmentReader(segments: segments, chunkSize: chunkSize), io: io)
        }

        /// Reads the next chunk.
        public struct Iterator: AsyncIteratorProtocol {
            var reader: SegmentReader
            let io: BlockingIO
            /// The next chunk, or `nil` at the end. A chunk of a file is read on a queue of its
            /// own, off Swift's cooperative pool.
            /// - Throws: ``NetLayerError/Code/encodingFailed`` when a file cannot be read or
            ///   became shorter since the body was made.
            public mutating func next() async throws -> Data? {
                guard reader.nextReadsAFile else { return try reader.next() }
                let (chunk, advanced) = try await io.run { [reader] in
                    var reading = reader
                    return (try reading.next(), reading)
                }
                reader = advanced
                return chunk
            }
        }
    }

}

/// Reads segments chunk by chunk; synchronous and blocking, so async callers run it on
/// ``BlockingIO`` (``RequestBody/Chunks`` does). One file is open at a time.
struct SegmentReader: Sendable {
    private let segments: [RequestBody.Segment]
    private let chunkSize: Int
    private var index = 0
    private var offsetInSegment: Int64 = 0
    private var file: OpenFile?

    init(segments: [RequestBody.Segment], chunkSize: Int) {
        self.segments = segments
        self.chunkSize = chunkSize
    }

    /// Whether the next ``next()`` reads a file (or has one to close): bytes in memory need no
    /// trip off the caller's thread.
    var nextReadsAFile: Bool {
        if file != nil { return true }
        var position = index
        if position < segments.count && offsetInSegment >= segments[position].length { position += 1 }
        guard position < segments.count, case .file = segments[position] else { return false }
        return true
    }

    mutating func next() throws(NetLayerError) -> Data? {
        while index < segments.count {
            let segment = segments[index]
            let left = segment.length - offsetInSegment
            if left <= 0 {
                file = nil
                index += 1
                offsetInSegment = 0
                continue
            }
            let count = Int(min(Int64(chunkSize), left))
            switch segment {
            case .bytes(let data):
                let start = data.startIndex + Int(offsetInSegment)
                offsetInSegment += Int64(count)
                return data.subdata(in: start..<(start + count))
            case .file(let url, let range):
                let open = try openFile(url, reaching: range.upperBound)
                let chunk: Data
                do {
                    chunk = try SystemFile.read(
                        open.descriptor, at: range.lowerBound + offsetInSegment, count: count)
                } catch {
                    throw .encodingFailed("cannot read \(url.path): \(error)")
                }
                guard !chunk.isEmpty else {
                    throw .encodingFailed("\(url.path) became shorter after the request was made")
                }
                offsetInSegment += Int64(chunk.count)
                return chunk
            }
        }
        file = nil
        return nil
    }

    /// Writes the next piece of at most `chunkSize` bytes to `output`, at its current offset: a
    /// file range with ``FileCopy`` (on Linux `sendfile`, from the kernel's cache to the kernel's
    /// cache without a copy through this process), bytes with `write`. Blocking. A reader is used
    /// either this way or through ``next()``, not both.
    /// - Returns: How many bytes were written; `nil` at the end.
    /// - Throws: ``NetLayerError/Code/encodingFailed`` when a file cannot be read or became
    ///   shorter, or `output` cannot be written.
    mutating func copyNext(to output: FileHandle) throws(NetLayerError) -> Int64? {
        while index < segments.count {
            let left = segments[index].length - offsetInSegment
            if left <= 0 {
                file = nil
                index += 1
                offsetInSegment = 0
                continue
            }
            guard case .file(let url, let range) = segments[index] else { break }
            let open = try openFile(url, reaching: range.upperBound)
            let moved: Int
            do {
                moved = try FileCopy.copy(
                    from: open.descriptor, at: range.lowerBound + offsetInSegment,
                    count: Int(min(Int64(chunkSize), left)), to: output.fileDescriptor)
            } catch {
                throw .encodingFailed("cannot copy \(url.path) into a temporary file: \(error)")
            }
            if moved == 0 {
                throw .encodingFailed("\(url.path) became shorter after the request was made")
            }
            offsetInSegment += Int64(moved)
            return Int64(moved)
        }
        guard let chunk = try next() else { return nil }
        do {
            try output.write(contentsOf: chunk)
        } catch {
            throw .encodingFailed(
                "cannot write a temporary file: \(error.localizedDescription)", underlying: error)
        }
        return Int64(chunk.count)
    }

    /// The open file of the current segment, opened on first use.
    private mutating func openFile(_ url: URL, reaching end: Int64) throws(NetLayerError) -> OpenFile {
        if let file { return file }
        let opened = try Self.openRegularFile(url, reaching: end)
        file = opened
        return opened
    }

    /// Opens a body file again for reading, checked again: it may have been replaced since the
    /// body was made (a retry sends it anew). Opened without blocking, so a FIFO put in its place
    /// cannot hold the call (and a thread) until someone writes to it; then it must still be a
    /// regular file at least `end` bytes long.
    /// - Throws: ``NetLayerError/Code/encodingFailed`` otherwise.
    private static func openRegularFile(_ url: URL, reaching end: Int64) throws(NetLayerError) -> OpenFile {
        let file: OpenFile
        do {
            file = OpenFile(try SystemFile.openForReading(url.path))
        } catch {
            throw .encodingFailed("cannot read \(url.path): \(error)")
        }
        guard let size = SystemFile.regularFileSize(file.descriptor) else {
            throw .encodingFailed("\(url.path) is no longer a regular file")
        }
        guard size >= end else {
            throw .encodingFailed("\(url.path) became shorter after the request was made")
        }
        // Reads of a regular file never block for long; back to the ordinary mode.
        SystemFile.setBlocking(file.descriptor)
        return file
    }
}
