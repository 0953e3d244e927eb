import Foundation
import Testing

@testable import NetLayer

/// Freshness lifetime (RFC 9111 §4.2.1, §4.2.2) and current age (§4.2.3).
@Suite("Caching: freshness lifetime and age")
struct CachingFreshnessTests {
    private typealias F = CachingFixture

    private func lifetime(status: Int = 200, _ pairs: (String, String)...) -> Freshness {
        Freshness(
            status: status, headers: HeaderFields(received: pairs.map { ($0.0, $0.1) }), responseTime: F.t0)
    }

    @Test func maxAgeWinsOverExpires_rfc9111_4_2_1() {
        let date = F.httpDate(F.t0)
        // cache-tests freshness-max-age-expires, -max-age-0-expires, -max-age-expires-invalid.
        #expect(
            lifetime(("Cache-Control", "max-age=3600"), ("Expires", F.httpDate(F.at(10))), ("Date", date))
                == Freshness(lifetime: 3600, source: .maxAge))
        #expect(
            lifetime(("Cache-Control", "max-age=0"), ("Expires", F.httpDate(F.at(3600))), ("Date", date))
                == Freshness(lifetime: 0, source: .maxAge))
        #expect(lifetime(("Cache-Control", "max-age=3600"), ("Expires", "0")).lifetime == 3600)
    }

    @Test func sMaxageIsIgnoredByAPrivateCache_rfc9111_5_2_2_10() {
        // cache-tests freshness-max-age-s-maxage-private (required).
        #expect(lifetime(("Cache-Control", "s-maxage=3600, max-age=1")).lifetime == 1)
        #expect(lifetime(("Cache-Control", "s-maxage=3600")).source == .none)
    }

    @Test func anInvalidOrConflictingMaxAgeMeansStale_rfc9111_4_2_1() {
        // cache-tests freshness-max-age-negative (required), freshness-max-age-two-* ("check").
        #expect(
            lifetime(("Cache-Control", "max-age=-3600"), ("Expires", F.httpDate(F.at(3600))))
                == Freshness(lifetime: 0, source: .invalid))
        #expect(lifetime(("Cache-Control", "max-age=1800, max-age=1")).source == .invalid)
        #expect(lifetime(("Cache-Control", "max-age=2147483649")).lifetime == 2_147_483_648)
    }

    @Test func expiresMinusDate_rfc9111_4_2_1() {
        // freshness-expires-future / -past / -present / -old-date.
        #expect(lifetime(("Expires", F.httpDate(F.at(300))), ("Date", F.httpDate(F.t0))).lifetime == 300)
        #expect(lifetime(("Expires", F.httpDate(F.at(-300))), ("Date", F.httpDate(F.t0))).lifetime == 0)
        // A Date far in the past: Expires - Date, not Expires - now (freshness-expires-old-date).
        #expect(
            lifetime(("Expires", F.httpDate(F.at(-3600))), ("Date", F.httpDate(F.at(-7200)))).lifetime == 3600
        )
        // No Date: the response time stands in for it.
        #expect(lifetime(("Expires", F.httpDate(F.at(60)))).lifetime == 60)
        #expect(lifetime(("Expires", F.httpDate(F.at(60))), ("Date", "garbage")).lifetime == 60)
    }

    @Test func anInvalidExpiresMeansAlreadyExpired_rfc9111_5_3() {
        // freshness-expires-invalid, -invalid-multiple-lines (required).
        #expect(lifetime(("Expires", "0")) == Freshness(lifetime: 0, source: .invalid))
        #expect(lifetime(("Expires", "Thu, 18 Aug 2050 02:01:18 UTC")).source == .invalid)
        #expect(
            lifetime(
                ("Expires", "Thu, 18 Aug 2050 02:01:18 GMT"), ("Expires", "Thu, 18 Aug 2050 02:01:19 GMT")
            )
            .source == .invalid)
        // The same line twice is one value.
        let twice = F.httpDate(F.at(60))
        #expect(lifetime(("Expires", twice), ("Expires", twice)).lifetime == 60)
    }

    @Test func heuristicFreshnessIsATenthOfTheLastModifiedAge_rfc9111_4_2_2() {
        let lastModified = F.httpDate(F.at(-86_400))
        let date = F.httpDate(F.t0)
        // heuristic-200-cached etc. ("optimal"): Last-Modified a day ago, 2.4 hours fresh.
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            #expect(
                lifetime(status: status, ("Last-Modified", lastModified), ("Date", date))
                    == Freshness(lifetime: 8640, source: .heuristic), "\(status)")
        }
        // heuristic-201/202/403/502/503/504/599-not_cached (required).
        for status in [201, 202, 403, 502, 503, 504, 599] {
            #expect(
                lifetime(status: status, ("Last-Modified", lastModified), ("Date", date)).lifetime == 0,
                "\(status)")
        }
        // heuristic-599-cached: `public` allows it for any status.
        #expect(
            lifetime(
                status: 599, ("Last-Modified", lastModified), ("Date", date), ("Cache-Control", "public")
            )
            .source == .heuristic)
    }

    @Test func heuristicFreshnessIsCappedAndNeedsAPastLastModified() {
        let year = F.httpDate(F.at(-365 * 86_400))
        #expect(
            lifetime(("Last-Modified", year), ("Date", F.httpDate(F.t0))).lifetime == Freshness.heuristicCap)
        #expect(lifetime(("Last-Modified", F.httpDate(F.at(60))), ("Date", F.httpDate(F.t0))).source == .none)
        #expect(lifetime(("Last-Modified", "yesterday")).source == .none)
        // Explicit freshness, even invalid, leaves no room for a heuristic.
        #expect(lifetime(("Last-Modified", year), ("Expires", "0")).source == .invalid)
    }

    @Test func ageValueTakesTheFirstMemberAndIgnoresInvalidValues_rfc9111_5_1() {
        func age(_ lines: String...) -> Int {
            Freshness.ageValue(HeaderFields(received: lines.map { ("Age", $0) }))
        }
        #expect(age() == 0)
        #expect(age("abc") == 0)  // age-parse-nonnumeric (required): ignored
        #expect(age("-7200") == 0)  // age-parse-negative
        #expect(age("7200.0") == 0)  // age-parse-float
        #expect(age("2147483647") == 2_147_483_647)  // age-parse-large-minus-one
        #expect(age("2147483649") == 2_147_483_648)  // age-parse-larger
        #expect(age("7200, 0") == 7200)  // age-parse-suffix
        #expect(age("0, 7200") == 0)  // age-parse-prefix
        #expect(age("7200", "0") == 7200)  // age-parse-suffix-twoline
        #expect(age("0", "7200") == 0)  // age-parse-prefix-twoline
        #expect(age("3600", "3600") == 3600)  // age-parse-dup-old
        #expect(age("7200;foo=bar") == 7200)  // age-parse-parameter ("check")
        #expect(age(String(repeating: "9", count: 10_000)) == 2_147_483_648)
    }

    @Test func currentAgeFollowsTheRFCFormula_rfc9111_4_2_3() {
        let headers = F.fields(("Date", F.httpDate(F.at(-10))), ("Age", "5"))
        // apparent_age = 10 (response at t0, Date at -10); corrected_age_value = 5 + 2 (delay);
        // corrected_initial_age = 10; plus 30 resident.
        #expect(
            Freshness.currentAge(headers: headers, requestTime: F.at(-2), responseTime: F.t0, now: F.at(30))
                == 40)
        // A large Age dominates: 100 + 2 + 30.
        let aged = F.fields(("Date", F.httpDate(F.at(-10))), ("Age", "100"))
        #expect(
            Freshness.currentAge(headers: aged, requestTime: F.at(-2), responseTime: F.t0, now: F.at(30))
                == 132)
    }

    @Test func aDateInTheFutureOrAClockGoingBackAddsNoAge() {
        let future = F.fields(("Date", F.httpDate(F.at(3600))))
        #expect(Freshness.currentAge(headers: future, requestTime: F.t0, responseTime: F.t0, now: F.t0) == 0)
        let none = HeaderFields()
        #expect(
            Freshness.currentAge(headers: none, requestTime: F.at(5), responseTime: F.t0, now: F.at(-100))
                == 0)
    }
}
