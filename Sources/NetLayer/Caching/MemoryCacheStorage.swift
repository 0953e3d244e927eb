import Foundation

/// An ``HTTPCacheStorage`` in memory, bounded by bytes: when a new entry passes ``maximumBytes``,
/// the least recently used keys go until an eighth of it is free (one sort per such trim, so a
/// store costs O(log n) on average however many entries there are). What
/// ``HTTPCache/init(maximumBytes:)`` uses.
public final class MemoryCacheStorage: HTTPCacheStorage {
    /// The most bytes of entries (``HTTPCacheEntry/size``) it keeps.
    public let maximumBytes: Int
    /// The largest single entry kept: an eighth of ``maximumBytes``, at most 1 GiB.
    public var maximumEntryBytes: Int { min(maximumBytes / 8, Self.largestEntry) }

    /// The largest entry any of NetLayer's stores keeps, whatever its bound: 1 GiB.
    static let largestEntry = 1 << 30

    private let state = LockedValue(State())

    /// Creates an empty store.
    /// - Parameter maximumBytes: Default 10 MiB. Negative values count as 0 (nothing is kept).
    public init(maximumBytes: Int = 10 << 20) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The variants stored under `key`, newest first; marks the key used.
    public func entries(for key: HTTPCacheKey) async -> [HTTPCacheEntry] { variants(of: key) }

    /// ``entries(for:)`` without suspending.
    func variants(of key: HTTPCacheKey) -> [HTTPCacheEntry] {
        state.withLock { state in
            guard let found = state.entries[key] else { return [] }
            state.touch(key)
            return found.reversed()
        }
    }

    /// Stores `entry` under `key`, replacing the variant with the same selecting fields; past
    /// ``maximumBytes``, evicts the least recently used keys until an eighth of it is free. An entry
    /// larger than ``maximumEntryBytes`` is not kept.
    /// - Parameters:
    ///   - entry: The response to keep.
    ///   - key: Its key.
    ///   - expected: When set, it stores only while the variant `entry` replaces is still
    ///     `expected`.
    public func store(_ entry: HTTPCacheEntry, for key: HTTPCacheKey, replacing expected: HTTPCacheEntry?)
        async
    {
        let size = entry.size
        guard size <= maximumEntryBytes else { return }
        state.withLock { state in
            var variants = state.entries[key] ?? []
            if let expected, variants.first(where: { $0.selectsSameRequests(as: entry) }) != expected {
                return
            }
            let old = variants.filter { $0.selectsSameRequests(as: entry) }
            variants.removeAll { $0.selectsSameRequests(as: entry) }
            state.bytes -= old.reduce(0) { $0 + $1.size }
            variants.append(entry)
            state.entries[key] = variants
            state.bytes += size
            state.touch(key)
            guard state.bytes > maximumBytes else { return }
            let target = maximumBytes - maximumBytes / 8
            for (oldest, _) in state.lastUse.sorted(by: { $0.value < $1.value }) where state.bytes > target {
                state.remove(oldest)
            }
        }
    }

    /// Removes the entries of `key`'s URI in every partition.
    public func removeEntries(forURIOf key: HTTPCacheKey) async {
        state.withLock { state in
            for stored in state.entries.keys where stored.key.uri == key.key.uri { state.remove(stored) }
        }
    }

    /// Removes every entry.
    public func removeAll() async {
        state.withLock { $0 = State() }
    }

    /// How many responses it holds, and their size.
    public func usage() async -> HTTPCacheUsage {
        state.withLock { state in
            HTTPCacheUsage(entries: state.entries.values.reduce(0) { $0 + $1.count }, bytes: state.bytes)
        }
    }

    private struct State {
        /// The variants of each key, newest last.
        var entries: [HTTPCacheKey: [HTTPCacheEntry]] = [:]
        /// When each key was last used (a counter), for eviction.
        var lastUse: [HTTPCacheKey: UInt64] = [:]
        var clock: UInt64 = 0
        var bytes = 0

        mutating func touch(_ key: HTTPCacheKey) {
            clock += 1
            lastUse[key] = clock
        }

        mutating func remove(_ key: HTTPCacheKey) {
            if let removed = entries.removeValue(forKey: key) {
                bytes -= removed.reduce(0) { $0 + $1.size }
            }
            lastUse.removeValue(forKey: key)
        }
    }
}
