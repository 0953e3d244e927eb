import Foundation

/// Where an ``HTTPCache`` keeps its responses: ``MemoryCacheStorage`` (the default),
/// ``DiskCacheStorage``, or a store of your own (a database, a shared key-value service).
///
/// A store holds, for each ``HTTPCacheKey``, the variants of one URI within one credential
/// partition (RFC 9111 §4.1: the responses a `Vary` tells apart). It decides nothing about HTTP:
/// the cache stage chooses what to store, what to serve and what to remove. A store may drop
/// entries whenever it likes (a cache miss is always correct); it must never return an entry under
/// a key it was not stored under.
///
/// A store that persists entries writes ``HTTPCacheEntry/encoded()`` and reads it back with
/// ``HTTPCacheEntry/init(encoded:)``, which checks it, and files it under ``HTTPCacheKey/name``,
/// which names neither a URI nor a credential in the clear.
public protocol HTTPCacheStorage: Sendable {
    /// The secret the names of its keys are made with (``HTTPCacheKey/name``). A store kept
    /// across restarts or shared by several processes returns the same bytes in each (at least
    /// 32 random bytes, kept where its entries are; ``DiskCacheStorage`` does); the default is
    /// random bytes made once per process. Keep it secret (never log it): with it, the names of
    /// the entries can be tested against guessed URLs and credentials.
    var keySecret: [UInt8] { get }

    /// The largest entry it keeps, in bytes (``HTTPCacheEntry/size``): a response whose body would
    /// pass it is passed on without being copied.
    var maximumEntryBytes: Int { get }

    /// The variants stored under `key`, newest first; empty when there are none.
    func entries(for key: HTTPCacheKey) async -> [HTTPCacheEntry]

    /// Stores `entry` under `key`, replacing the variant stored there that
    /// ``HTTPCacheEntry/selectsSameRequests(as:)`` the new one, if any.
    ///
    /// With `expected`, it stores only while that variant is still `expected` (`==`), checked and
    /// replaced in one step: a stored response freshened by a 304 must not bring back an entry
    /// removed meanwhile (an unsafe request, ``removeAll()``) nor overwrite a newer one.
    /// The comparison needs the entries a store returns to equal what it was given, exactly
    /// (``HTTPCacheEntry/encoded()`` round-trips them): a store that rounds a time or reorders
    /// fields would never see its entries freshened.
    /// - Parameters:
    ///   - entry: The response to keep.
    ///   - key: Its key.
    ///   - expected: The entry `entry` was made from; `nil` stores unconditionally.
    func store(_ entry: HTTPCacheEntry, for key: HTTPCacheKey, replacing expected: HTTPCacheEntry?) async

    /// Removes the entries of `key`'s URI in every partition (RFC 9111 §4.4, after an unsafe
    /// request): compare ``HTTPCacheKey/uriName``, not the whole key.
    func removeEntries(forURIOf key: HTTPCacheKey) async

    /// Removes every entry.
    func removeAll() async

    /// How many responses it holds, and their size in bytes.
    func usage() async -> HTTPCacheUsage
}

/// How much a cache holds.
public struct HTTPCacheUsage: Sendable, Hashable {
    /// The stored responses (each variant counts).
    public var entries: Int
    /// Their size in bytes, as the store counts them against its bound.
    public var bytes: Int

    /// A usage from its parts.
    public init(entries: Int, bytes: Int) {
        self.entries = entries
        self.bytes = bytes
    }
}

/// What one stored entry is filed under: a request's target URI (normalised) within the partition
/// of the credentials it carried (`Authorization`, `Cookie` and the resource's secret headers).
/// Compare keys with `==`; where a key must be written down, use ``name``.
public struct HTTPCacheKey: Sendable, Hashable {
    let key: CacheKey
    let salt: CredentialPartition.Salt

    init(_ key: CacheKey, salt: CredentialPartition.Salt) {
        self.key = key
        self.salt = salt
    }

    /// Whether the request carried no credentials.
    public var isAnonymous: Bool { key.partition.isAnonymous }

    /// A file-safe name for the key: ``uriName``, `-`, then 64 hex digits naming the credentials
    /// (or `anonymous`). Both parts are HMAC-SHA-256 under the store's
    /// ``HTTPCacheStorage/keySecret``: they reveal neither the URI (its query may hold a secret)
    /// nor the credentials, even to someone who can guess them, without that secret.
    public var name: String { name(uriName: uriName) }

    /// ``name`` from its ``uriName`` already made.
    func name(uriName: String) -> String {
        uriName + "-" + (key.partition.isAnonymous ? "anonymous" : key.partition.digest)
    }

    /// The first part of ``name``, 64 hex digits: the same for every partition of one URI.
    public var uriName: String { CacheKey.uriDigest(key.uri, salt: salt) }
}

extension HTTPCacheStorage {
    /// Random bytes made once per process.
    public var keySecret: [UInt8] { CredentialPartition.Salt.process.bytes }

    /// Stores `entry` under `key` unconditionally (``store(_:for:replacing:)`` without `expected`).
    public func store(_ entry: HTTPCacheEntry, for key: HTTPCacheKey) async {
        await store(entry, for: key, replacing: nil)
    }
}
