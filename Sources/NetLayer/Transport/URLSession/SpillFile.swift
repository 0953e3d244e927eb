import Foundation

/// The overflow of a ``BodyBuffer`` whose producer cannot pause (Linux URLSession): written at the
/// end, read from the front. Only touched under the owning buffer's lock.
///
/// Its calls wait on the disk: ``append(_:)`` runs on the producer's thread (the session's delegate
/// queue), never the cooperative pool; ``read(upTo:)`` runs where the buffer hands chunks to its
/// consumer.
final class SpillFile {
    private let url: URL
    private let writer: FileHandle
    private let reader: FileHandle
    private var written: Int64 = 0
    private var read: Int64 = 0

    init(in directory: URL) throws {
        url = try BodySpool.createPrivateFile(prefix: "response", in: directory)
        do {
            writer = try FileHandle(forWritingTo: url)
            reader = try FileHandle(forReadingFrom: url)
        } catch {
            BodySpool.removeFile(url)
            throw NetLayerError.fileFailed(
                "cannot open \(url.path): \(error.localizedDescription)", underlying: error)
        }
    }

    var isDrained: Bool { read >= written }
    var unread: Int64 { written - read }

    func append(_ data: Data) throws {
        try writer.write(contentsOf: data)
        written += Int64(data.count)
    }

    /// The next bytes not read yet, at most `count`; nil when drained.
    func read(upTo count: Int) throws -> Data? {
        guard read < written else { return nil }
        let chunk = try reader.read(upToCount: Int(min(Int64(count), written - read))) ?? Data()
        if chunk.isEmpty { throw NetLayerError.fileFailed("\(url.path) ended early") }
        read += Int64(chunk.count)
        return chunk
    }

    func remove() {
        try? writer.close()
        try? reader.close()
        BodySpool.removeFile(url)
    }
}
