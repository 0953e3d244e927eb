import Foundation

/// The files of ``DiskCacheStorage``: the form of an entry file, checked reads, atomic writes,
/// removals, walks of the directory, and its secret. Every function here does file I/O: callers run
/// them on the blocking-I/O queue.
extension DiskCacheStorage {
    /// `NLCF`.
    static let fileMagic: [UInt8] = [0x4E, 0x4C, 0x43, 0x46]
    /// The file form's version.
    static let fileVersion: UInt8 = 1

    /// The bytes of a file holding `entries` (oldest first) for the key named `name`.
    static func encodeFile(name: String, entries: [HTTPCacheEntry]) -> Data {
        var writer = EntryWriter()
        writer.bytes.append(contentsOf: fileMagic)
        writer.bytes.append(fileVersion)
        writer.string(name)
        writer.integer(UInt16(clamping: entries.count))
        for entry in entries.prefix(Int(UInt16.max)) {
            let encoded = entry.encoded()
            writer.integer(UInt64(encoded.count))
            writer.bytes.append(contentsOf: encoded)
        }
        return Data(writer.bytes)
    }

    /// The entries of a file's `bytes`, oldest first; `nil` unless it is a whole file of this
    /// version for the key named `name`, every entry checked.
    static func decodeFile(_ bytes: Data, name: String) -> [HTTPCacheEntry]? {
        var reader = EntryReader(bytes: [UInt8](bytes), position: 0)
        guard reader.take(fileMagic.count).map(Array.init) == fileMagic, reader.byte() == fileVersion,
            reader.string() == name, let count: UInt16 = reader.integer()
        else { return nil }
        var entries: [HTTPCacheEntry] = []
        for _ in 0..<count {
            guard let length: UInt64 = reader.integer(), length <= UInt64(reader.remaining),
                let part = reader.take(Int(length)),
                let entry = try? HTTPCacheEntry(encoded: Data(part))
            else { return nil }
            entries.append(entry)
        }
        return reader.remaining == 0 ? entries : nil
    }

    /// The entries in the file at `path` (oldest first) and its size; a file that is not a whole
    /// entry file of the key named `name`, or is larger than `limit`, is removed and reads as none.
    static func read(_ path: URL, name: String, limit: Int) -> (entries: [HTTPCacheEntry], size: Int) {
        let descriptor: Int32
        do {
            descriptor = try SystemFile.openForReading(path.path)
        } catch {
            return ([], 0)
        }
        let file = OpenFile(descriptor)
        guard let size = SystemFile.regularFileSize(file.descriptor), size <= Int64(limit) else {
            try? FileManager.default.removeItem(at: path)
            return ([], 0)
        }
        SystemFile.setBlocking(file.descriptor)
        guard let bytes = try? SystemFile.read(file.descriptor, at: 0, count: Int(size)),
            bytes.count == Int(size), let entries = decodeFile(bytes, name: name)
        else {
            try? FileManager.default.removeItem(at: path)
            return ([], 0)
        }
        return (entries, Int(size))
    }

    /// Writes `bytes` to a new owner-only file in `temporary` and renames it to `path` (making its
    /// directory); `false` when any step fails (nothing is left behind).
    static func write(_ bytes: Data, to path: URL, temporary: URL) -> Bool {
        let scratch = temporary.appendingPathComponent(randomName() + ".tmp", isDirectory: false)
        do {
            try bytes.write(to: scratch, options: .withoutOverwriting)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scratch.path)
            do {
                try SystemFile.rename(scratch.path, to: path.path)
            } catch {
                // The first entry of its folder (or one made again after `removeAll()`).
                try makeDirectory(path.deletingLastPathComponent())
                try SystemFile.rename(scratch.path, to: path.path)
            }
            return true
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            return false
        }
    }

    /// Removes `folder` after renaming it into `temporary` (so that no write lands in a folder
    /// being removed); returns the bytes of the entry files it held.
    static func remove(_ folder: URL, temporary: URL) -> Int {
        let doomed = temporary.appendingPathComponent(randomName() + ".removed", isDirectory: true)
        guard (try? SystemFile.rename(folder.path, to: doomed.path)) != nil else { return 0 }
        let bytes = entryFiles(in: doomed).reduce(0) { $0 + $1.size }
        try? FileManager.default.removeItem(at: doomed)
        return bytes
    }

    /// Every regular file under `folder`, with its size and modification time.
    static func entryFiles(in folder: URL) -> [(url: URL, size: Int, modified: Date)] {
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys)
        else { return [] }
        var files: [(url: URL, size: Int, modified: Date)] = []
        for case let url as URL in walk {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true
            else { continue }
            files.append((url, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast))
        }
        return files
    }

    /// Removes files and folders in `temporary` modified over an hour ago.
    static func removeOldTemporaryFiles(in temporary: URL) {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard
            let names = try? FileManager.default.contentsOfDirectory(
                at: temporary, includingPropertiesForKeys: keys)
        else { return }
        let hourAgo = Date().addingTimeInterval(-3600)
        for url in names {
            let modified = (try? url.resourceValues(forKeys: Set(keys)))?.contentModificationDate
            if let modified, modified < hourAgo { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// Creates `folder` (and its parents) owner-only when missing.
    static func makeDirectory(_ folder: URL) throws(NetLayerError) {
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw NetLayerError(
                .fileFailed, "The cache directory cannot be created: \(error.localizedDescription)")
        }
    }

    /// The secret in `directory`'s `secret` file, made when missing: written to `temporary` and
    /// hard-linked into place, which fails when another process got there first (its secret is
    /// then read), so every process ends with the same one. A file of the wrong size is replaced.
    static func loadSecret(in directory: URL, temporary: URL) throws(NetLayerError) -> [UInt8] {
        let path = directory.appendingPathComponent("netlayer-secret", isDirectory: false)
        for _ in 0..<3 {
            switch readSecret(path) {
            case .valid(let secret): return secret
            case .invalid: try? FileManager.default.removeItem(at: path)
            case .missing: break
            case .unreadable(let error):
                // Out of descriptors, no permission…: the secret may be fine; replacing it would
                // part this process from every other one using the directory.
                throw NetLayerError(.fileFailed, "The cache directory's secret cannot be read: \(error).")
            }
            let secret = CredentialPartition.Salt.random().bytes
            let scratch = temporary.appendingPathComponent(randomName() + ".secret", isDirectory: false)
            defer { try? FileManager.default.removeItem(at: scratch) }
            do {
                try Data(secret).write(to: scratch, options: .withoutOverwriting)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: scratch.path)
            } catch {
                throw NetLayerError(
                    .fileFailed, "The cache directory cannot be written: \(error.localizedDescription)")
            }
            if (try? FileManager.default.linkItem(at: scratch, to: path)) != nil { return secret }
        }
        throw NetLayerError(.fileFailed, "The cache directory's secret cannot be read or made.")
    }

    /// The secret's length in bytes.
    static let secretLength = 32

    /// What the `secret` file holds.
    enum SecretFile {
        case missing
        /// Not a regular file of ``secretLength`` bytes (a FIFO, a folder, a link to a device, a
        /// huge file): never read further, replaced.
        case invalid
        case valid([UInt8])
        /// Opening it failed for another reason than its absence.
        case unreadable(SystemError)
    }

    /// Reads the secret at `path` without blocking on a FIFO and without reading more than
    /// ``secretLength`` bytes.
    static func readSecret(_ path: URL) -> SecretFile {
        let descriptor: Int32
        do {
            descriptor = try SystemFile.openForReading(path.path)
        } catch {
            return error.isMissing ? .missing : .unreadable(error)
        }
        let file = OpenFile(descriptor)
        guard SystemFile.regularFileSize(file.descriptor) == Int64(secretLength) else { return .invalid }
        SystemFile.setBlocking(file.descriptor)
        guard let bytes = try? SystemFile.read(file.descriptor, at: 0, count: secretLength),
            bytes.count == secretLength
        else { return .invalid }
        return .valid([UInt8](bytes))
    }

    /// Refuses a directory of another user, or one its group or others may write in (the
    /// directory itself when `directory` is a symbolic link to it).
    static func checkOwnership(of directory: URL) throws(NetLayerError) {
        let attributes = try? FileManager.default.attributesOfItem(
            atPath: directory.resolvingSymlinksInPath().path)
        let owner = (attributes?[.ownerAccountID] as? NSNumber)?.uint32Value
        let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
        guard owner == SystemFile.currentUserID() else {
            throw NetLayerError(
                .fileFailed, "The cache directory belongs to another user; choose one of your own.")
        }
        guard mode & 0o022 == 0 else {
            throw NetLayerError(
                .fileFailed, "Other users can write in the cache directory; choose one only you can write in."
            )
        }
    }

    /// 32 random hex digits.
    static func randomName() -> String {
        CredentialPartition.hex(CredentialPartition.Salt.random().bytes.prefix(16).map { $0 })
    }
}

/// The lock of a disk store's changes in this process: a key's read, check and replace
/// (``DiskCacheStorage/store(_:for:replacing:)``), the removals of a URI's files, and `removeAll()`
/// hold it, so a removal never falls between a conditional store's check and its write. Reads
/// (`entries(for:)`) and counts do not take it. Held only on the blocking-I/O queue, never on the
/// cooperative pool. One lock, not one per folder: `removeAll()` would hold them all at once.
final class WriteLock: @unchecked Sendable {  // NSLock is thread-safe
    private let lock = NSLock()

    /// Runs `body` holding the lock.
    func withLock<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
