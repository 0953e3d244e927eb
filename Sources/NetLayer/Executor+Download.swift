import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a finished download did.
public struct Download: Sendable {
    /// Where the file now is: the destination given.
    public let fileURL: URL
    /// The response head (status 200, or 206 when resumed).
    public let head: ResponseHead
    /// Bytes this call wrote.
    public let bytesWritten: Int64
    /// Bytes kept from an earlier, interrupted call; 0 for a full download.
    public let resumedFrom: Int64
    /// Time from sending until the file was in place.
    public let duration: Duration
    /// The redirects followed, oldest first.
    public let redirects: [Redirect]

    /// The file's size: ``resumedFrom`` + ``bytesWritten``.
    public var fileSize: Int64 { resumedFrom + bytesWritten }
}

extension Executor {
    /// Sends the call and streams the body into a file.
    ///
    /// The body goes to a temporary file beside `destination`; only after the status passed
    /// validation and the last byte arrived is it moved into place, replacing any file there in one
    /// step (`rename`). On failure or cancellation nothing is left behind — unless `resumable` is
    /// set and the server gave a validator (a strong `ETag` or a `Last-Modified`): then the partial
    /// file stays (`.<name>.netlayer-partial` and its `.json` beside it), and the next call with
    /// `resumable` asks only for the rest with `Range` and `If-Range`. A server that answers 200
    /// instead of 206 (the file changed, or it ignores ranges) gets a full download; a 416 drops the
    /// partial file and starts over once.
    /// - Parameters:
    ///   - destination: A file URL; its directory must exist.
    ///   - resumable: Keep a partial file to resume from. Default `false`.
    ///   - debug: Print the request and response head. Default `false`.
    /// - Returns: What was written.
    /// - Throws: ``NetLayerError``: `.fileFailed` when the file cannot be written or moved, and
    ///   everything a call throws (an unacceptable status carries the body, which is not written;
    ///   it is thrown as the mapped error when an ``ErrorMapping`` applies).
    public func download(to destination: URL, resumable: Bool = false, debug: Bool = false) async throws
        -> Download
    {
        defer { progressEnded?() }
        return try await mappingErrors {
            try await download(to: destination, resumable: resumable, debug: debug, restarted: false)
        }
    }

    private func download(to destination: URL, resumable: Bool, debug: Bool, restarted: Bool)
        async throws(NetLayerError) -> Download
    {
        guard destination.isFileURL, !destination.hasDirectoryPath else {
            throw .invalidValue(part: "destination", reason: "\(destination) is not a file URL")
        }
        let files = DownloadFiles(destination: destination, resumable: resumable)
        let requestURL = try prepare().request.url.absoluteString
        let resume = resumable ? files.resumePoint(for: requestURL) : nil
        let accepted = validation ?? resource.options.validation
        let call = try await open(
            debug: debug, streams: true,
            validation: resume == nil ? nil : accepted.alsoAccepting(416),
            adjust: { request in
                guard let resume else { return }
                request.headerFields.set("Range", "bytes=\(resume.offset)-")
                request.headerFields.set("If-Range", resume.validator)
            })
        call.log?.streamed(call.head, duration: .now - call.start)
        var offset: Int64 = 0
        if let resume {
            let start =
                call.head.statusCode == 206
                ? ContentRange.start(call.head.headerFields["Content-Range"]) : nil
            if call.head.statusCode == 416 || (call.head.statusCode == 206 && start != resume.offset) {
                // The partial file cannot be continued: start over, once.
                call.body.cancel()
                files.discard()
                if restarted { throw .fileFailed("the server refused to resume and to restart the download") }
                return try await download(
                    to: destination, resumable: resumable, debug: debug, restarted: true)
            }
            if call.head.statusCode == 206 { offset = resume.offset }
        }
        var written: Int64 = 0
        do {
            let handle = try files.open(appendingAt: offset, head: call.head, url: requestURL)
            defer { try? handle.close() }
            // Written where the chunks arrive (the transport's thread), not hopped to this task
            // one by one: the hop cost a download about a third more CPU per byte.
            let flusher = WriteBehind(descriptor: handle.fileDescriptor)
            defer { written = flusher.written }
            do {
                try await call.body.drain { chunk in
                    try handle.write(contentsOf: chunk)
                    flusher.wrote(chunk.count)
                }
            } catch {
                await flusher.finish()
                throw error
            }
            await flusher.finish()
            try handle.synchronize()
        } catch {
            call.body.cancel()
            files.failed()
            if let failure = error as? NetLayerError, failure.code == .fileFailed { throw failure }
            if !(error is CancellationError) && !(error is URLError) && !(error is NetLayerError) {
                throw .fileFailed(
                    "cannot write the download to \(files.partial.path): \(error.localizedDescription)",
                    underlying: error)
            }
            throw failure(error, in: call)
        }
        try files.moveIntoPlace()
        call.progress?.finish(uploaded: call.request.body?.length, downloaded: written)
        return Download(
            fileURL: destination, head: call.head, bytesWritten: written, resumedFrom: offset,
            duration: .now - call.start, redirects: call.redirects)
    }
}

/// `Content-Range: bytes 100-199/200` → 100.
enum ContentRange {
    static func start(_ value: String?) -> Int64? {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let range = value.dropFirst(6).prefix { $0 != "/" }
        return range.split(separator: "-").first.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}

/// The files of one download: the partial file beside the destination, its resume record, and the
/// destination.
struct DownloadFiles {
    let destination: URL
    let partial: URL
    /// Where a resumable call keeps its partial file (``partial`` when this call is resumable).
    let resumablePartial: URL
    let record: URL
    let resumable: Bool

    init(destination: URL, resumable: Bool) {
        self.destination = destination
        self.resumable = resumable
        let directory = destination.deletingLastPathComponent()
        let name = destination.lastPathComponent
        // A stable name when it may be resumed; a unique one otherwise, so two calls never share it.
        let suffix = resumable ? "netlayer-partial" : "netlayer-\(UUID().uuidString.prefix(8))"
        partial = directory.appendingPathComponent(".\(name).\(suffix)")
        resumablePartial = directory.appendingPathComponent(".\(name).netlayer-partial")
        record = directory.appendingPathComponent(".\(name).netlayer-partial.json")
    }

    /// What a resumed request asks for: the partial file's size and the validator it was
    /// downloaded under.
    struct ResumePoint: Codable {
        var url: String
        var validator: String
        var offset: Int64
    }

    /// The point to resume from, when a partial file of the same URL exists with a validator.
    func resumePoint(for url: String) -> ResumePoint? {
        guard let data = try? Data(contentsOf: record),
            var point = try? JSONDecoder().decode(ResumePoint.self, from: data), point.url == url,
            (try? HeaderFields.validatedValue(point.validator, name: "If-Range")) == point.validator,
            let size = (try? FileManager.default.attributesOfItem(atPath: partial.path))?[.size] as? NSNumber,
            size.int64Value > 0
        else {
            discard()
            return nil
        }
        point.offset = size.int64Value
        return point
    }

    /// Opens the partial file: truncated for a full download, at `offset` for a resumed one. When
    /// resumable, first records the validator the bytes are written under (none: not resumable).
    func open(appendingAt offset: Int64, head: ResponseHead, url: String) throws -> FileHandle {
        let manager = FileManager.default
        if offset == 0 {
            try? manager.removeItem(at: record)
            guard manager.createFile(atPath: partial.path, contents: nil) else {
                throw NetLayerError.fileFailed("cannot create \(partial.path) for the download")
            }
            if resumable, let validator = Self.validator(head) {
                let point = ResumePoint(url: url, validator: validator, offset: 0)
                try JSONEncoder().encode(point).write(to: record, options: .atomic)
            }
        }
        let handle = try FileHandle(forWritingTo: partial)
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seekToEnd()
        return handle
    }

    /// A strong ETag, else Last-Modified: what `If-Range` may carry (RFC 9110 §13.1.5).
    static func validator(_ head: ResponseHead) -> String? {
        if let etag = head.headerFields["ETag"], !etag.hasPrefix("W/"), etag.hasPrefix("\"") { return etag }
        return head.headerFields["Last-Modified"]
    }

    /// After a failure: keep a resumable partial file, remove anything else.
    func failed() {
        if resumable && FileManager.default.fileExists(atPath: record.path) { return }
        discard()
    }

    func discard() {
        try? FileManager.default.removeItem(at: partial)
        try? FileManager.default.removeItem(at: record)
    }

    /// Moves the finished file over the destination in one step.
    func moveIntoPlace() throws(NetLayerError) {
        if rename(partial.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw .fileFailed("cannot move the download to \(destination.path): \(reason)")
        }
        // An earlier resumable call's partial file belongs to the file just replaced.
        try? FileManager.default.removeItem(at: record)
        if !resumable { try? FileManager.default.removeItem(at: resumablePartial) }
    }
}
