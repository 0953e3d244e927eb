import Foundation

@testable import NetLayer

// Fixture data ported from http-tests/cache-tests (a copy in ../shared/cache-tests), tests/*.mjs:
// every test of the suites below that is one stored response then one request answered "cached"
// or "not_cached", run by a browser (no `browser_skip`, no `shared_only`), with GET. Data only;
// generated from the suite's own test list (id, kind, status, headers, pause, expectation). A
// number is an offset in seconds from the first response's time, sent as an HTTP-date, as the
// suite does. Suites: cc-freshness, expires, expires-parse, cc-parse, age-parse, cc-response,
// cc-request, heuristic, status, vary, vary-parse, pragma, headers.

/// One cache-tests case.
struct SuiteCase: Sendable {
    enum Kind: String, Sendable { case required, optimal, check }
    enum Value: Sendable {
        case text(String)
        case offset(Int)
    }

    let id: String
    let kind: Kind
    let status: Int
    let request: [(String, Value)]
    let response: [(String, Value)]
    let next: [(String, Value)]
    let pause: Bool
    let cached: Bool
}

enum CacheTestsFixture {
    /// 207 cases.
    static let cases: [SuiteCase] = [
        SuiteCase(
            id: "freshness-none", kind: .check, status: 200,
            request: [],
            response: [],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-stale", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=2")), ("Date", .offset(0)), ("Template-A", .text("1")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-0", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=0"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-max-minus-1", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=2147483647"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-max", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=2147483648"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-max-plus-1", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=2147483649"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-max-plus", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=99999999999"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-age", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("7200")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-date", kind: .check, status: 200,
            request: [],
            response: [("Date", .offset(-7200)), ("Cache-Control", .text("max-age=3600"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-expires", kind: .optimal, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=3600")), ("Expires", .offset(-7200)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-expires-invalid", kind: .optimal, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=3600")), ("Expires", .text("0")), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-0-expires", kind: .required, status: 200,
            request: [],
            response: [
                ("Expires", .offset(3600)), ("Cache-Control", .text("max-age=0")), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-extension", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("foobar, max-age=3600"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-case-insenstive", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("MaX-aGe=3600"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-negative", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=-3600"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-s-maxage-private", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("s-maxage=3600, max-age=1"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-s-maxage-private-multiple", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("s-maxage=3600")), ("Cache-Control", .text("max-age=1"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-two-fresh-stale-sameline", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1800, max-age=1"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-two-fresh-stale-sepline", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1800")), ("Cache-Control", .text("max-age=1"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-two-stale-fresh-sameline", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1, max-age=1800"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-two-stale-fresh-sepline", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1")), ("Cache-Control", .text("max-age=1800"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-quoted", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=\"3600\""))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-ignore-quoted", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("extension=\"max-age=3600\", max-age=1"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-ignore-quoted-rev", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1, extension=\"max-age=3600\""))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-space-before-equals", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age =3600"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-space-after-equals", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age= 3600"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-leading-zero", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=003600"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-single-quoted", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age='3600'"))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-max-age-decimal-zero", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600.0"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-decimal-five", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600.5"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-a100", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=a3600"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-max-age-100a", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600a"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-nonnumeric", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("abc")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-negative", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("-7200")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-float", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("7200.0")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-large-minus-one", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("2147483647")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "age-parse-large", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("2147483648")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "age-parse-larger", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("2147483649")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "age-parse-suffix", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("7200, 0")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "age-parse-prefix", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("0, 7200")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-suffix-twoline", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("7200")),
                ("Age", .text("0")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "age-parse-prefix-twoline", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("0")),
                ("Age", .text("7200")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-dup-0", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("0, 0")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-dup-0-twoline", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")), ("Age", .text("0")),
                ("Age", .text("0")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-dup-old", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=10000")), ("Age", .text("3600")),
                ("Age", .text("3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "age-parse-parameter", kind: .check, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")),
                ("Age", .text("7200;foo=bar")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "age-parse-numeric-parameter", kind: .check, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Cache-Control", .text("max-age=3600")),
                ("Age", .text("7200;foo=111")),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-future", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .offset(2_592_000)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-past", kind: .required, status: 200,
            request: [],
            response: [("Expires", .offset(-2_592_000)), ("Date", .offset(0))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-present", kind: .required, status: 200,
            request: [],
            response: [("Expires", .offset(0)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "freshness-expires-old-date", kind: .required, status: 200,
            request: [],
            response: [("Expires", .offset(300)), ("Date", .offset(400))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("0")), ("Date", .offset(0))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-date", kind: .optimal, status: 200,
            request: [],
            response: [("Date", .text("foo")), ("Expires", .offset(10))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "freshness-expires-age-slow-date", kind: .required, status: 200,
            request: [],
            response: [("Date", .offset(-10)), ("Expires", .offset(10)), ("Age", .text("25"))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "freshness-expires-age-fast-date", kind: .required, status: 200,
            request: [],
            response: [("Date", .offset(10)), ("Expires", .offset(20)), ("Age", .text("15"))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "freshness-expires-32bit", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .text("Tue, 19 Jan 2038 14:14:08 GMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-far-future", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .text("Sun, 21 Nov 2286 04:46:39 GMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-rfc850", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .text("Thursday, 18-Aug-50 02:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-ansi-c", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .text("Thu Aug  8 02:01:18 2050")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-wrong-case-weekday", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .text("THU, 18 Aug 2050 02:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-wrong-case-month", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18 AUG 2050 02:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-wrong-case-tz", kind: .optimal, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18 Aug 2050 02:01:18 gMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "freshness-expires-invalid-utc", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18 Aug 2050 02:01:18 UTC")), ("Date", .offset(0))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-aest", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18 Aug 2050 02:01:18 AEST")), ("Date", .offset(0))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-2-digit-year", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18 Aug 50 02:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-no-comma", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu 18 Aug 2050 02:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-multiple-spaces", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18  Aug  2050 02:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-date-dashes", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18-Aug-2050 02:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-time-periods", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18 Aug 2050 02.01.18 GMT")), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-1-digit-hour", kind: .required, status: 200,
            request: [],
            response: [("Expires", .text("Thu, 18 Aug 2050 2:01:18 GMT")), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "freshness-expires-invalid-multiple-lines", kind: .required, status: 200,
            request: [],
            response: [
                ("Expires", .text("Thu, 18 Aug 2050 2:01:18 GMT")),
                ("Expires", .text("Thu, 18 Aug 2050 2:01:19 GMT")), ("Date", .offset(0)),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "cc-resp-private-private", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("private, max-age=3600"))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "cc-resp-no-store", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("no-store"))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "cc-resp-no-store-case-insensitive", kind: .required, status: 200,
            request: [],
            response: [("Cache-Control", .text("No-StOrE"))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "cc-resp-no-store-fresh", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=10000, no-store")), ("Expires", .offset(10000)),
                ("Date", .offset(0)),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "cc-resp-no-cache", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=10000, no-cache")), ("Expires", .offset(10000)),
                ("Date", .offset(0)),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "cc-resp-no-cache-case-insensitive", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=10000, No-CaChE")), ("Expires", .offset(10000)),
                ("Date", .offset(0)),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "headers-omit-headers-listed-in-Cache-Control-no-cache-single", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("no-cache=\"a\"")), ("a", .text("1")), ("b", .text("2")),
                ("Cache-Control", .text("max-age=3600")), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-omit-headers-listed-in-Cache-Control-no-cache", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("no-cache=\"a, b\"")), ("a", .text("1")), ("b", .text("2")),
                ("c", .text("3")), ("Cache-Control", .text("max-age=3600")), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "cc-resp-must-revalidate-fresh", kind: .optimal, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=10000, must-revalidate")), ("ETag", .text("\"abcd\"")),
            ],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "cc-resp-immutable-fresh", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=10000, immutable")), ("ETag", .text("\"abcd\""))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-200-cached", kind: .optimal, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-201-not_cached", kind: .required, status: 201,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "heuristic-202-not_cached", kind: .required, status: 202,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "heuristic-203-cached", kind: .optimal, status: 203,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-204-cached", kind: .optimal, status: 204,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-403-not_cached", kind: .required, status: 403,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "heuristic-404-cached", kind: .optimal, status: 404,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-405-cached", kind: .optimal, status: 405,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-410-cached", kind: .optimal, status: 410,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-414-cached", kind: .optimal, status: 414,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-501-cached", kind: .optimal, status: 501,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-502-not_cached", kind: .required, status: 502,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "heuristic-503-not_cached", kind: .required, status: 503,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "heuristic-504-not_cached", kind: .required, status: 504,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "heuristic-599-not_cached", kind: .required, status: 599,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "heuristic-599-cached", kind: .optimal, status: 599,
            request: [],
            response: [
                ("Last-Modified", .offset(-86400)), ("Date", .offset(0)), ("Cache-Control", .text("public")),
            ],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "heuristic-delta-5", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-5)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-10", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-10)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-30", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-30)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-60", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-60)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-300", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-300)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-600", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-600)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-1200", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-1200)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-1800", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-1800)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-3600", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-3600)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-43200", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-43200)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "heuristic-delta-86400", kind: .check, status: 200,
            request: [],
            response: [("Last-Modified", .offset(-86400)), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-200-fresh", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-200-stale", kind: .required, status: 200,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-203-fresh", kind: .optimal, status: 203,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-203-stale", kind: .required, status: 203,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-204-fresh", kind: .optimal, status: 204,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-204-stale", kind: .required, status: 204,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-299-fresh", kind: .optimal, status: 299,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-299-stale", kind: .required, status: 299,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-400-fresh", kind: .optimal, status: 400,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-400-stale", kind: .required, status: 400,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-404-fresh", kind: .optimal, status: 404,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-404-stale", kind: .required, status: 404,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-410-fresh", kind: .optimal, status: 410,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-410-stale", kind: .required, status: 410,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-499-fresh", kind: .optimal, status: 499,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-499-stale", kind: .required, status: 499,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-500-fresh", kind: .optimal, status: 500,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-500-stale", kind: .required, status: 500,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-502-fresh", kind: .optimal, status: 502,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-502-stale", kind: .required, status: 502,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-503-fresh", kind: .optimal, status: 503,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-503-stale", kind: .required, status: 503,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-504-fresh", kind: .optimal, status: 504,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-504-stale", kind: .required, status: 504,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-599-fresh", kind: .optimal, status: 599,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "status-599-stale", kind: .required, status: 599,
            request: [],
            response: [
                ("Expires", .offset(-5000)), ("Last-Modified", .offset(-100000)), ("Date", .offset(0)),
            ],
            next: [], pause: true, cached: false),
        SuiteCase(
            id: "status-599-must-understand", kind: .required, status: 599,
            request: [],
            response: [("Cache-Control", .text("max-age=3600, no-store, must-understand"))],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "status-200-must-understand", kind: .optimal, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600, no-store, must-understand"))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "ccreq-ma0", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Cache-Control", .text("max-age=0"))], pause: true, cached: false),
        SuiteCase(
            id: "ccreq-ma1", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Cache-Control", .text("max-age=1"))], pause: true, cached: false),
        SuiteCase(
            id: "ccreq-magreaterage", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=100000")), ("Date", .offset(0)), ("Age", .text("1800")),
            ],
            next: [("Cache-Control", .text("max-age=600"))], pause: true, cached: false),
        SuiteCase(
            id: "ccreq-max-stale", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=2")), ("Date", .offset(0)), ("Template-A", .text("1")),
            ],
            next: [("Cache-Control", .text("max-stale=1000"))], pause: true, cached: true),
        SuiteCase(
            id: "ccreq-max-stale-age", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1500")), ("Age", .text("2000"))],
            next: [("Cache-Control", .text("max-stale=1000"))], pause: false, cached: true),
        SuiteCase(
            id: "ccreq-min-fresh", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1500"))],
            next: [("Cache-Control", .text("min-fresh=2000"))], pause: false, cached: false),
        SuiteCase(
            id: "ccreq-min-fresh-age", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=1500")), ("Age", .text("1000"))],
            next: [("Cache-Control", .text("min-fresh=1000"))], pause: false, cached: false),
        SuiteCase(
            id: "ccreq-no-cache", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600"))],
            next: [("Cache-Control", .text("no-cache"))], pause: false, cached: false),
        SuiteCase(
            id: "ccreq-no-store", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Cache-Control", .text("no-store"))], pause: true, cached: false),
        SuiteCase(
            id: "pragma-request-no-cache", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Pragma", .text("no-cache"))], pause: true, cached: true),
        SuiteCase(
            id: "pragma-request-extension", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=100000")), ("Date", .offset(0))],
            next: [("Pragma", .text("unrecognised-extension"))], pause: true, cached: true),
        SuiteCase(
            id: "pragma-response-no-cache", kind: .check, status: 200,
            request: [],
            response: [("Cache-Control", .text("max-age=3600")), ("Pragma", .text("no-cache"))],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "pragma-response-no-cache-heuristic", kind: .check, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Last-Modified", .offset(-10000)), ("Pragma", .text("no-cache")),
            ],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "pragma-response-extension", kind: .check, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=3600")), ("Pragma", .text("unrecognised-extension")),
            ],
            next: [], pause: false, cached: true),
        SuiteCase(
            id: "vary-match", kind: .optimal, status: 200,
            request: [("Foo", .text("1"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-no-match", kind: .required, status: 200,
            request: [("Foo", .text("1"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("2"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-omit-stored", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-omit", kind: .required, status: 200,
            request: [("Foo", .text("1"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "vary-cache-key", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Other", .text("2"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1")), ("Other", .text("3"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-2-match", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar")),
            ],
            next: [("Foo", .text("1")), ("Bar", .text("abc"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-2-no-match", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar")),
            ],
            next: [("Foo", .text("2")), ("Bar", .text("abc"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-2-match-omit", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar")),
            ],
            next: [], pause: false, cached: false),
        SuiteCase(
            id: "vary-3-match", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))], pause: false,
            cached: true),
        SuiteCase(
            id: "vary-3-no-match", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("2")), ("Bar", .text("abc")), ("Baz", .text("789"))], pause: false,
            cached: false),
        SuiteCase(
            id: "vary-3-order", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Bar", .text("abc")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789")), ("Bar", .text("abcde"))], pause: false,
            cached: false),
        SuiteCase(
            id: "vary-3-omit", kind: .optimal, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Date", .offset(0)),
                ("Last-Modified", .offset(-3000)), ("Vary", .text("Foo, Bar, Baz")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-normalise-combine", kind: .optimal, status: 200,
            request: [("Foo", .text("1, 2"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text("1")), ("Foo", .text("2"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-order", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")),
            ],
            next: [("Accept-Language", .text("de, en"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-case", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")),
            ],
            next: [("Accept-Language", .text("eN, De"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-space", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")),
            ],
            next: [("Accept-Language", .text(" en ,   de"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-lang-select", kind: .optimal, status: 200,
            request: [("Accept-Language", .text("en, de"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Accept-Language")), ("Content-Language", .text("de")),
            ],
            next: [("Accept-Language", .text("fr;q=0.5, de;q=1.0"))], pause: false, cached: true),
        SuiteCase(
            id: "vary-normalise-space", kind: .optimal, status: 200,
            request: [("Foo", .text("1,2"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo")),
            ],
            next: [("Foo", .text(" 1, 2 "))], pause: false, cached: true),
        SuiteCase(
            id: "vary-syntax-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-star-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*, *")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-star-star-lines", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*")), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-empty-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text(", *")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-empty-star-lines", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("")), ("Vary", .text("*")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-star-foo", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("*, Foo")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "vary-syntax-foo-star", kind: .required, status: 200,
            request: [("Foo", .text("1")), ("Baz", .text("789"))],
            response: [
                ("Cache-Control", .text("max-age=5000")), ("Last-Modified", .offset(-3000)),
                ("Date", .offset(0)), ("Vary", .text("Foo, *")),
            ],
            next: [("Foo", .text("1")), ("Baz", .text("789"))], pause: false, cached: false),
        SuiteCase(
            id: "headers-omit-headers-listed-in-Connection", kind: .required, status: 200,
            request: [],
            response: [
                ("Cache-Control", .text("max-age=100000")), ("Date", .offset(0)),
                ("Connection", .text("a, b")), ("a", .text("1")), ("b", .text("2")), ("c", .text("3")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Test-Header", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Test-Header", .text("aywusqomkigecay")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-Test-Header", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-Test-Header", .text("abcdefghijklmno")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Foo", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Foo", .text("auoicwqkeysmgau")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-Content-Foo", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-Content-Foo", .text("axurolifczwtqnk")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Cache-Control", kind: .required, status: 200,
            request: [],
            response: [("Date", .offset(0)), ("Cache-Control", .text("max-age=3600"))],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Connection", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Connection", .text("askcumewogyqias")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Encoding", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Encoding", .text("apetixmbqfujync")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Length", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Length", .text("10")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Location", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Location", .text("/bar")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-MD5", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-MD5", .text("N7UdGUp1E+RbVvZSTy1R8g==")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Range", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Range", .text("ananananananana")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Security-Policy", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)),
                ("Content-Security-Policy", .text("default-src 'self' cdn.example.com")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Content-Type", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Content-Type", .text("text/plain;charset=utf-8")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Clear-Site-Data", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Clear-Site-Data", .text("cookies")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-ETag", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("ETag", .text("\"ghijkl\"")), ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Expires", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Expires", .text("Mon, 11 Jan 2038 11:11:11 GMT")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Keep-Alive", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Keep-Alive", .text("ananananananana")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Authenticate", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Authenticate", .text("akueoyiscmwgqak")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Authentication-Info", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Authentication-Info", .text("aaaaaaaaaaaaaaa")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Authorization", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Authorization", .text("aaaaaaaaaaaaaaa")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Proxy-Connection", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Proxy-Connection", .text("alwhsdozkvgrcny")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Public-Key-Pins", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Public-Key-Pins", .text("askcumewogyqias")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Set-Cookie", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Set-Cookie", .text("a=c")), ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Set-Cookie2", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Set-Cookie2", .text("a=c")), ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-TE", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("TE", .text("apetixmbqfujync")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Transfer-Encoding", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Transfer-Encoding", .text("arizqhypgxofwne")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-Upgrade", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("Upgrade", .text("acegikmoqsuwyac")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-Frame-Options", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-Frame-Options", .text("sameorigin")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
        SuiteCase(
            id: "headers-store-X-XSS-Protection", kind: .required, status: 200,
            request: [],
            response: [
                ("Date", .offset(0)), ("X-XSS-Protection", .text("1; mode=block")),
                ("Cache-Control", .text("max-age=3600")),
            ],
            next: [], pause: true, cached: true),
    ]
}
