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
            let consumer = DownloadConsumer(
                destination: destination, resumable: resumable, requestURL: requestURL,
                open: { resume throws(NetLayerError) in
                    try await open(
                        debug: debug, streams: true,
                        validation: resume == nil ? nil : accepted.alsoAccepting(416),
                        adjust: { request in
                            guard let resume else { return }
                            request.headerFields.set("Range", "bytes=\(resume.offset)-")
                            request.headerFields.set("If-Range", resume.validator)
                        })
                })
            return try await consumer.run(restarted: false)
        }
    }
}

/// `open(2)` with `flags`, creating with mode `0666` (less the umask): named apart from
/// ``DownloadFiles/open(appendingAt:head:url:)``, which hides the C function inside the type.
private func openDescriptor(_ path: String, _ flags: Int32) -> Int32 {
    open(path, flags, 0o666)
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
        let base = Self.hiddenBase(of: destination.lastPathComponent)
        // A stable name when it may be resumed; a unique one otherwise, so two calls never share it.
        let suffix = resumable ? "netlayer-partial" : "netlayer-\(UUID().uuidString.prefix(8))"
        partial = directory.appendingPathComponent("\(base).\(suffix)")
        resumablePartial = directory.appendingPathComponent("\(base).netlayer-partial")
        record = directory.appendingPathComponent("\(base).netlayer-partial.json")
    }

    /// The longest file name most file systems take, in bytes (`NAME_MAX`).
    static let nameMax = 255
    /// The longest ending added to ``hiddenBase(of:)``.
    private static let longestSuffix = ".netlayer-partial.json".utf8.count

    /// `.<name>`, the start of the names kept beside the destination `name`. When a name built on it
    /// would be longer than ``nameMax``, `name` is cut (at a character) and followed by a hash of the
    /// whole name: still unique, and the same for the same destination, so a resume finds its file.
    static func hiddenBase(of name: String) -> String {
        guard 1 + name.utf8.count + longestSuffix > nameMax else { return ".\(name)" }
        // FNV-1a, not `Hasher`: the name must be the same in the next process.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let tag = String(hash, radix: 16)
        let suffix = "-" + String(repeating: "0", count: 16 - tag.count) + tag
        var budget = nameMax - longestSuffix - 1 - suffix.utf8.count
        var kept = ""
        for character in name {
            budget -= character.utf8.count
            guard budget >= 0 else { break }
            kept.append(character)
        }
        return ".\(kept)\(suffix)"
    }

    /// Throws unless `destination` can be written: its directory exists, its name fits
    /// ``nameMax``, and it is not a directory. Checked before the request is sent.
    static func checkWritable(_ destination: URL) throws(NetLayerError) {
        let name = destination.lastPathComponent
        guard name.utf8.count <= nameMax else {
            throw .fileFailed(
                "cannot download to \(destination.path): the file name is longer than \(nameMax) bytes")
        }
        let directory = destination.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            throw .fileFailed("cannot download to \(destination.path): \(directory.path) is not a directory")
        }
        let type = (try? FileManager.default.attributesOfItem(atPath: destination.path))?[.type]
        if type as? FileAttributeType == .typeDirectory {
            throw .fileFailed("cannot download to \(destination.path): it is a directory")
        }
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
            ResumeValidator.isUsable(point.validator),
            let size = (try? FileManager.default.attributesOfItem(atPath: partial.path))?[.size] as? NSNumber,
            size.int64Value > 0
        else {
            discardUnlessInUse()
            return nil
        }
        point.offset = size.int64Value
        return point
    }

    /// Thrown by ``open(appendingAt:head:url:)`` when another process holds the resumable partial
    /// file's lock: nothing of it may be touched.
    struct PartialInUse: Error {
        let reason: String
    }

    /// Opens the partial file: truncated for a full download, at `offset` for a resumed one. When
    /// resumable, first records the validator the bytes are written under (none: not resumable).
    ///
    /// The resumable partial file is opened in place, never replaced, and locked (`flock`, exclusive)
    /// before anything in it changes; the lock lasts until the returned handle is closed. A call in
    /// another process holding it makes this throw ``PartialInUse``. (In this process,
    /// ``DownloadClaim`` already keeps two calls apart.)
    func open(appendingAt offset: Int64, head: ResponseHead, url: String) throws -> FileHandle {
        let descriptor = openDescriptor(partial.path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw NetLayerError.fileFailed("cannot create \(partial.path) for the download: \(reason)")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        if resumable && flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            try? handle.close()
            throw PartialInUse(
                reason:
                    "another download to \(destination.path) is in progress (another process writes \(partial.path))"
            )
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            try? handle.close()
            throw NetLayerError.fileFailed(
                "cannot write the download to \(partial.path): it is not a regular file")
        }
        if offset == 0 {
            // The record belongs to the resumable partial file, this call's only when resumable.
            if resumable { try? FileManager.default.removeItem(at: record) }
            if resumable, let validator = ResumeValidator.of(head) {
                let point = ResumePoint(url: url, validator: validator, offset: 0)
                try JSONEncoder().encode(point).write(to: record, options: .atomic)
            }
        }
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seekToEnd()
        return handle
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
        if resumable {
            try? FileManager.default.removeItem(at: record)
        } else {
            // An earlier resumable call's partial file belongs to the file just replaced.
            discardUnlessInUse()
        }
    }

    /// Removes the resumable partial file and its record, as ``discard()``, when this call has not
    /// opened it yet — unless a call in another process writes them now (it holds the partial
    /// file's lock): then they are its.
    func discardUnlessInUse() {
        let descriptor = openDescriptor(resumablePartial.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            try? FileManager.default.removeItem(at: record)
            return
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }
        try? FileManager.default.removeItem(at: resumablePartial)
        try? FileManager.default.removeItem(at: record)
    }
}
