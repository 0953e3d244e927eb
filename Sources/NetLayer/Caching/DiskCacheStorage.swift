import Foundation

/// An ``HTTPCacheStorage`` in a directory: it survives a restart, and several caches, resources and
/// processes may use one directory at once.
///
/// - **Layout.** In the directory given (which may hold other files, left alone):
///   `netlayer-secret` (the ``keySecret``, 32 random bytes), `netlayer-entries/<ab>/<name>` (one
///   file per key holding its variants, named by ``HTTPCacheKey/name``, a digest, in one of 256
///   folders chosen by its first two digits) and `netlayer-tmp/`. Those folders are owner-only
///   (`0700`) and the files it writes too (`0600`). A directory of another user, or one its group or
///   others may write in, is refused: they could plant a secret they know, then entries that pass every check.
/// - **Atomic writes.** An entry is written to `netlayer-tmp/` and renamed over the old one, so a
///   reader in any process sees the old file or the new one, never a mix. Two processes storing
///   variants of one key at once may lose one of them (a later miss), never mix them. Nothing is
///   `fsync`ed: a power cut may leave an entry short, and a short entry is a miss.
/// - **Checked reads.** A file that is not a whole entry of this key (truncated, changed, of another
///   version, another key's, not a regular file, larger than ``maximumEntryBytes``, which no file it
///   writes passes) is a miss and is removed: a huge or sparse file planted there is never read. The
///   secret is read the same way: a FIFO, a device or a file of another size there is replaced.
/// - **Bounded.** Entry files are counted against ``maximumBytes``. The directory is counted when
///   the store opens (in the background), whenever this process's count passes the bound, and after
///   every eighth of the bound it writes, so another process's files count within that much; a
///   count over the bound removes the least recently used files (by modification time, which a hit
///   renews) until an eighth is free. With N processes writing, the directory passes the bound by
///   at most about N eighths of it between counts.
///
/// Reads and writes run on NetLayer's queue for blocking work, never on the cooperative pool.
public final class DiskCacheStorage: HTTPCacheStorage {
    /// The directory given.
    public let directory: URL
    /// The most bytes its entry files take.
    public let maximumBytes: Int
    /// The largest single entry kept: an eighth of ``maximumBytes``, at most 1 GiB.
    public var maximumEntryBytes: Int { min(maximumBytes / 8, MemoryCacheStorage.largestEntry) }
    /// The secret kept in the directory's `netlayer-secret` file. Keep it as secret as the
    /// directory (never log it): with it, the names of the entries can be tested against guesses.
    public let keySecret: [UInt8]

    private let entriesDirectory: URL
    private let temporaryDirectory: URL
    private let io: BlockingIO
    private let state = LockedValue(State())
    private let writeLock = WriteLock()

    private struct State {
        /// The bytes of entry files as last counted plus what this process wrote since; `nil`
        /// until counted.
        var bytes: Int?
        /// Bytes this process wrote since the last count.
        var writtenSinceCount = 0
        /// Whether a trim is running (one at a time).
        var trimming = true  // the first count starts when the store opens
    }

    /// Opens (or creates) a disk store in `directory`.
    /// - Parameters:
    ///   - directory: Created with owner-only permissions when missing; may hold other files. One
    ///     that exists must belong to this process's user and be closed to writes by its group and others.
    ///   - maximumBytes: Default 100 MiB. Negative values count as 0 (nothing is kept).
    /// - Throws: ``NetLayerError/Code/fileFailed`` when the directory or its secret cannot be
    ///   created, read or written, or the directory belongs to another user or its group or others
    ///   may write in it (they could plant a secret they know, then entries that pass every check).
    public convenience init(directory: URL, maximumBytes: Int = 100 << 20) async throws(NetLayerError) {
        try await self.init(directory: directory, maximumBytes: maximumBytes, io: .shared)
    }

    init(directory: URL, maximumBytes: Int, io: BlockingIO) async throws(NetLayerError) {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
        self.io = io
        entriesDirectory = directory.appendingPathComponent("netlayer-entries", isDirectory: true)
        temporaryDirectory = directory.appendingPathComponent("netlayer-tmp", isDirectory: true)
        let result = await io.run {
            [entriesDirectory, temporaryDirectory] () -> Result<[UInt8], NetLayerError> in
            Result { () throws(NetLayerError) -> [UInt8] in
                try Self.makeDirectory(directory)
                try Self.checkOwnership(of: directory)
                for folder in [entriesDirectory, temporaryDirectory] {
                    try Self.makeDirectory(folder)
                    // Folders left by an earlier run keep whatever mode they had: owner-only again.
                    try? FileManager.default.setAttributes(
                        [.posixPermissions: 0o700], ofItemAtPath: folder.path)
                }
                return try Self.loadSecret(in: directory, temporary: temporaryDirectory)
            }
        }
        keySecret = try result.get()
        // The first count, in the background: opening the store never waits for a walk of the
        // directory.
        Task { [self] in await trim() }
    }

    // MARK: HTTPCacheStorage

    /// The variants stored under `key`, newest first; a hit renews the file's modification time.
    public func entries(for key: HTTPCacheKey) async -> [HTTPCacheEntry] {
        let (path, name) = file(for: key)
        return await io.run { [maximumEntryBytes] in
            let (entries, _) = Self.read(path, name: name, limit: maximumEntryBytes)
            if !entries.isEmpty {
                try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path.path)
            }
            return entries.reversed()
        }
    }

    /// Stores `entry` under `key`, replacing the variant with the same selecting fields; older
    /// variants are dropped while the file would pass ``maximumEntryBytes``.
    /// - Parameters:
    ///   - entry: The response to keep.
    ///   - key: Its key.
    ///   - expected: When set, it stores only while the variant `entry` replaces is still
    ///     `expected` in the file. Reading, checking and replacing hold the store's write lock, as
    ///     removals do, so in this process a removal never falls between the check and the write;
    ///     another process removing or writing the key in that instant may still win.
    public func store(_ entry: HTTPCacheEntry, for key: HTTPCacheKey, replacing expected: HTTPCacheEntry?)
        async
    {
        guard entry.size <= maximumEntryBytes else { return }
        let (path, name) = file(for: key)
        let written: Int? = await io.run { [maximumEntryBytes, temporaryDirectory, writeLock] in
            writeLock.withLock { () -> Int? in
                let (old, oldSize) = Self.read(path, name: name, limit: maximumEntryBytes)
                if let expected, old.first(where: { $0.selectsSameRequests(as: entry) }) != expected {
                    return nil
                }
                var variants = old.filter { !$0.selectsSameRequests(as: entry) }
                variants.append(entry)
                var file = Self.encodeFile(name: name, entries: variants)
                while file.count > maximumEntryBytes, variants.count > 1 {
                    variants.removeFirst()
                    file = Self.encodeFile(name: name, entries: variants)
                }
                guard file.count <= maximumEntryBytes,
                    Self.write(file, to: path, temporary: temporaryDirectory)
                else { return nil }
                return file.count - oldSize
            }
        }
        guard let written else { return }
        let step = state.withLock { state -> (over: Bool, startCount: Bool) in
            if let bytes = state.bytes { state.bytes = bytes + written }
            state.writtenSinceCount += max(0, written)
            let over = state.bytes.map { $0 > maximumBytes } ?? false
            guard !over, state.writtenSinceCount > maximumBytes / 8, !state.trimming else {
                return (over, false)
            }
            state.trimming = true
            return (false, true)
        }
        if step.over {
            await trimToBound()
        } else if step.startCount {
            // A count that is only due runs in the background.
            Task { [self] in await trim() }
        }
    }

    /// Past the bound, the writer waits until a trim has brought the directory under it (the
    /// bound holds however fast it writes): it runs one, or waits for the one running.
    private func trimToBound() async {
        while true {
            let run = state.withLock { state -> Bool? in
                guard state.bytes.map({ $0 > maximumBytes }) ?? false else { return nil }
                guard !state.trimming else { return false }
                state.trimming = true
                return true
            }
            switch run {
            case nil: return
            case true?:
                await trim()
                return
            case false?:
                if Task.isCancelled { return }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    /// Removes the files of `key`'s URI in every partition: the names in its folder that start
    /// with its ``HTTPCacheKey/uriName``.
    public func removeEntries(forURIOf key: HTTPCacheKey) async {
        let (path, _) = file(for: key)
        let prefix = key.uriName + "-"
        let removed = await io.run { [writeLock] () -> Int in
            writeLock.withLock { () -> Int in
                let folder = path.deletingLastPathComponent()
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                var bytes = 0
                for name in names where name.hasPrefix(prefix) {
                    let file = folder.appendingPathComponent(name, isDirectory: false)
                    let size =
                        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)
                    if (try? FileManager.default.removeItem(at: file)) != nil { bytes += size?.intValue ?? 0 }
                }
                return bytes
            }
        }
        state.withLock { state in state.bytes = state.bytes.map { max(0, $0 - removed) } }
    }

    /// Removes every entry (the secret stays).
    public func removeAll() async {
        await io.run { [entriesDirectory, temporaryDirectory, writeLock] in
            writeLock.withLock {
                _ = Self.remove(entriesDirectory, temporary: temporaryDirectory)
                try? Self.makeDirectory(entriesDirectory)
            }
        }
        state.withLock { $0.bytes = nil }
    }

    /// The entry files in the directory and their size (a scan of the directory).
    public func usage() async -> HTTPCacheUsage {
        let files = await io.run { [entriesDirectory] in Self.entryFiles(in: entriesDirectory) }
        return HTTPCacheUsage(entries: files.count, bytes: files.reduce(0) { $0 + $1.size })
    }

    // MARK: Bound

    /// Counts the entry files; when they pass ``maximumBytes``, removes the least recently used
    /// until an eighth of it is free. Also removes temporary files an hour old (a process that
    /// stopped mid-write). Callers set `trimming` first (one trim at a time).
    func trim() async {
        let remaining = await io.run {
            [entriesDirectory, temporaryDirectory, maximumBytes] () -> Int in
            Self.removeOldTemporaryFiles(in: temporaryDirectory)
            var files = Self.entryFiles(in: entriesDirectory)
            var total = files.reduce(0) { $0 + $1.size }
            guard total > maximumBytes else { return total }
            files.sort { $0.modified < $1.modified }
            let target = maximumBytes - maximumBytes / 8
            for file in files where total > target {
                if (try? FileManager.default.removeItem(at: file.url)) != nil { total -= file.size }
            }
            return total
        }
        state.withLock { state in
            state.bytes = remaining
            state.writtenSinceCount = 0
            state.trimming = false
        }
    }

    /// Counts (and trims) now, once a count already running has ended; returns at once in a
    /// cancelled task.
    func countNow() async {
        while !state.withLock({ state -> Bool in
            guard !state.trimming else { return false }
            state.trimming = true
            return true
        }) {
            if Task.isCancelled { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
        await trim()
    }

    // MARK: Files

    /// The file of `key`, and the key's name (its digest made once: it costs an HMAC). The
    /// folder is the name's first two digits: at most 256 folders, each listed alone to find a
    /// URI's partitions.
    private func file(for key: HTTPCacheKey) -> (path: URL, name: String) {
        let name = key.name(uriName: key.uriName)
        let path = entriesDirectory.appendingPathComponent(String(name.prefix(2)), isDirectory: true)
            .appendingPathComponent(name, isDirectory: false)
        return (path, name)
    }
}
