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
    /// Where the call's time went: admission waits and every attempt, a restart after a 416
    /// included; see ``CallMetrics``.
    public internal(set) var metrics: CallMetrics

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
    /// Progress (``progress(_:)``, ``progressUpdates()``) describes the whole file: a resumed call's
    /// first download event already counts the bytes on disk, and its total is the file's full
    /// length (the `206`'s `Content-Range`), so a bar at 36 % goes on from 36 %. A server that
    /// answers `200` sends the whole file again, and progress starts again from 0 of its length.
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
        defer { options.progressEnded?() }
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
            let requestURL = try prepare().request.url.absoluteString
            let accepted = options.validation ?? resource.options.validation
            // A restart after a 416 is an attempt of the same call.
            let owner = CallOwner()
            let consumer = DownloadConsumer(
                destination: destination, resumable: resumable, requestURL: requestURL,
                send: { resume throws(NetLayerError) in
                    try await open(
                        debug: debug, streams: true,
                        validation: resume == nil ? nil : accepted.alsoAccepting(416),
                        adjust: { request in
                            guard let resume else { return }
                            request.headerFields.set("Range", "bytes=\(resume.offset)-")
                            request.headerFields.set("If-Range", resume.validator)
                        }, resumesDownload: resume != nil, owner: owner)
                })
            do throws(NetLayerError) {
                var download = try await consumer.run(restarted: false)
                if let metrics = owner.end(nil) { download.metrics = metrics }
                return download
            } catch {
                throw owner.ending(error)
            }
        }
    }
}
