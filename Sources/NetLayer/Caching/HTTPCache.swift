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
/// One cache may serve several resources; it is safe to share between tasks.
public final class HTTPCache: Sendable {
    /// The most bytes of bodies and header fields it keeps; the least recently used entries go
    /// first when a new one would pass it.
    public let maximumBytes: Int
    /// The largest single entry kept: an eighth of ``maximumBytes``.
    var maximumEntryBytes: Int { maximumBytes / 8 }

    private let state = LockedValue(State())

    /// Creates an empty cache.
    /// - Parameter maximumBytes: Default 10 MiB. Negative values count as 0 (nothing is kept).
    public init(maximumBytes: Int = 10 << 20) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// Removes every entry (at a user's logout, for example).
    public func removeAll() {
        state.withLock { state in
            let revalidating = state.revalidating
            state = State()
            state.revalidating = revalidating
        }
    }

    /// How many responses it holds, and their size in bytes.
    public var usage: (entries: Int, bytes: Int) {
        state.withLock { state in (state.entries.values.reduce(0) { $0 + $1.count }, state.bytes) }
    }

    // MARK: The store

    /// One stored response and its body.
    struct Entry: Sendable {
        var stored: StoredResponse
        let body: Data

        /// What it counts against ``maximumBytes``.
        var size: Int {
            body.count + stored.headers.reduce(64) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        }
    }

    /// Marks `key` as being revalidated in the background; `false` when it already is (one
    /// background revalidation per entry, RFC 5861 §3).
    func beginRevalidation(of key: CacheKey) -> Bool {
        state.withLock { $0.revalidating.insert(key).inserted }
    }

    /// Ends what ``beginRevalidation(of:)`` began.
    func endRevalidation(of key: CacheKey) {
        state.withLock { _ = $0.revalidating.remove(key) }
    }

    private struct State {
        /// Keys with a background revalidation in flight.
        var revalidating: Set<CacheKey> = []
        /// The variants of each key, newest last.
        var entries: [CacheKey: [Entry]] = [:]
        /// When each key was last used (a counter), for eviction.
        var lastUse: [CacheKey: UInt64] = [:]
        var clock: UInt64 = 0
        var bytes = 0

        mutating func touch(_ key: CacheKey) {
            clock += 1
            lastUse[key] = clock
        }

        mutating func remove(_ key: CacheKey) {
            if let removed = entries.removeValue(forKey: key) {
                bytes -= removed.reduce(0) { $0 + $1.size }
            }
            lastUse.removeValue(forKey: key)
        }
    }

    /// The stored variants of `key`, newest first.
    func variants(of key: CacheKey) -> [Entry] {
        state.withLock { state in
            guard let found = state.entries[key] else { return [] }
            state.touch(key)
            return found.reversed()
        }
    }

    /// Stores `entry` under `key`, replacing the variant it selects with the same `Vary` values;
    /// evicts the least recently used keys past ``maximumBytes``. An entry larger than
    /// ``maximumEntryBytes`` is not kept.
    func store(_ entry: Entry, under key: CacheKey) {
        let size = entry.size
        guard size <= maximumEntryBytes else { return }
        state.withLock { state in
            var variants = state.entries[key] ?? []
            let old = variants.filter { $0.stored.vary == entry.stored.vary }
            variants.removeAll { $0.stored.vary == entry.stored.vary }
            state.bytes -= old.reduce(0) { $0 + $1.size }
            variants.append(entry)
            state.entries[key] = variants
            state.bytes += size
            state.touch(key)
            while state.bytes > maximumBytes,
                let oldest = state.lastUse.min(by: { $0.value < $1.value })?.key
            {
                state.remove(oldest)
            }
        }
    }

    /// Replaces the stored responses of `key` that `update` changes (a 304's freshening).
    func update(_ key: CacheKey, _ update: (Entry) -> Entry?) {
        state.withLock { state in
            guard var variants = state.entries[key] else { return }
            for index in variants.indices {
                if let updated = update(variants[index]) {
                    state.bytes += updated.size - variants[index].size
                    variants[index] = updated
                }
            }
            state.entries[key] = variants
        }
    }

    /// Removes every partition's entries for the normalised URI `uri` (§4.4).
    func invalidate(uri: String) {
        state.withLock { state in
            for key in state.entries.keys where key.uri == uri { state.remove(key) }
        }
    }
}
