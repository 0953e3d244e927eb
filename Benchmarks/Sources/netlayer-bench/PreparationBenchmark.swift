import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Request preparation: the cost of turning a call description into a `URLRequest`, without sending.
///
/// The call: a resource with 3 default headers and 5 default params, a target at
/// `/users/:user/books/:book` with 2 headers and 5 params, and a call with 2 path parts, 2 headers
/// and 10 params: 20 params in all (String, Int, Bool, arrays), 7 headers, sent as a GET query.
///
/// Cases, interleaved within every round so machine noise hits them alike:
/// - `urlRequest`: `try executor.urlRequest` on an executor built once.
/// - `transportRequest`: `try executor.transportRequest`: the same request as NetLayer's own value,
///   without building a `URLRequest` (what a custom transport receives). Its URL text repeats every
///   call, so the resource's cache of parsed URLs answers it (as for a service's repeated calls).
/// - `makeExecutor+transportRequest, new URL`: the whole call site with `page` changed every call,
///   so every URL is parsed anew (the cost when the URL cache misses).
/// - `makeExecutor+urlRequest`: the whole call site, including the call's param literal.
/// - `by hand (URLComponents)`: the same request built by hand with `URLComponents.queryItems` and
///   `setValue`, the reference a URLSession caller would write.
/// - `Foundation floor`: `URL(string:)` of the final URL text + `URLRequest` + 7 `setValue`: what any
///   library that ends in a `URLRequest` built with `setValue` pays at least.
/// - `simple`: `urlRequest` of the throughput benchmark's call, `GET /books` with no params or
///   headers, for scale.
/// - `floor, allHTTPHeaderFields`: the same with the headers set in one assignment of
///   `allHTTPHeaderFields`, which on Linux skips `setValue`'s per-call capitalizing, validation and
///   dictionary copy (names are then sent as spelled).
///
/// `BENCH_PREP_CASES=netlayer,make,hand,transport,transport-miss,floor,floor-dict,simple` picks cases (for profiling
/// one alone).
enum PreparationBenchmark {
    final class PrepAPI: Resource, @unchecked Sendable {
        init() {
            super.init(
                protocol: .https, domain: "api.example.com", version: "v2",
                defaultHeaders: [
                    "Accept": "application/json", "User-Agent": "NetLayerBench/1.0", "X-Api-Key": "k-123456",
                ],
                defaultParams: [
                    "api_version": 2, "locale": "en_US", "format": "json", "include_meta": true,
                    "client": "bench",
                ]
            )
        }
    }

    final class UserBooksTarget: Target, @unchecked Sendable {}

    static let targetHeaders = ["X-Section": "user-books", "Accept-Language": "en"]
    static let targetParams: Params = [
        "fields": ["title", "author", "year"], "expand": "author", "limit": 25, "sort": "-year",
        "safe": false,
    ]

    static func makeTarget() -> UserBooksTarget {
        UserBooksTarget(
            resource: PrepAPI(), path: "/users/:user/books/:book", headers: targetHeaders,
            params: targetParams)
    }

    /// The call as a call site writes it; the param literal is built on every call, as in an app.
    @inline(never)
    static func makeExecutor(_ target: UserBooksTarget, user: Int, book: String, page: Int) -> Executor {
        target.makeExecutor(
            method: .get,
            pathParts: ["user": user, "book": book],
            headers: ["X-Request-Id": "req-42", "If-None-Match": "\"v1\""],
            params: [
                "page": page, "per_page": 50, "q": "tolkien hobbit", "genres": ["fantasy", "classic"],
                "min_year": 1900, "max_year": 2024, "in_stock": true, "ids": [1, 2, 3, 5, 8], "lang": "en",
                "signed": false,
            ]
        )
    }

    /// The same request by hand: URLComponents with 20 params' query items (arrays as `name[]`).
    @inline(never)
    static func byHand(user: Int, book: String, page: Int) -> URLRequest {
        var components = URLComponents()
        components.scheme = "https"
        components.host = "api.example.com"
        components.path = "/v2/users/\(user)/books/\(book)"
        var items: [URLQueryItem] = [
            URLQueryItem(name: "api_version", value: String(2)),
            URLQueryItem(name: "client", value: "bench"),
            URLQueryItem(name: "expand", value: "author"),
        ]
        for field in ["title", "author", "year"] {
            items.append(URLQueryItem(name: "fields[]", value: field))
        }
        items.append(URLQueryItem(name: "format", value: "json"))
        for genre in ["fantasy", "classic"] { items.append(URLQueryItem(name: "genres[]", value: genre)) }
        for id in [1, 2, 3, 5, 8] { items.append(URLQueryItem(name: "ids[]", value: String(id))) }
        items += [
            URLQueryItem(name: "in_stock", value: String(true)),
            URLQueryItem(name: "include_meta", value: String(true)),
            URLQueryItem(name: "lang", value: "en"),
            URLQueryItem(name: "limit", value: String(25)),
            URLQueryItem(name: "locale", value: "en_US"),
            URLQueryItem(name: "max_year", value: String(2024)),
            URLQueryItem(name: "min_year", value: String(1900)),
            URLQueryItem(name: "page", value: String(page)),
            URLQueryItem(name: "per_page", value: String(50)),
            URLQueryItem(name: "q", value: "tolkien hobbit"),
            URLQueryItem(name: "safe", value: String(false)),
            URLQueryItem(name: "signed", value: String(false)),
            URLQueryItem(name: "sort", value: "-year"),
        ]
        components.queryItems = items
        var request = URLRequest(url: components.url!)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("NetLayerBench/1.0", forHTTPHeaderField: "User-Agent")
        request.setValue("k-123456", forHTTPHeaderField: "X-Api-Key")
        request.setValue("user-books", forHTTPHeaderField: "X-Section")
        request.setValue("en", forHTTPHeaderField: "Accept-Language")
        request.setValue("req-42", forHTTPHeaderField: "X-Request-Id")
        request.setValue("\"v1\"", forHTTPHeaderField: "If-None-Match")
        return request
    }

    /// The floor with all headers assigned at once.
    @inline(never)
    static func foundationFloorDictionary(_ urlText: String, headers: [String: String]) -> URLRequest {
        var request = URLRequest(url: URL(string: urlText)!)
        request.httpMethod = "GET"
        request.allHTTPHeaderFields = headers
        return request
    }

    /// The least Foundation work for the result: parse the final URL text, make the request, set the
    /// headers.
    @inline(never)
    static func foundationFloor(_ urlText: String, headers: [(String, String)]) -> URLRequest {
        var request = URLRequest(url: URL(string: urlText)!)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    struct Result {
        let id: String
        let name: String
        /// Per-call times in µs, one per timed call.
        let calls: Summary
        /// Mean per-call time of each round in µs.
        let rounds: Summary
    }

    struct Output {
        let results: [Result]
        let netLayerURL: String
        let handURL: String
        let timerOverheadMicros: Double

        func result(_ id: String) -> Result? { results.first { $0.id == id } }
    }

    static func run(_ config: Config) throws -> Output {
        let target = makeTarget()
        let executor = makeExecutor(target, user: 42, book: "the-hobbit", page: 3)
        let prepared = try executor.urlRequest
        let netLayerURL = prepared.url?.absoluteString ?? "?"
        let headers = (prepared.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            ($0.key, $0.value)
        }
        let handURL = byHand(user: 42, book: "the-hobbit", page: 3).url?.absoluteString ?? "?"
        guard headers.count == 7 else { throw BenchError("expected 7 headers, NetLayer sent \(headers)") }

        let headerDictionary = Dictionary(uniqueKeysWithValues: headers)
        // The throughput benchmark's call: a resource without defaults, a target without params.
        let simple = UserBooksTarget(
            resource: Resource(protocol: .https, domain: "api.example.com"), path: "/books"
        )
        .makeExecutor()
        var missPage = 1_000
        let allCases: [(id: String, name: String, body: () throws -> Void)] = [
            ("netlayer", "NetLayer executor.urlRequest", { blackHole(try executor.urlRequest) }),
            (
                "make", "NetLayer makeExecutor + urlRequest",
                { blackHole(try makeExecutor(target, user: 42, book: "the-hobbit", page: 3).urlRequest) }
            ),
            (
                "hand", "by hand: URLComponents + setValue",
                { blackHole(byHand(user: 42, book: "the-hobbit", page: 3)) }
            ),
            (
                "transport", "NetLayer executor.transportRequest",
                { blackHole(try executor.transportRequest) }
            ),
            (
                "transport-miss", "makeExecutor + transportRequest, new URL",
                {
                    missPage += 1
                    blackHole(
                        try makeExecutor(target, user: 42, book: "the-hobbit", page: missPage)
                            .transportRequest)
                }
            ),
            (
                "floor", "Foundation floor: URL(string:) + setValue",
                { blackHole(foundationFloor(netLayerURL, headers: headers)) }
            ),
            (
                "floor-dict", "floor with allHTTPHeaderFields = [7]",
                { blackHole(foundationFloorDictionary(netLayerURL, headers: headerDictionary)) }
            ),
            ("simple", "NetLayer urlRequest, GET /books, no params", { blackHole(try simple.urlRequest) }),
        ]
        let cases = allCases.filter { config.prepCases?.contains($0.id) ?? true }
        if cases.isEmpty { fail("BENCH_PREP_CASES names no case of \(allCases.map(\.id))") }

        // Warm-up: caches, lazy statics, the allocator's free lists, the branch predictors.
        for prepCase in cases { for _ in 0..<max(200, config.prepIterations / 5) { try prepCase.body() } }

        var perCall = Array(repeating: [Double](), count: cases.count)
        var perRound = Array(repeating: [Double](), count: cases.count)
        for index in cases.indices {
            perCall[index].reserveCapacity(config.prepRounds * config.prepIterations)
        }
        for round in 0..<config.prepRounds {
            // Rotate the order each round so no case always runs right after another.
            for offset in cases.indices {
                let index = (offset + round) % cases.count
                let body = cases[index].body
                let roundStart = monotonicNanos()
                for _ in 0..<config.prepIterations {
                    let start = monotonicNanos()
                    try body()
                    perCall[index].append(Double(monotonicNanos() - start) / 1000)
                }
                perRound[index].append(
                    Double(monotonicNanos() - roundStart) / 1000 / Double(config.prepIterations))
            }
        }

        var overhead: [Double] = []
        for _ in 0..<10_000 {
            let start = monotonicNanos()
            overhead.append(Double(monotonicNanos() - start) / 1000)
        }

        return Output(
            results: cases.indices.map {
                Result(
                    id: cases[$0].id, name: cases[$0].name, calls: Summary(perCall[$0]),
                    rounds: Summary(perRound[$0]))
            },
            netLayerURL: netLayerURL, handURL: handURL, timerOverheadMicros: Summary(overhead).median)
    }
}
