import Foundation

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

    /// Thrown by ``openPartial(appendingAt:head:url:)`` when another process holds the resumable partial
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
    func openPartial(appendingAt offset: Int64, head: ResponseHead, url: String) throws -> FileHandle {
        let descriptor: Int32
        do {
            descriptor = try SystemFile.openForWriting(partial.path)
        } catch {
            throw NetLayerError.fileFailed("cannot create \(partial.path) for the download: \(error)")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        if resumable && !SystemFile.tryLockExclusive(descriptor) {
            try? handle.close()
            throw PartialInUse(
                reason:
                    "another download to \(destination.path) is in progress (another process writes \(partial.path))"
            )
        }
        guard SystemFile.regularFileSize(descriptor) != nil else {
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
        do {
            try SystemFile.rename(partial.path, to: destination.path)
        } catch {
            discard()
            throw .fileFailed("cannot move the download to \(destination.path): \(error)")
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
        guard let descriptor = try? SystemFile.openForReading(resumablePartial.path) else {
            try? FileManager.default.removeItem(at: record)
            return
        }
        defer { SystemFile.close(descriptor) }
        guard SystemFile.tryLockExclusive(descriptor) else { return }
        try? FileManager.default.removeItem(at: resumablePartial)
        try? FileManager.default.removeItem(at: record)
    }
}
