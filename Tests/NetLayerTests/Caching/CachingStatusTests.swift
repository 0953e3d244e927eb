import Foundation
import Testing

@testable import NetLayer

/// `Response.cacheStatus`: NetLayer's member of `Cache-Status` (RFC 9211) read back, in one word.
@Suite("Caching: Cache-Status read back")
struct CachingStatusTests {
    @Test func eachAnswerIsOneWord() {
        let words = [
            "NetLayer; hit; ttl=42": "hit",
            "NetLayer; hit; fwd=stale": "stale",
            "NetLayer; fwd=stale; fwd-status=304": "revalidated",
            "NetLayer; fwd=stale; fwd-status=503": "stale",
            "NetLayer; fwd=stale; detail=disconnected": "stale",
            "NetLayer; fwd=uri-miss; fwd-status=200; stored": "stored",
            "NetLayer; fwd=vary-miss; fwd-status=200": "miss",
            "NetLayer; fwd=miss; detail=only-if-cached": "miss",
        ]
        for (value, word) in words {
            #expect(CacheStatus(fieldValues: [value])?.description == word, "\(value)")
        }
        let hit = CacheStatus(fieldValues: ["OtherCDN; fwd=miss, NetLayer; hit; ttl=42"])
        #expect(hit?.isHit == true && hit?.timeToLive == 42 && hit?.forwardReason == nil)
    }

    @Test func anotherCachesMemberOrNonsenseIsNotNetLayers() {
        #expect(CacheStatus(fieldValues: []) == nil)
        #expect(CacheStatus(fieldValues: ["OtherCDN; hit"]) == nil)
        let odd = CacheStatus(fieldValues: ["NetLayer; ttl=99999999999999999999999; fwd-status=x; ;;=; hit=?"]
        )
        #expect(odd?.timeToLive == nil && odd?.forwardStatus == nil && odd?.isHit == false)
        let long = CacheStatus(fieldValues: ["NetLayer" + String(repeating: "; stored", count: 10_000)])
        #expect(long?.isStored == true)
    }
}
