import Foundation
import Testing

@testable import NetLayer

/// HTTP-date parsing (RFC 9110 §5.6.7) as `Expires`, `Date` and `Last-Modified` need it; the
/// strictness follows cache-tests expires-parse.mjs.
@Suite("Caching: HTTP-date")
struct CachingHTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    private let example = Date(timeIntervalSince1970: 784_111_777)

    @Test func theThreeFormsNameTheSameInstant_rfc9110_5_6_7() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == example)
        #expect(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t") == example)
    }

    @Test func farDatesAndTheEpochEdges() {
        // freshness-expires-32bit, -far-future ("optimal").
        #expect(HTTPDate.parse("Tue, 19 Jan 2038 14:14:08 GMT")?.timeIntervalSince1970 == 2_147_523_248)
        #expect(HTTPDate.parse("Sun, 21 Nov 2286 04:46:39 GMT")?.timeIntervalSince1970 == 10_000_039_599)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT")?.timeIntervalSince1970 == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") != nil)
        #expect(HTTPDate.parse("Wed, 29 Feb 2023 00:00:00 GMT") == nil)
    }

    @Test func rfc850TwoDigitYearsPivotAt70() {
        // freshness-expires-rfc850 ("optimal"): 50 is 2050.
        let date = HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT")
        #expect(date == HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT"))
        #expect(
            HTTPDate.parse("Friday, 18-Aug-72 02:01:18 GMT")
                == HTTPDate.parse("Fri, 18 Aug 1972 02:01:18 GMT"))
    }

    @Test func namesInAnyCaseAreAccepted() {
        // freshness-expires-wrong-case-weekday / -month / -tz ("optimal"), and ansi-c.
        let expected = HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT")
        #expect(expected != nil)
        for text in [
            "THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 gMT",
            "Thu Aug 18 02:01:18 2050",
        ] {
            #expect(HTTPDate.parse(text) == expected, "\(text)")
        }
    }

    @Test func malformedDatesAreInvalid() {
        // cache-tests freshness-expires-invalid-* (all required: such an Expires means stale).
        for text in [
            "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 AEST", "Thu, 18 Aug 50 02:01:18 GMT",
            "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT",
            "Thu, 18-Aug-2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "0", "", "-1",
            "Thu, 32 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 24:00:00 GMT", "Xyz, 18 Aug 2050 02:01:18 GMT",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test(.tags(.hardening)) func hostileTextIsRejectedCheaply() {
        #expect(HTTPDate.parse(String(repeating: "Sun, ", count: 100_000)) == nil)
        #expect(HTTPDate.parse("Sün, 06 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT\u{0}") == nil)
    }
}
