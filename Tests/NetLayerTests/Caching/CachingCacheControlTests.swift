import Foundation
import Testing

@testable import NetLayer

/// `Cache-Control` parsing (RFC 9111 §5.2, RFC 9110 §5.6.1 lists, §1.2.2 delta-seconds).
@Suite("Caching: Cache-Control parsing")
struct CachingCacheControlTests {
    private func control(_ values: String...) -> CacheControl { CacheControl(values: values) }

    @Test func directiveNamesAreCaseInsensitiveAndArgumentsOptional_rfc9111_5_2() {
        let parsed = control("No-Store, MAX-AGE=60, private")
        #expect(parsed.directives.map(\.name) == ["no-store", "max-age", "private"])
        #expect(parsed.directives.map(\.argument) == [nil, "60", nil])
        #expect(parsed.contains("no-store"))
        #expect(parsed.deltaSeconds("max-age") == .seconds(60))
        #expect(parsed.deltaSeconds("s-maxage") == nil)
    }

    @Test func aListSpansRepeatedFieldLinesAndSkipsEmptyMembers_rfc9110_5_6_1() {
        let parsed = control(" , max-age=5,,", "no-cache ,\tpublic", "")
        #expect(parsed.directives.map(\.name) == ["max-age", "no-cache", "public"])
        #expect(!parsed.isTruncated)
    }

    @Test func aCommaInsideAQuotedArgumentDoesNotSplit() {
        // cache-tests freshness-max-age-ignore-quoted and -rev (required).
        let before = control(#"extension="max-age=3600", max-age=1"#)
        #expect(before.directives.map(\.name) == ["extension", "max-age"])
        #expect(before.directives.first?.argument == "max-age=3600")
        #expect(before.deltaSeconds("max-age") == .seconds(1))
        #expect(control(#"max-age=1, extension="max-age=3600""#).deltaSeconds("max-age") == .seconds(1))
    }

    @Test func quotedArgumentsAreUnquotedAndAccepted_rfc9111_5_2() {
        // §5.2: a recipient ought to accept both forms (cache-tests freshness-max-age-quoted, "check").
        let parsed = control(#"max-age="3600", no-cache="Set-Cookie, X-A\"b""#)
        #expect(parsed.deltaSeconds("max-age") == .seconds(3600))
        #expect(parsed.directives.last?.argument == #"Set-Cookie, X-A"b"#)
        #expect(parsed.directives.last?.isQuoted == true)
    }

    @Test func deltaSecondsAcceptsDigitsOnly_rfc9111_1_2_2() {
        #expect(DeltaSeconds(parsing: "003600") == .seconds(3600))  // freshness-max-age-leading-zero
        #expect(DeltaSeconds(parsing: "0") == .seconds(0))
        for bad in ["", "-1", "3600.0", "3600.5", "a3600", "3600a", "'3600'", " 1", "+1", "١٢"] {
            #expect(DeltaSeconds(parsing: bad) == .invalid, "\(bad)")
        }
        // freshness-max-age-single-quoted (required): `'` is a token character, so the argument
        // parses as the token `'3600'`, which is no number.
        #expect(control("max-age='3600'").deltaSeconds("max-age") == .invalid)
    }

    @Test(.tags(.hardening)) func hugeDeltaSecondsAreCappedAt2Pow31_rfc9111_1_2_2() {
        #expect(DeltaSeconds(parsing: "2147483647") == .seconds(2_147_483_647))
        #expect(DeltaSeconds(parsing: "2147483648") == .seconds(2_147_483_648))
        #expect(DeltaSeconds(parsing: "2147483649") == .seconds(2_147_483_648))
        #expect(DeltaSeconds(parsing: String(repeating: "9", count: 5000)) == .seconds(2_147_483_648))
    }

    @Test func whitespaceAroundEqualsMakesTheDirectiveMalformed() {
        // cache-tests freshness-max-age-space-before-equals / -after-equals ("check"): not a max-age.
        for value in ["max-age =3600", "max-age= 3600"] {
            let parsed = control(value)
            #expect(parsed.directives.first?.isMalformed == true, "\(value)")
            #expect(parsed.deltaSeconds("max-age") == .invalid, "\(value)")
        }
    }

    @Test func conflictingDuplicatesAreInvalidAndRepeatsOfOneValueAreThatValue_rfc9111_4_2_1() {
        // cache-tests freshness-max-age-two-* ("check"): §4.2.1 lets a cache consider it stale.
        #expect(control("max-age=1800, max-age=1").deltaSeconds("max-age") == .invalid)
        #expect(control("max-age=1", "max-age=1800").deltaSeconds("max-age") == .invalid)
        #expect(control("max-age=60", "max-age=60").deltaSeconds("max-age") == .seconds(60))
        #expect(control("max-age=60, max-age").deltaSeconds("max-age") == .invalid)
    }

    @Test func noCacheAndPrivateListFieldNames_rfc9111_5_2_2_4() {
        #expect(control("no-cache").fieldNames("no-cache") == .all)
        #expect(
            control(#"no-cache="Set-Cookie, X-Token""#).fieldNames("no-cache")
                == .listed(["set-cookie", "x-token"]))
        #expect(control(#"private="A", private="B""#).fieldNames("private") == .listed(["a", "b"]))
        // The unqualified form wins; a malformed list means the whole response.
        #expect(control(#"no-cache="A", no-cache"#).fieldNames("no-cache") == .all)
        #expect(control(#"no-cache="a b""#).fieldNames("no-cache") == .all)
        #expect(control("public").fieldNames("no-cache") == nil)
    }

    @Test func anElementThatIsNotATokenNamesNoDirective() {
        let parsed = control(#"=5, "no-store", ño-store, max-age=5"#)
        #expect(parsed.directives.map(\.name) == ["max-age"])
        #expect(!parsed.contains("no-store"))
    }

    @Test(.tags(.hardening)) func tenThousandDirectivesAreReadUpToTheBound() {
        let value = Array(repeating: "no-transform", count: 10_000).joined(separator: ", ") + ", no-store"
        let parsed = control(value)
        #expect(parsed.directives.count == CacheControl.maximumDirectives)
        #expect(parsed.isTruncated)
        #expect(ResponseCacheDirectives(parsed).isTruncated)
        #expect(RequestCacheDirectives(parsed).isTruncated)
    }

    @Test(.tags(.hardening)) func hostileArgumentsAreMalformedNotCrashes() {
        let long = String(repeating: "a", count: CacheControl.maximumArgumentLength + 1)
        #expect(control("x=" + long).directives.first?.isMalformed == true)
        #expect(control(#"x=""# + long + #"""#).directives.first?.isMalformed == true)
        #expect(control(#"no-cache="unterminated, max-age=5"#).directives.first?.isMalformed == true)
        #expect(control("max-age=\u{00E9}\u{1F600}").deltaSeconds("max-age") == .invalid)
        #expect(control("max-age=\"\\").deltaSeconds("max-age") == .invalid)
    }

    @Test func responseDirectivesAsAPrivateCacheReadsThem_rfc9111_5_2_2() {
        let directives = ResponseCacheDirectives(
            CachingFixture.fields(
                ("Cache-Control", "max-age=10, s-maxage=99, must-revalidate, proxy-revalidate"),
                ("cache-control", "stale-while-revalidate=30, stale-if-error=60, immutable, must-understand"))
        )
        #expect(directives.maxAge == .seconds(10))
        #expect(directives.hasSharedMaxAge)
        #expect(directives.mustRevalidate)
        #expect(directives.staleWhileRevalidate == 30)
        #expect(directives.staleIfError == 60)
        #expect(directives.immutable)
        #expect(directives.mustUnderstand)
        #expect(
            !directives.noStore && !directives.isPublic && !directives.isPrivate && directives.noCache == nil)
        #expect(
            ResponseCacheDirectives(CachingFixture.fields(("Cache-Control", "stale-if-error=x"))).staleIfError
                == nil)
    }

    @Test func requestDirectives_rfc9111_5_2_1() {
        let request = RequestCacheDirectives(
            CachingFixture.fields(
                ("Cache-Control", "max-age=5, min-fresh=7, no-cache, no-store, only-if-cached")))
        #expect(request.maxAge == .seconds(5))
        #expect(request.minFresh == .seconds(7))
        #expect(request.noCache && request.noStore && request.onlyIfCached)
        #expect(request.maxStale == nil)
        #expect(RequestCacheDirectives(CacheControl(values: ["max-stale"])).maxStale == .unlimited)
        #expect(RequestCacheDirectives(CacheControl(values: ["max-stale=30"])).maxStale == .seconds(30))
        // An invalid max-stale could only loosen: ignored.
        #expect(RequestCacheDirectives(CacheControl(values: ["max-stale=-1"])).maxStale == nil)
    }
}
