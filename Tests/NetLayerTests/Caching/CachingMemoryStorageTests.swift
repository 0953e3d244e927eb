import Foundation
import Testing

@testable import NetLayer

/// Issue 28: the in-memory store's bound and its least-recently-used order.
@Suite("Caching: the memory store")
struct CachingMemoryStorageTests {
    typealias Disk = CachingDiskStorageTests

    @Test func theBoundHoldsUnderTenThousandURLsAndAHitKeepsAnEntry() async throws {
        let bound = 256 << 10
        let store = MemoryCacheStorage(maximumBytes: bound)
        let secret = store.keySecret
        let kept = Disk.key("https://api.example/kept", secret: secret)
        await store.store(Disk.entry("kept"), for: kept)
        let body = String(repeating: "b", count: 300)
        for index in 0..<10_000 {
            await store.store(Disk.entry(body), for: Disk.key("https://api.example/\(index)", secret: secret))
            #expect(await store.usage().bytes <= bound)
            if index % 50 == 0 { #expect(await store.entries(for: kept).count == 1) }
        }
        let usage = await store.usage()
        #expect(usage.entries > 400, "it holds what fits: \(usage.entries)")
        #expect(await store.entries(for: Disk.key("https://api.example/9999", secret: secret)).count == 1)
        #expect(await store.entries(for: Disk.key("https://api.example/0", secret: secret)).isEmpty)
    }

    @Test func variantsAreReplacedByTheirSelectingFieldsAndInvalidatedTogether() async throws {
        let store = MemoryCacheStorage()
        let secret = store.keySecret
        let key = Disk.key("https://api.example/a", secret: secret)
        let other = Disk.key("https://api.example/a", authorization: "Bearer x", secret: secret)
        await store.store(Disk.entry("en", language: "en"), for: key)
        await store.store(Disk.entry("de", language: "de"), for: key)
        await store.store(Disk.entry("en again", language: "en"), for: key)
        await store.store(Disk.entry("x"), for: other)
        #expect(await store.entries(for: key).map(\.body) == [Data("en again".utf8), Data("de".utf8)])
        await store.removeEntries(forURIOf: key)
        #expect(await store.usage() == HTTPCacheUsage(entries: 0, bytes: 0))
    }
}
