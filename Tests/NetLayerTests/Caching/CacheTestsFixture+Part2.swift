// Fixture data ported from http-tests/cache-tests (see CacheTestsFixture.swift): cases
// freshness-expires-invalid-time-periods … ccreq-ma0.

extension CacheTestsFixture {
    static let casesB: [SuiteCase] = [
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
    ]
}
