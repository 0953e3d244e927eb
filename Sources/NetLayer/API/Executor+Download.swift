import Foundation

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
    /// set and the server gave a strong validator (a strong `ETag`, or with no `ETag` at all a
    /// `Last-Modified` that its `Date` places at least 60 s in the past): then the partial file
    /// stays (`.<name>.netlayer-partial` and its `.json` beside it), and the next call with
    /// `resumable` asks only for the rest with `Range` and `If-Range`. A server that answers 200
    /// instead of 206 (the file changed, or it ignores ranges) gets a full download; a 416 drops the
    /// partial file and starts over once. A 206 is kept only as the rest of a resumed file: its
    /// `Content-Range` must start where the partial file ends, run to the end of the file and agree
    /// with itself, the `Content-Length` and the bytes that arrive.
    ///
    /// One call at a time per destination: while a call runs, resumable or not, it holds a claim on
    /// `destination` in this process (its path with the directory's `.`, `..` and symbolic links
    /// resolved), taken after the checks below and before anything is sent, and given up however the
    /// call ends. Across processes the claim does not reach; there a resumable call locks its
    /// partial file (`flock`), so two resumable calls never write into one partial file, and a call
    /// that finishes does not remove a partial file another process is writing.
    /// - Parameters:
    ///   - destination: A file URL; its directory must exist. Checked before anything is sent.
    ///   - resumable: Keep a partial file to resume from. Default `false`.
    ///   - debug: Print the request and response head. Default `false`.
    /// - Returns: What was written.
    /// - Throws: ``NetLayerError``: `.fileFailed` when the file cannot be written or moved (its
    ///   directory missing, its name longer than 255 bytes, a directory in its place), or when the
    ///   server answers 206 to a request without `Range` or with a `Content-Range` that does not
    ///   continue the partial file; `.fileFailed` ("another download to <path> is in progress"),
    ///   with nothing sent and the other call's files left alone, while another call to
    ///   `destination` runs in this process, or, for a resumable call and only once its request was
    ///   answered, while a call in another process holds the partial file's lock; and everything a
    ///   call throws (an unacceptable status carries the body, which is not written; it is thrown as
    ///   the mapped error when an ``ErrorMapping`` applies).
    public func download(to destination: URL, resumable: Bool = false, debug: Bool = false) async throws
        -> Download
    {
        defer { progressEnded?() }
        return try await mappingErrors {
            guard destination.isFileURL, !destination.hasDirectoryPath else {
                throw NetLayerError.invalidValue(
                    part: "destination", reason: "\(destination) is not a file URL")
            }
            // Before anything is sent: a POST that cannot be saved should not reach the server.
            try DownloadFiles.checkWritable(destination)
            // Also before: a call that would share the files beside the destination with another
            // call running now is refused, and touches none of them.
            let claim = try DownloadClaim.take(destination)
            defer { claim.release() }
            return try await download(to: destination, resumable: resumable, debug: debug, restarted: false)
        }
    }

    /// The download, with `destination` checked and claimed by the caller; the restart after a 416
    /// runs under the same claim.
    private func download(to destination: URL, resumable: Bool, debug: Bool, restarted: Bool)
        async throws(NetLayerError) -> Download
    {
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
        do {
            return try await save(
                call, to: destination, files: files, requestURL: requestURL, resume: resume,
                resumable: resumable, debug: debug, restarted: restarted)
        } catch {
            // Every failure after the exchange counts the attempts that reached the server.
            var failure = error
            if failure.attempts == 0 { failure.attempts = call.attempts }
            throw failure
        }
    }

    /// Writes an opened download's body to its partial file and moves it into place.
    private func save(
        _ call: OpenedCall, to destination: URL, files: DownloadFiles, requestURL: String,
        resume: DownloadFiles.ResumePoint?, resumable: Bool, debug: Bool, restarted: Bool
    ) async throws(NetLayerError) -> Download {
        call.log?.streamed(call.head, duration: .now - call.start)
        var offset: Int64 = 0
        // The file's size once written, when a 206's Content-Range tells it.
        var expectedSize: Int64?
        if call.head.statusCode == 206 && resume == nil {
            // Part of a file is not the file: no Range was sent, so nothing can be continued.
            call.body.cancel()
            throw .fileFailed(
                "the server answered 206 Partial Content to a download that asked for the whole file")
        }
        if let resume {
            let range =
                call.head.statusCode == 206 ? ContentRange(call.head.headerFields["Content-Range"]) : nil
            if call.head.statusCode == 416 || (range.map { $0.first != resume.offset } ?? false) {
                // The partial file cannot be continued: start over, once.
                call.body.cancel()
                files.discardUnlessInUse()
                if restarted { throw .fileFailed("the server refused to resume and to restart the download") }
                return try await download(
                    to: destination, resumable: resumable, debug: debug, restarted: true)
            }
            if call.head.statusCode == 206 {
                // Bytes that cannot be placed are never appended, and the partial file is dropped:
                // resuming it again would only ask the same question again.
                let checked =
                    range?.fileSize(contentLength: call.head.headerFields["Content-Length"])
                    ?? .failure(ContentRange.Contradiction("is malformed"))
                switch checked {
                case .success(let size):
                    offset = resume.offset
                    expectedSize = size
                case .failure(let contradiction):
                    call.body.cancel()
                    files.discardUnlessInUse()
                    throw .fileFailed(
                        "the server's 206 answer cannot continue the download: its Content-Range \(contradiction.reason)"
                    )
                }
            }
        }
        var written: Int64 = 0
        var fileSize: UInt64 = 0
        // Open (and so its lock held) until the file is in place or removed.
        var openFile: FileHandle?
        defer { try? openFile?.close() }
        do {
            let handle = try files.open(appendingAt: offset, head: call.head, url: requestURL)
            openFile = handle
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
            let syncError = await flusher.makeDurable()
            if syncError != 0 {
                throw NetLayerError.fileFailed(
                    "cannot flush the download to disk at \(files.partial.path): \(FileSync.describe(syncError))"
                )
            }
            fileSize = try handle.seekToEnd()
        } catch let inUse as DownloadFiles.PartialInUse {
            // Another process writes the partial file: it is left to that process.
            call.body.cancel()
            throw .fileFailed(inUse.reason)
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
        if let expectedSize, fileSize != UInt64(expectedSize) {
            files.discard()
            throw .fileFailed(
                "the server's 206 answer ended the file at \(fileSize) bytes, its Content-Range at \(expectedSize)"
            )
        }
        try files.moveIntoPlace()
        call.progress?.finish(uploaded: call.request.body?.length, downloaded: written)
        return Download(
            fileURL: destination, head: call.head, bytesWritten: written, resumedFrom: offset,
            duration: .now - call.start, redirects: call.redirects)
    }
}
