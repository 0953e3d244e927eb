import Foundation
import Testing

@testable import NetLayer

/// Whether a private cache stores a response (RFC 9111 §3, §3.1, §3.5, §5.2.2.3).
@Suite("Caching: storability")
struct CachingStorabilityTests {
    private typealias F = CachingFixture

    private func reason(
        method: HTTPMethod = .get, request: HeaderFields = HeaderFields(), status: Int = 200,
        _ pairs: (String, String)...
    ) -> Storability.Reason? {
        Storability.reasonNotToStore(
            method: method, requestHeaders: request, status: status,
            responseHeaders: HeaderFields(received: pairs.map { ($0.0, $0.1) }))
    }

    @Test func onlyGETResponsesAreStored_rfc9111_3() {
        #expect(reason(("Cache-Control", "max-age=60")) == nil)
        for method in [HTTPMethod.head, .post, .put, .delete, .options] {
            #expect(reason(method: method, ("Cache-Control", "max-age=60")) == .method, "\(method)")
        }
    }

    @Test func heuristicallyCacheableStatusesNeedNoExplicitFreshness_rfc9110_15_1() {
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            #expect(reason(status: status) == nil, "\(status)")
        }
        for status in [201, 202, 302, 303, 307, 400, 403, 500, 502, 503, 504, 599] {
            #expect(reason(status: status) == .noPermission, "\(status)")
        }
    }

    @Test func otherFinalStatusesNeedExplicitFreshnessOrPublic_rfc9111_3() {
        // cache-tests status-*-fresh ("optimal"), status-599-fresh included; heuristic-599-cached.
        #expect(reason(status: 302, ("Cache-Control", "max-age=60")) == nil)
        #expect(reason(status: 599, ("Expires", F.httpDate(F.at(60)))) == nil)
        #expect(reason(status: 503, ("Cache-Control", "public")) == nil)
        #expect(reason(status: 500, ("Cache-Control", "private")) == nil)
    }

    @Test func interimNotModifiedAndUnknownRangesAreNotStored() {
        for status in [100, 103, 199, 304, 600, 0, -1] {
            #expect(reason(status: status, ("Cache-Control", "max-age=60")) == .statusNotFinal, "\(status)")
        }
        // 206: no range support (partial.mjs tests are "optimal").
        #expect(reason(status: 206, ("Cache-Control", "max-age=60")) == .partialContent)
    }

    @Test func noStoreInRequestOrResponsePreventsStoring_rfc9111_5_2_1_5_and_5_2_2_5() {
        // cache-tests cc-resp-no-store, -case-insensitive, -fresh (required).
        #expect(reason(("Cache-Control", "no-store")) == .responseNoStore)
        #expect(reason(("Cache-Control", "No-Store")) == .responseNoStore)
        #expect(reason(("Cache-Control", "max-age=3600, no-store")) == .responseNoStore)
        #expect(
            reason(request: F.fields(("Cache-Control", "no-store")), ("Cache-Control", "max-age=60"))
                == .requestNoStore)
    }

    @Test func mustUnderstandOverridesNoStoreOnlyForUnderstoodStatuses_rfc9111_5_2_2_3() {
        // cache-tests status-200-must-understand ("optimal"), status-599-must-understand (required).
        #expect(reason(("Cache-Control", "max-age=3600, no-store, must-understand")) == nil)
        #expect(
            reason(status: 599, ("Cache-Control", "max-age=3600, no-store, must-understand"))
                == .statusNotUnderstood)
        #expect(
            reason(status: 599, ("Cache-Control", "max-age=3600, must-understand")) == .statusNotUnderstood)
    }

    @Test func privateAndNoCacheResponsesAreStoredByAPrivateCache_rfc9111_5_2_2_7() {
        // cache-tests cc-resp-private-private ("optimal"); no-cache stores, then validates.
        #expect(reason(("Cache-Control", "private, max-age=60")) == nil)
        #expect(reason(("Cache-Control", "no-cache")) == nil)
    }

    /// §3.5 binds shared caches only; the credentials choose the entry's partition instead.
    @Test func aPrivateCacheStoresResponsesToAuthorizedRequests_rfc9111_3_5() {
        let request = F.fields(("Authorization", "Bearer t"))
        #expect(reason(request: request, ("Cache-Control", "max-age=60")) == nil)
        #expect(reason(request: request, ("Cache-Control", "private, max-age=60")) == nil)
        #expect(reason(request: request, ("Cache-Control", "max-age=60, public")) == nil)
        #expect(reason(request: request, ("Cache-Control", "max-age=60, must-revalidate")) == nil)
        #expect(reason(request: request, ("Cache-Control", "s-maxage=60")) == nil)
    }

    @Test func varyStarOrAnUnusableVaryIsNotStored_rfc9111_4_1() {
        // cache-tests vary-syntax-* (required: never reused, so never stored).
        #expect(reason(("Cache-Control", "max-age=60"), ("Vary", "Foo, *")) == .vary)
        #expect(reason(("Cache-Control", "max-age=60"), ("Vary", "Accept-Ünicode")) == .vary)
        #expect(reason(("Cache-Control", "max-age=60"), ("Vary", "Accept-Encoding")) == nil)
    }

    @Test(.tags(.hardening)) func hostileFieldsAreRefusedNotStored() {
        let directives = Array(repeating: "x", count: 10_000).joined(separator: ",")
        #expect(reason(("Cache-Control", directives + ", max-age=60")) == .tooManyDirectives)
        #expect(reason(request: F.fields(("Cache-Control", directives))) == .tooManyDirectives)
        let names = (0..<10_000).map { "H\($0)" }.joined(separator: ", ")
        #expect(reason(("Vary", names)) == .vary)
    }

    @Test func storedHeadersDropHopByHopConnectionListedAndNoCacheListedFields_rfc9111_3_1() {
        let stored = Storability.storedHeaders(
            F.fields(
                ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
                ("Transfer-Encoding", "chunked"), ("Proxy-Authenticate", "Basic"), ("Set-Cookie", "a=1"),
                ("Cache-Control", #"max-age=60, no-cache="Set-Cookie""#), ("X-Kept", "1"), ("X-Kept", "2")))
        #expect(stored.fields.map(\.name) == ["Cache-Control", "X-Kept", "X-Kept"])
        #expect(stored.values(for: "X-Kept") == ["1", "2"])
    }
}
