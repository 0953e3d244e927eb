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
    /// 207 cases, in the suite's order (split over three files to keep each one short).
    static let cases: [SuiteCase] = casesA + casesB + casesC
}
