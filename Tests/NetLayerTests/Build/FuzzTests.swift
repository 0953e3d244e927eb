import Foundation
import NetLayer
import Testing

@testable import NetLayerTesting

extension WireTests {
    /// Seeded property-based fuzzing of request encoding (DESIGN §3–§8, §17) against the in-process
    /// server: random params, placements, path parts, headers, files and bodies, plus inputs DESIGN
    /// refuses. What the server parsed must equal what DESIGN says it should read; refused inputs
    /// must throw the right code and send nothing. A failure is shrunk and printed as Swift source.
    ///
    /// `NETLAYER_FUZZ_CASES` (default 300), `NETLAYER_FUZZ_SEED` (default: random, printed),
    /// `NETLAYER_FUZZ_ONLY` (one case index), `NETLAYER_FUZZ_CONCURRENCY` (default 12).
    @Suite("Fuzz: request encoding against DESIGN")
    struct FuzzTests {
        @Test func requestsMatchDesign() async throws {
            let environment = ProcessInfo.processInfo.environment
            let count = environment["NETLAYER_FUZZ_CASES"].flatMap { Int($0) } ?? 300
            let seed =
                environment["NETLAYER_FUZZ_SEED"].flatMap(Self.parseSeed) ?? UInt64.random(in: 0...UInt64.max)
            let only = environment["NETLAYER_FUZZ_ONLY"].flatMap { Int($0) }
            let concurrency = environment["NETLAYER_FUZZ_CONCURRENCY"].flatMap { Int($0) } ?? 12
            try #require(
                count >= 2, "NETLAYER_FUZZ_CASES must be at least 2 (both accepted and refused cases)")
            print(
                "[fuzz] seed \(seed), \(only.map { "case #\($0) only" } ?? "\(count) cases") (NETLAYER_FUZZ_SEED=\(seed))"
            )

            var configuration = FuzzRunConfiguration(seed: seed, count: count)
            configuration.only = only
            configuration.concurrency = max(1, concurrency)
            configuration.progress = { print("[fuzz] \($0)") }
            configuration.reproduce = { seed, count, index in
                "NETLAYER_FUZZ_SEED=\(seed) NETLAYER_FUZZ_CASES=\(count)"
                    + (index.map { " NETLAYER_FUZZ_ONLY=\($0)" } ?? "")
                    + " swift test --filter Fuzz"
            }
            let generator = FuzzGenerator(profile: .inProcess, seed: seed)
            let harness = InProcessHarness()
            let report = try await FuzzRunner.run(harness, generator: generator, configuration: configuration)
            print("[fuzz] " + FuzzRunner.describe(report, configuration: configuration).prefix { $0 != "\n" })

            #expect(report.casesRun == (only == nil ? count : 1), "every case asked for ran")
            let strays = harness.strays.withLock { $0 }
            #expect(strays.isEmpty, "requests at a path of no case (seed \(seed)): \(strays.prefix(5))")
            if only == nil {
                #expect(report.accepted > 0, "some accepted inputs were generated")
                #expect(report.refused > 0, "some refused inputs were generated")
            }
            for (number, group) in report.failures.enumerated() {
                let single = FuzzReport(
                    profile: report.profile, seed: report.seed, casesRun: report.casesRun,
                    accepted: report.accepted, refused: report.refused, seconds: report.seconds,
                    failures: [group])
                Issue.record(
                    Comment(
                        rawValue: "fuzz failure \(number + 1) of \(report.failures.count)\n"
                            + FuzzRunner.describe(single, configuration: configuration)))
            }
        }

        /// Decimal or `0x` hexadecimal.
        static func parseSeed(_ text: String) -> UInt64? {
            text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        }
    }
}

/// The in-process test server as a fuzz target: a fresh server per session, so its request log
/// stays short, and an index of the log by case tag.
struct InProcessHarness: FuzzHarness {
    /// Requests whose path names no case (`/fuzz/<tag>/…` mangled), which no case can own.
    let strays = TestLocked<[String]>([])

    func makeSession() async throws -> InProcessSession {
        try InProcessSession(server: TestServer.start(), strays: strays)
    }
}

/// Unchecked Sendable: `index`, `cursor` and `seen` are guarded by `lock`.
final class InProcessSession: FuzzSession, @unchecked Sendable {
    let server: TestServer
    let api: TestAPI
    let strays: TestLocked<[String]>
    private let lock = FuzzLock()
    private var index: [String: [RecordedRequest]] = [:]
    private var cursor = 0
    /// Requests per tag when its check ran; a different count at the end arrived late.
    private var seen: [String: Int] = [:]

    init(server: TestServer, strays: TestLocked<[String]>) {
        self.server = server
        self.api = TestAPI(server: server)
        self.strays = strays
    }

    func check(_ fuzzCase: FuzzCase, tag: String) async -> [FuzzProblem] {
        let executor = FuzzCall.executor(fuzzCase, resource: api, pathPrefix: "", tag: tag)
        let outcome = await FuzzCall.send(executor)
        let recorded = requests(tag: tag)
        lock.withLock { seen[tag] = recorded.count }
        let received = recorded.map(Self.wire)
        return FuzzWireCheck.check(
            fuzzCase, outcome: outcome, received: received, path: FuzzCall.path(pathPrefix: "", tag: tag))
    }

    func finish(expectedRequests: [String: Int]) async -> [String: [FuzzProblem]] {
        try? await Task.sleep(for: .milliseconds(50))  // a request sent after its call ended arrives now
        let stray = requests(tag: "").map { "\($0.method) \($0.target)" }
        if !stray.isEmpty { strays.withLock { $0 += stray } }
        var late: [String: [FuzzProblem]] = [:]
        lock.withLock {
            for (tag, expected) in expectedRequests {
                let count = index[tag]?.count ?? 0
                guard count != expected, count != seen[tag] else { continue }
                late[tag] = [
                    FuzzProblem(
                        "request after the call ended",
                        "expected \(expected) request(s); \(seen[tag] ?? 0) had arrived when the call ended, "
                            + "\(count) by the end of the session"
                    )
                ]
            }
        }
        server.stop()
        return late
    }

    /// Requests recorded for `tag` (`/fuzz/<tag>/…`), indexing new log entries first.
    private func requests(tag: String) -> [RecordedRequest] {
        lock.withLock {
            let log = server.requests
            if cursor < log.count {
                for request in log[cursor...] {
                    index[Self.tag(of: request.path), default: []].append(request)
                }
                cursor = log.count
            }
            return index[tag] ?? []
        }
    }

    private static func tag(of path: String) -> String {
        let parts = path.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        return parts.count >= 3 && parts[1] == "fuzz" ? String(parts[2]) : ""
    }

    private static func wire(_ request: RecordedRequest) -> FuzzWireRequest {
        FuzzWireRequest(
            method: request.method, target: request.target,
            headers: request.headerFields.map { FuzzPair(name: $0.name, value: $0.value) },
            body: Array(request.body))
    }
}

/// The fuzzer's own parts on fixed inputs, so a bug in the fuzzer cannot pass a broken library.
@Suite("Fuzz: the fuzzer's own parts")
struct FuzzSelfTests {
    @Test func aSeedReproducesEveryCase() {
        let first = FuzzGenerator(profile: .inProcess, seed: 42)
        let second = FuzzGenerator(profile: .inProcess, seed: 42)
        for index in [0, 1, 2, 17, 999, 123_456] {
            #expect(first.makeCase(index).swiftSource == second.makeCase(index).swiftSource)
        }
        #expect(
            first.makeCase(5).swiftSource
                != FuzzGenerator(profile: .inProcess, seed: 43).makeCase(5).swiftSource)
        #expect(FuzzRefusal.all(in: first.makeCase(0)).isEmpty)
        #expect(!FuzzRefusal.all(in: first.makeCase(1)).isEmpty)
    }

    @Test func expectedPairsFollowDesignSection6() throws {
        let params = [
            FuzzEntry(key: "b", value: .array([.null, .array([.int(1)]), .dictionary([]), .string("s")])),
            FuzzEntry(
                key: "a",
                value: .dictionary([
                    FuzzEntry(key: "z", value: .bool(true)), FuzzEntry(key: "é", value: .double(0.5)),
                ])),
            FuzzEntry(key: "e", value: .array([])),
            FuzzEntry(key: "n", value: .null),
        ]
        let pairs = FuzzExpectation.pairs(params).map { "\($0.name)=\($0.value)" }
        #expect(pairs == ["a[z]=true", "a[é]=0.5", "b[0][]=1", "b[]=s"])
        let json = FuzzExpectation.json(.dictionary(params))
        #expect(
            json.same(as: try FuzzJSON.parse(Data(#"{"a":{"é":0.5,"z":true},"b":[[1],{},"s"],"e":[]}"#.utf8)))
        )
    }

    @Test func multipartNamesFollowDesignSection8() {
        #expect(FuzzExpectation.multipartName("a\"b\r\nc\\d%22") == "a%22b%0D%0Ac\\d%22")
        #expect(FuzzWerkzeug.multipartName(fromDesignView: "a%22b\\") == "a\"b\\")
        let body = Array(
            "--B\r\nContent-Disposition: form-data; name=\"a\\\\b%22\"\r\n\r\nv\r\n--B--\r\n".utf8)
        let parts = try? FuzzMultipartParser.parse(body, boundary: "B").get()
        #expect(parts?.count == 1)
        #expect(parts?.first?.parameter("name") == ["a\\b%22"])
        #expect(parts?.first?.body == Array("v".utf8))
        #expect(
            (try? FuzzMultipartParser.parse(
                Array("--B\r\nContent-Disposition: form-data; name=\"a\\\"\r\n\r\nv\r\n--B--\r\n".utf8),
                boundary: "B"
            ).get()) == nil)
    }

    @Test func formParserAndEncodingCheck() {
        let pairs = try? FuzzFormParser.parse(Array("a=x%20y&b%5B%5D=%C3%A9&&c".utf8)).get()
        #expect(pairs?.map { "\($0.name)=\($0.value)" } == ["a=x y", "b[]=é", "c="])
        #expect(FuzzFormParser.designViolation(Array("a=x%20y&b%5B%5D=1".utf8)) == nil)
        #expect(FuzzFormParser.designViolation(Array("a=x y".utf8)) != nil)
        #expect(FuzzFormParser.designViolation(Array("a[]=1".utf8)) != nil)
        #expect(FuzzFormParser.designViolation(Array("a=%41".utf8)) != nil)
        #expect(FuzzFormParser.designViolation(Array("a=1&&b=2".utf8)) != nil)
        #expect(FuzzWireCheck.segmentViolation(Array("a:b@c!$&'()*+,;=%2F".utf8)[...]) == nil)
        #expect(FuzzWireCheck.segmentViolation(Array("a/b".utf8)[...]) != nil)
        #expect(FuzzWireCheck.segmentViolation(Array("a%40b".utf8)[...]) != nil)
    }

    @Test func reportsShowInvisibleCharacters() {
        #expect(
            "a\u{85}b\u{2028}\u{200B}\u{A0} \r\u{1}\"".fuzzLiteral
                == #""a\u{85}b\u{2028}\u{200B}\u{A0} \r\u{01}\"""#)
        #expect("é中😀".fuzzLiteral == "\"é中😀\"")
    }

    @Test func werkzeugURLViewMatchesHttpbin() {
        // As httpbin 0.10.4 / werkzeug 3.1.9 echo these decoded paths in `url`.
        #expect(FuzzWerkzeug.urlPath("/a/%41 b?#/é") == "/a/A%20b%3F%23/é")
        #expect(FuzzWerkzeug.urlPath("/%25%zz%C3") == "/%25%zz%C3")
        #expect(FuzzWerkzeug.headerText("Ã©") == "é")
    }

    @Test func shrinkingFindsTheSmallCause() async {
        var fuzzCase = FuzzCase(method: "PUT")
        fuzzCase.headers = [FuzzHeader(level: .call, name: "X-Fuzz-a", value: "  v ")]
        fuzzCase.params = [
            FuzzEntry(
                key: "keep",
                value: .array([.int(3), .dictionary([FuzzEntry(key: "deep", value: .string("xxéyy"))])])),
            FuzzEntry(key: "other", value: .string("plain")),
        ]
        fuzzCase.pathValue = .string("long value")
        let check = { (candidate: FuzzCase) async -> [FuzzProblem] in
            candidate.params.contains { "\($0.value.swiftSource)".contains("é") }
                ? [FuzzProblem("é", "")] : []
        }
        let (shrunk, _, _) = await FuzzShrinker(profile: .inProcess).shrink(
            fuzzCase, kind: "é", problems: [FuzzProblem("é", "")], check: check)
        #expect(shrunk.params.count == 1)
        #expect(shrunk.params.first?.key == "")
        #expect(shrunk.params.first.map { $0.value.swiftSource } == "\"é\"")
        #expect(shrunk.headers.isEmpty)
        #expect(shrunk.pathValue.text == "x")
    }
}
