// Fixture data ported from http-tests/cache-tests (see CacheTestsFixture.swift): cases
// freshness-none … freshness-expires-invalid-date-dashes.

extension CacheTestsFixture {
    static let casesA: [SuiteCase] = [
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
    ]
}
