import Foundation
import NetLayer

/// The three transfers of issue 6.
enum TransferKind: String, CaseIterable, Sendable {
    /// `POST /sink`, multipart: a text field and `files: ["f": .file(source)]`. Raw URLSession uploads
    /// the same multipart body, built once on disk, with `upload(for:fromFile:)`.
    case multipart
    /// `POST /sink` with `body: .file(source)`. Raw URLSession: `upload(for:fromFile:)` of the source.
    case file
    /// `GET /bytes/N` into a file. NetLayer: `download(to:)`. Raw URLSession: a delegate-driven data
    /// task writing each chunk to a `FileHandle`.
    case download
}

/// The files the transfers read, in a temporary directory of their own (removed at the end):
/// the upload source and the equivalent multipart body for raw URLSession. Downloads are written
/// here too, and removed after each run.
struct TransferFiles: Sendable {
    let directory: URL
    let bytes: Int64
    /// `bytes` bytes of ``TransferRoutes/pattern(_:)``.
    let source: URL
    /// NetLayer's multipart body of the same call (head + source + tail), byte for byte, with the
    /// boundary of one request.
    let multipart: URL
    let multipartContentType: String
    let multipartLength: Int64
    /// How long copying the source into the multipart body took (a reference for NetLayer's spool,
    /// which makes the same copy before each multipart upload).
    var multipartCopySeconds: Double = 0

    /// Writes the files, 1 MiB at a time.
    /// - Parameter multipartBody: The multipart request NetLayer would send for `source`.
    static func make(
        bytes: Int64, in directory: URL,
        multipartBody: (URL) throws -> (contentType: String, segments: [RequestBody.Segment])
    ) throws -> TransferFiles {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = directory.appendingPathComponent("source-\(bytes).bin")
        let chunk = Data((0..<(1 << 20)).map(TransferRoutes.pattern))
        try write(to: source) { handle in
            var left = bytes
            while left > 0 {
                let count = Int(min(left, Int64(chunk.count)))
                try handle.write(contentsOf: count == chunk.count ? chunk : chunk.prefix(count))
                left -= Int64(count)
            }
        }
        let (contentType, segments) = try multipartBody(source)
        let multipart = directory.appendingPathComponent("multipart-\(bytes).bin")
        var length: Int64 = 0
        let copyStart = monotonicNanos()
        try write(to: multipart) { handle in
            for segment in segments {
                switch segment {
                case .bytes(let data):
                    try handle.write(contentsOf: data)
                    length += Int64(data.count)
                case .file(let url, let range):
                    // Copied 1 MiB at a time.
                    let reader = try FileHandle(forReadingFrom: url)
                    defer { try? reader.close() }
                    try reader.seek(toOffset: UInt64(range.lowerBound))
                    var left = Int64(range.count)
                    while left > 0, let data = try reader.read(upToCount: Int(min(left, 1 << 20))),
                        !data.isEmpty
                    {
                        try handle.write(contentsOf: data)
                        left -= Int64(data.count)
                        length += Int64(data.count)
                    }
                }
            }
        }
        return TransferFiles(
            directory: directory, bytes: bytes, source: source, multipart: multipart,
            multipartContentType: contentType, multipartLength: length,
            multipartCopySeconds: Double(monotonicNanos() - copyStart) / 1e9)
    }

    /// A fresh download destination in the directory.
    func downloadDestination(_ name: String) -> URL {
        directory.appendingPathComponent("download-\(name)-\(UUID().uuidString.prefix(8)).bin")
    }

    /// Diagnostic: writes `bytes` of zeros to a file in the directory and deletes it, so that the
    /// next allocations of page cache take pages freed a moment ago.
    func touchAndFreePages(_ bytes: Int64) throws {
        let file = directory.appendingPathComponent("prefault-\(UUID().uuidString.prefix(8)).bin")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BenchError("cannot create \(file.path)")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let chunk = Data(count: 1 << 20)
        var written: Int64 = 0
        while written < bytes {
            try handle.write(contentsOf: chunk)
            written += Int64(chunk.count)
        }
    }

    /// Checks a downloaded file: its size, and the pattern at its start, middle and end.
    static func verifyDownload(_ url: URL, bytes: Int64) throws {
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?
            .int64Value
        guard size == bytes else {
            throw BenchError("download \(url.lastPathComponent): \(size ?? -1) bytes, not \(bytes)")
        }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        for offset in [0, bytes / 2, max(0, bytes - 4096)] {
            try handle.seek(toOffset: UInt64(offset))
            let data = try handle.read(upToCount: 4096) ?? Data()
            for (index, byte) in data.enumerated() where byte != TransferRoutes.pattern(Int(offset) + index) {
                throw BenchError("download \(url.lastPathComponent): wrong byte at \(Int(offset) + index)")
            }
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    private static func write(to url: URL, _ body: (FileHandle) throws -> Void) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BenchError("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try body(handle)
    }
}
