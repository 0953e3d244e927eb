import Foundation
import Testing

@testable import NetLayer

/// A stored entry end to end: storing, selecting by `Vary`, reusing, serving with `Age`, and
/// freshening by a 304 (RFC 9111 §3, §4, §4.3.4, §5.1).
@Suite("Caching: stored response")
struct CachingStoredResponseTests {
    private typealias F = CachingFixture

    private func store(
        request: HeaderFields = HeaderFields(), status: Int = 200, _ pairs: (String, String)...
    ) -> StoredResponse.StorageDecision {
        StoredResponse.make(
            method: .get, requestHeaders: request, status: status,
            responseHeaders: HeaderFields(received: pairs.map { ($0.0, $0.1) }), requestTime: F.at(-1),
            responseTime: F.t0)
    }

    private func stored(_ decision: StoredResponse.StorageDecision) throws -> StoredResponse {
        guard case .store(let entry) = decision else { throw StoredResponseTestError.notStored(decision) }
        return entry
    }

    @Test func aStorableResponseIsKeptWithoutItsHopByHopFields_rfc9111_3_1() throws {
        let entry = try stored(store(("Cache-Control", "max-age=60"), ("Connection", "close"), ("X-A", "1")))
        #expect(entry.headers.fields.map(\.name) == ["Cache-Control", "X-A"])
        #expect(entry.status == 200 && entry.responseTime == F.t0 && entry.requestTime == F.at(-1))
        #expect(store(("Cache-Control", "no-store")) == .doNotStore(.responseNoStore))
        #expect(store(("Cache-Control", "max-age=60"), ("Vary", "*")) == .doNotStore(.vary))
    }

    @Test func reuseChecksTheSelectingFieldsFirst_rfc9111_4_1() throws {
        let entry = try stored(
            store(
                request: F.fields(("Accept-Language", "en")), ("Cache-Control", "max-age=60"),
                ("Vary", "Accept-Language")))
        // vary-match ("optimal") and vary-no-match (required).
        #expect(entry.reuse(for: F.fields(("Accept-Language", "en")), at: F.at(10)) == .fresh(timeToLive: 49))
        #expect(entry.reuse(for: F.fields(("Accept-Language", "de")), at: F.at(10)) == nil)
    }

    @Test func aServedResponseCarriesItsCurrentAgeAndItsOriginalDate_rfc9111_5_1() throws {
        let date = F.httpDate(F.t0)
        let entry = try stored(store(("Cache-Control", "max-age=3600"), ("Date", date), ("Age", "30")))
        // other-age-update-max-age (required): Age > 32 after a pause; other-date-update (required).
        // 30 + 1 (response delay) + 3 resident.
        let served = entry.servedHeaders(at: F.at(3))
        #expect(served.values(for: "Age") == ["34"])
        #expect(served["Date"] == date)
        #expect(try stored(store(("Cache-Control", "max-age=60"))).servedHeaders(at: F.at(2.9))["Age"] == "3")
    }

    @Test func a304FreshensTheEntryAndRestartsItsAge_rfc9111_4_3_4() throws {
        let entry = try stored(
            store(
                ("Cache-Control", "max-age=1"), ("ETag", #""v1""#), ("Age", "100"), ("Content-Length", "36")))
        #expect(entry.reuse(for: HeaderFields(), at: F.at(5)) == .mustValidate(staleIfErrorWindow: nil))
        let notModified = F.fields(
            ("Cache-Control", "max-age=3600"), ("ETag", #""v1""#), ("Content-Length", "0"))
        #expect(CacheValidation.selectedForUpdate(by: notModified, among: [entry.headers]) == [0])
        let fresh = entry.freshened(by: notModified, requestTime: F.at(5), responseTime: F.at(6))
        #expect(fresh.headers["Age"] == nil)
        #expect(fresh.headers["Content-Length"] == "36")
        #expect(fresh.headers["Cache-Control"] == "max-age=3600")
        #expect(fresh.reuse(for: HeaderFields(), at: F.at(16)) == .fresh(timeToLive: 3589))
        // A 304 that brings an Age keeps it.
        let aged = entry.freshened(
            by: F.fields(("Age", "7"), ("ETag", #""v1""#)), requestTime: F.at(5), responseTime: F.at(6))
        #expect(aged.headers["Age"] == "7")
    }

    @Test func timeToLiveIsNegativeOnceStale_rfc9211_ttl() throws {
        let entry = try stored(store(("Cache-Control", "max-age=10")))
        // Age at t0 is the one second of response delay.
        #expect(entry.timeToLive(at: F.t0) == 9)
        #expect(entry.isFresh(at: F.at(8.5)))
        #expect(entry.timeToLive(at: F.at(20)) == -11)
        #expect(!entry.isFresh(at: F.at(9)))
    }

    @Test(.tags(.hardening)) func aHugeAgeIsServedCapped() throws {
        let entry = try stored(store(("Cache-Control", "max-age=60"), ("Age", "99999999999999999999")))
        #expect(entry.servedHeaders(at: F.at(100))["Age"] == "2147483648")
        #expect(entry.reuse(for: HeaderFields(), at: F.t0) == .mustValidate(staleIfErrorWindow: nil))
    }
}

private enum StoredResponseTestError: Error {
    case notStored(StoredResponse.StorageDecision)
}
