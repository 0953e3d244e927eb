import Foundation
import Testing

@testable import NetLayer

/// Whether a stored response may be reused (RFC 9111 §4.2, §4.2.4, §5.2.1, RFC 5861).
@Suite("Caching: reuse decision")
struct CachingReuseTests {
    private func decide(request: String = "", response: String, lifetime: Double, age: Double) -> CacheReuse {
        CacheReuse.decide(
            request: RequestCacheDirectives(CacheControl(values: [request])),
            response: ResponseCacheDirectives(CacheControl(values: [response])), lifetime: lifetime, age: age)
    }

    @Test func aFreshResponseIsServedWithItsTimeToLive_rfc9111_4_2() {
        #expect(decide(response: "max-age=100", lifetime: 100, age: 30) == .fresh(timeToLive: 70))
        // freshness-max-age-0 (required): stale on arrival.
        #expect(decide(response: "max-age=0", lifetime: 0, age: 0) == .mustValidate(staleIfErrorWindow: nil))
        #expect(decide(response: "", lifetime: 100, age: 100) == .mustValidate(staleIfErrorWindow: nil))
    }

    /// RFC 8246 §2 (cache-tests `cc-resp-immutable-fresh`, optimal; `-stale`, required).
    @Test func aFreshImmutableResponseIgnoresAReloadsMaxAgeButNotNoCache_rfc8246() {
        #expect(
            decide(request: "max-age=0", response: "max-age=3600, immutable", lifetime: 3600, age: 10)
                == .fresh(timeToLive: 3590))
        #expect(
            decide(request: "max-age=0", response: "max-age=3600", lifetime: 3600, age: 10)
                == .mustValidate(staleIfErrorWindow: nil))
        #expect(
            decide(request: "no-cache", response: "max-age=3600, immutable", lifetime: 3600, age: 10)
                == .mustValidate(staleIfErrorWindow: nil))
        #expect(
            decide(request: "max-age=0", response: "max-age=10, immutable", lifetime: 10, age: 20)
                == .mustValidate(staleIfErrorWindow: nil))
    }

    @Test func noCacheAlwaysValidates_rfc9111_5_2_2_4_and_5_2_1_4() {
        // cc-resp-no-cache (required), ccreq-no-cache ("check").
        #expect(
            decide(response: "no-cache, max-age=3600", lifetime: 3600, age: 0)
                == .mustValidate(staleIfErrorWindow: nil))
        #expect(
            decide(request: "no-cache", response: "max-age=3600", lifetime: 3600, age: 0)
                == .mustValidate(staleIfErrorWindow: nil))
        // no-cache with field names still lets the rest be served (the store dropped those fields).
        #expect(decide(response: #"no-cache="Set-Cookie""#, lifetime: 60, age: 0) == .fresh(timeToLive: 60))
    }

    @Test func requestMaxAgeAndMinFreshTighten_rfc9111_5_2_1_1_and_5_2_1_3() {
        // ccreq-ma0, ccreq-ma1, ccreq-magreaterage, ccreq-min-fresh ("check").
        #expect(
            decide(request: "max-age=0", response: "max-age=3600", lifetime: 3600, age: 1)
                == .mustValidate(staleIfErrorWindow: nil))
        #expect(
            decide(request: "max-age=60", response: "max-age=3600", lifetime: 3600, age: 30)
                == .fresh(timeToLive: 3570))
        #expect(
            decide(request: "min-fresh=10", response: "", lifetime: 100, age: 95)
                == .mustValidate(staleIfErrorWindow: nil))
        #expect(decide(request: "min-fresh=5", response: "", lifetime: 100, age: 95) == .fresh(timeToLive: 5))
        // Invalid request values are read as "validate".
        #expect(
            decide(request: "max-age=x", response: "", lifetime: 100, age: 0)
                == .mustValidate(staleIfErrorWindow: nil))
        #expect(
            decide(request: "min-fresh=-1", response: "", lifetime: 100, age: 0)
                == .mustValidate(staleIfErrorWindow: nil))
    }

    @Test func maxStaleAcceptsAStaleResponse_rfc9111_5_2_1_2() {
        // ccreq-max-stale ("check").
        #expect(
            decide(request: "max-stale", response: "", lifetime: 10, age: 1000)
                == .staleAcceptedByRequest(staleness: 990))
        #expect(
            decide(request: "max-stale=100", response: "", lifetime: 10, age: 60)
                == .staleAcceptedByRequest(staleness: 50))
        #expect(
            decide(request: "max-stale=10", response: "", lifetime: 10, age: 60)
                == .mustValidate(staleIfErrorWindow: nil))
        // max-age still bounds the age.
        #expect(
            decide(request: "max-stale, max-age=30", response: "", lifetime: 10, age: 60)
                == .mustValidate(staleIfErrorWindow: nil))
    }

    @Test func mustRevalidateForbidsEveryStaleUse_rfc9111_4_2_4_and_5_2_2_2() {
        // cc-resp-must-revalidate-stale (required); cc-resp-must-revalidate-fresh ("optimal").
        #expect(
            decide(response: "must-revalidate, max-age=10", lifetime: 10, age: 5) == .fresh(timeToLive: 5))
        #expect(
            decide(
                request: "max-stale",
                response: "must-revalidate, stale-while-revalidate=60, stale-if-error=60", lifetime: 10,
                age: 20)
                == .mustValidate(staleIfErrorWindow: nil))
    }

    @Test func staleWhileRevalidateCoversItsWindowOnly_rfc5861_3() {
        // stale-while-revalidate ("optimal"), stale-while-revalidate-window (required).
        #expect(
            decide(response: "max-age=1, stale-while-revalidate=4", lifetime: 1, age: 3)
                == .staleWhileRevalidate(staleness: 2))
        #expect(
            decide(response: "max-age=1, stale-while-revalidate=4", lifetime: 1, age: 6)
                == .mustValidate(staleIfErrorWindow: nil))
    }

    @Test func staleIfErrorGivesAWindowAfterAFailedValidation_rfc5861_4() {
        #expect(
            decide(response: "max-age=10, stale-if-error=60", lifetime: 10, age: 30)
                == .mustValidate(staleIfErrorWindow: 40))
        #expect(
            decide(response: "max-age=10, stale-if-error=60", lifetime: 10, age: 80)
                == .mustValidate(staleIfErrorWindow: nil))
        // The request may ask for a longer one.
        #expect(
            decide(request: "stale-if-error=300", response: "max-age=10", lifetime: 10, age: 30)
                == .mustValidate(staleIfErrorWindow: 280))
        // no-cache forbids stale use, so no window either.
        #expect(
            decide(response: "no-cache, stale-if-error=60", lifetime: 10, age: 30)
                == .mustValidate(staleIfErrorWindow: nil))
    }

    @Test func onlyIfCachedNeverValidates_rfc9111_5_2_1_7() {
        // ccreq-oic ("check").
        #expect(decide(request: "only-if-cached", response: "", lifetime: 10, age: 30) == .gatewayTimeout)
        #expect(
            decide(request: "only-if-cached", response: "", lifetime: 100, age: 30) == .fresh(timeToLive: 70))
        #expect(
            decide(request: "only-if-cached, max-stale", response: "", lifetime: 10, age: 30)
                == .staleAcceptedByRequest(staleness: 20))
    }

    @Test func endToEndWithParsedFieldsAndTimes() {
        // freshness-max-age-age (required): max-age=3600 with Age: 12000 is stale on arrival.
        let headers = CachingFixture.fields(("Cache-Control", "max-age=3600"), ("Age", "12000"))
        let t0 = CachingFixture.t0
        let freshness = Freshness(status: 200, headers: headers, responseTime: t0)
        let age = Freshness.currentAge(headers: headers, requestTime: t0, responseTime: t0, now: t0)
        let decision = CacheReuse.decide(
            request: RequestCacheDirectives(HeaderFields()), response: ResponseCacheDirectives(headers),
            lifetime: freshness.lifetime, age: age)
        #expect(decision == .mustValidate(staleIfErrorWindow: nil))
    }
}
