import Foundation

/// A private HTTP cache (RFC 9111, RFC 5861) for a resource's calls, kept in memory and bounded by
/// bytes: set it as ``ResourceOptions/cache`` and the resource's collected calls (`execute`,
/// `response`, the decoding verbs) are answered from it while its entries are fresh, revalidated
/// with `If-None-Match` / `If-Modified-Since` when they are not, and served stale when a response
/// allows it (`stale-if-error`) and the server fails.
///
/// ```swift
/// let cache = HTTPCache(maximumBytes: 20 << 20)
/// let api = MyAPI(options: ResourceOptions { $0.cache = cache })
/// ```
///
/// - Entries are partitioned by credential: a response fetched with one `Authorization`, `Cookie`
///   or secret header value (``Redaction``) is never served to a request carrying another or none.
/// - `stream()`, `events()` and `download(to:)` bypass it (they never read from it or store in it);
///   a call's unsafe method (POST, PUT, PATCH, DELETE) answered with a non-error status removes the
///   entries of its URL and of a same-origin `Location` / `Content-Location` (§4.4).
/// - A response says what the cache did in its `Cache-Status` field (RFC 9211), for example
///   `NetLayer; hit; ttl=42` or `NetLayer; fwd=stale; fwd-status=304`.
///
/// Its entries live in a ``HTTPCacheStorage``: in memory by default (``MemoryCacheStorage``), in a
/// directory that outlives the process (``init(directory:maximumBytes:)``), or in a store of your
/// own (``init(storage:)``).
///
/// One cache may serve several resources; it is safe to share between tasks.
public final class HTTPCache: Sendable {
    /// Where its entries are kept.
    public let storage: any HTTPCacheStorage
    /// The storage when it is the in-memory one, read without suspending (a hit's fast path).
    private let memory: MemoryCacheStorage?
    /// The key of the digests naming its entries (the storage's ``HTTPCacheStorage/keySecret``).
    let salt: CredentialPartition.Salt
    /// Keys with a background revalidation in flight.
    private let revalidating = LockedValue(Set<HTTPCacheKey>())

    /// A cache in memory (``MemoryCacheStorage``), least recently used entries going first.
    /// - Parameter maximumBytes: Default 10 MiB. Negative values count as 0 (nothing is kept). No
    ///   single entry passes an eighth of it (or 1 GiB).
    public convenience init(maximumBytes: Int = 10 << 20) {
        self.init(storage: MemoryCacheStorage(maximumBytes: maximumBytes))
    }

    /// A cache on disk, in `directory` (``DiskCacheStorage``): it survives a restart, and several
    /// resources and processes may share the directory.
    /// - Parameters:
    ///   - directory: Created (owner-only) when missing; one that exists must belong to this
    ///     process's user and be closed to writes by its group and others.
    ///   - maximumBytes: Default 100 MiB. Negative values count as 0 (nothing is kept). No single
    ///     entry passes an eighth of it (or 1 GiB).
    /// - Throws: ``NetLayerError/Code/fileFailed`` when the directory cannot be created or written,
    ///   or is another user's or open to writes by its group or others.
    public convenience init(directory: URL, maximumBytes: Int = 100 << 20) async throws(NetLayerError) {
        self.init(storage: try await DiskCacheStorage(directory: directory, maximumBytes: maximumBytes))
    }

    /// A cache keeping its entries in `storage`.
    public init(storage: any HTTPCacheStorage) {
        self.storage = storage
        memory = storage as? MemoryCacheStorage
        salt = CredentialPartition.Salt(bytes: storage.keySecret)
    }

    /// The largest response body it copies (its storage's ``HTTPCacheStorage/maximumEntryBytes``).
    var maximumEntryBytes: Int { storage.maximumEntryBytes }

    /// Removes every entry (at a user's logout, for example).
    public func removeAll() async { await storage.removeAll() }

    /// How many responses it holds, and their size in bytes.
    public func usage() async -> HTTPCacheUsage { await storage.usage() }

    // MARK: What the stage asks

    /// The key of a request to `url` sending `headers`.
    func key(url: URL, headers: HeaderFields, redaction: Redaction) -> HTTPCacheKey {
        HTTPCacheKey(CacheKey(url: url, headers: headers, redaction: redaction, salt: salt), salt: salt)
    }

    /// The stored variants of `key`, newest first.
    func variants(of key: HTTPCacheKey) async -> [HTTPCacheEntry] {
        if let memory { return memory.variants(of: key) }
        return await storage.entries(for: key)
    }

    /// Stores `entry` under `key` (replacing the variant with the same selecting fields); with
    /// `expected`, only while that variant is still `expected`.
    func store(_ entry: HTTPCacheEntry, under key: HTTPCacheKey, replacing expected: HTTPCacheEntry? = nil)
        async
    {
        await storage.store(entry, for: key, replacing: expected)
    }

    /// Removes every partition's entries for the URI of `key` (§4.4).
    func invalidate(_ key: HTTPCacheKey) async {
        await storage.removeEntries(forURIOf: key)
    }

    /// Marks `key` as being revalidated in the background; `false` when it already is (one
    /// background revalidation per entry, RFC 5861 §3).
    func beginRevalidation(of key: HTTPCacheKey) -> Bool {
        revalidating.withLock { $0.insert(key).inserted }
    }

    /// Ends what ``beginRevalidation(of:)`` began.
    func endRevalidation(of key: HTTPCacheKey) {
        revalidating.withLock { _ = $0.remove(key) }
    }
}
