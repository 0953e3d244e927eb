import Foundation
import Testing

@testable import NetLayer

/// The store-then-reuse cases of http-tests/cache-tests (``CacheTestsFixture``) run through the
/// policy core: store the first response at t0, then ask about the next request at t0 (or 3 s later
/// when the suite pauses, as its client does). "cached" means the core serves the stored response
/// without contacting the server.
@Suite("Caching: cache-tests store-then-reuse cases")
struct CachingCacheTestsSuiteTests {
    private typealias F = CachingFixture

    /// The ids the core answers differently from the suite, by kind; every required case passes.
    /// Optimal and check cases are choices (see each type's documentation).
    static let knownDifferences: Set<String> = [
        // An invalid max-age means stale (RFC 9111 §4.2.1 "encouraged"); browsers read a prefix.
        "freshness-max-age-a100", "freshness-max-age-100a", "freshness-max-age-decimal-zero",
        "freshness-max-age-decimal-five",
        // Two different max-age values mean stale (§4.2.1 allows it, or using the first).
        "freshness-max-age-two-fresh-stale-sameline", "freshness-max-age-two-fresh-stale-sepline",
        "freshness-max-age-two-stale-fresh-sameline", "freshness-max-age-two-stale-fresh-sepline",
        // A request no-store does not stop reuse of a stored response (§5.2.1.5, last sentence).
        "ccreq-no-store",
        // 10% of 5, 10 or 30 seconds is less than the suite's 3-second pause.
        "heuristic-delta-5", "heuristic-delta-10", "heuristic-delta-30",
    ]

    private static func fields(_ pairs: [(String, SuiteCase.Value)]) -> HeaderFields {
        HeaderFields(
            received: pairs.map { name, value in
                switch value {
                case .text(let text): (name: name, value: text)
                case .offset(let seconds): (name: name, value: F.httpDate(F.at(Double(seconds))))
                }
            })
    }

    /// Whether the core serves the stored response for the case's second request.
    static func servesFromCache(_ test: SuiteCase) -> Bool {
        let decision = StoredResponse.make(
            method: .get, requestHeaders: fields(test.request), status: test.status,
            responseHeaders: fields(test.response), requestTime: F.t0, responseTime: F.t0)
        guard case .store(let entry) = decision else { return false }
        switch entry.reuse(for: fields(test.next), at: F.at(test.pause ? 3 : 0)) {
        case .fresh?, .staleAcceptedByRequest?, .staleWhileRevalidate?: return true
        case .mustValidate?, .gatewayTimeout?, nil: return false
        }
    }

    @Test func everyRequiredCasePasses() {
        let required = CacheTestsFixture.cases.filter { $0.kind == .required }
        #expect(required.count > 50)
        let failing = required.filter { Self.servesFromCache($0) != $0.cached }.map(\.id)
        #expect(failing == [])
    }

    @Test func optimalAndCheckCasesDifferOnlyWhereDecided() {
        let differing = CacheTestsFixture.cases.filter {
            $0.kind != .required && Self.servesFromCache($0) != $0.cached
        }
        #expect(Set(differing.map(\.id)) == Self.knownDifferences)
    }
}
