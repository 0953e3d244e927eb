import Foundation
import NetLayer
import Testing

extension WireTests {
    /// DESIGN §17 for observers, as a property: a secret sent under a redacted name never appears in
    /// any field of any event an observer receives (dumped whole, every nested value included) —
    /// whatever its placement (credentials from an authenticator, bearer or Basic, included),
    /// whether the server echoes it back (in a header value, upper-cased, as a header's name, in a
    /// redirect's `Location`), and across redirect hops and replays. Seeded:
    /// `NETLAYER_OBSERVATION_CASES` (default 80), `NETLAYER_OBSERVATION_SEED` (default random,
    /// printed).
    @Suite("Observation: no secret in any event", .tags(.hardening))
    struct ObservationRedactionPropertyTests {
        static let server = TestServerPool.make()

        typealias Placement = RedactionPropertyTests.Placement
        typealias Echo = RedactionPropertyTests.Echo

        @Test func secretsNeverAppearInAnyEvent() async throws {
            let server = try Self.server.get()
            let environment = ProcessInfo.processInfo.environment
            let count = environment["NETLAYER_OBSERVATION_CASES"].flatMap { Int($0) } ?? 80
            let seed =
                environment["NETLAYER_OBSERVATION_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 0...UInt64.max)
            print("[observation redaction] seed \(seed), \(count) cases (NETLAYER_OBSERVATION_SEED=\(seed))")
            var random = FuzzRandom(seed: seed)
            for index in 0..<count {
                let placement = random.pick(Placement.allCases)
                let echo = random.pick(Echo.allCases)
                let alphabet =
                    echo == .headerName
                    ? RedactionPropertyTests.tokenAlphabet : RedactionPropertyTests.alphabet
                var secret = ""
                while secret.count < RedactionPropertyTests.minimumMaskedLength || secret.first == " "
                    || secret.last == " "
                {
                    secret = String((0..<random.int(4...24)).map { _ in random.pick(alphabet) })
                }
                let user = "u\(random.int(0...999))"
                var echoed: [(String, String)] = []
                var forbidden = [secret]
                if placement == .authenticatorBasic {
                    forbidden.append(Data("\(user):\(secret)".utf8).base64EncodedString())
                }
                switch echo {
                case .asSent: echoed.append(("X-Echo", "echo \(secret)"))
                case .upperCased:
                    echoed.append(("X-Echo", "echo \(RedactionPropertyTests.asciiUpperCased(secret))"))
                    forbidden.append(RedactionPropertyTests.asciiUpperCased(secret))
                case .headerName: echoed.append((secret, "1"))
                }
                let status = random.pick([200, 302, 401, 500])
                let path = uniquePath() + "-\(index)"
                let encoded =
                    secret.addingPercentEncoding(
                        withAllowedCharacters: CharacterSet(
                            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
                        ))
                    ?? ""
                // A redirect's Location carries the secret under a secret name (`token`) and under
                // another (`echo`): the name hides the first, the value the second.
                server.route(path) { [echoed] request in
                    var response = TestRoutes.echo(request)
                    response.status = status
                    var fields = response.headerFields.map { (name: $0.name, value: $0.value) }
                    fields += echoed.map { (name: $0.0, value: $0.1) }
                    if status == 302 {
                        fields.append(("Location", "\(path)/next?token=\(encoded)&echo=\(encoded)"))
                    }
                    response.headerFields = HeaderFields(received: fields)
                    return response
                }
                server.route(path + "/next") { request in TestRoutes.echo(request) }
                let authentication: Authentication? =
                    switch placement {
                    case .authenticatorBearer: .bearer(token: secret) { rejected in rejected }
                    case .authenticatorBasic: .basic(username: user, password: secret)
                    default: nil
                    }
                let recorder = EventRecorder(server: server, inject: "traceparent")
                let api = TestAPI(
                    server: server,
                    options: ResourceOptions(authentication: authentication, observer: recorder))
                let executor: Executor
                switch placement {
                case .authenticatorBearer, .authenticatorBasic: executor = api.target(path).makeExecutor()
                case .bearerHeader:
                    executor = api.target(path).makeExecutor(headers: ["Authorization": "Bearer \(secret)"])
                case .apiKeyHeader:
                    executor = api.target(path).makeExecutor(method: .post, headers: ["X-Api-Key": secret])
                case .queryParam: executor = api.target(path).makeExecutor(params: ["api_key": secret])
                case .formParam:
                    executor = api.target(path).makeExecutor(method: .post, params: ["password": secret])
                case .nestedJSONParam:
                    executor = api.target(path).makeExecutor(
                        method: .patch, params: ["user": ["password": secret, "name": "n"] as ParamValue],
                        placement: .json)
                case .multipartField:
                    executor = api.target(path).makeExecutor(
                        method: .post, params: ["token": secret],
                        files: ["f": .data(Data("f".utf8), filename: "f.txt")])
                case .pathPart:
                    executor = api.target(path + "/:token").makeExecutor(pathParts: ["token": secret])
                case .jsonBody:
                    executor = api.target(path).makeExecutor(
                        method: .put, body: .json(RedactionPropertyTests.Secret(secret: secret, note: "n")))
                }
                do { _ = try await executor.response() } catch {}
                #expect(recorder.finished.count == 1, "case \(index): \(recorder.lines)")
                var dumped = ""
                for event in recorder.all { dump(event, to: &dumped) }
                let forms = forbidden.flatMap { RedactionPropertyTests.spellings(of: $0) }
                if let leaked = forms.first(where: { dumped.range(of: $0, options: .caseInsensitive) != nil })
                {
                    Issue.record(
                        "case \(index) (seed \(seed)): \(placement), echo \(echo), status \(status): secret \(secret.debugDescription) shown as \(leaked.debugDescription)\n\(dumped)"
                    )
                }
                // Not vacuous: the secret reached the server, and the events carry URLs and headers.
                #expect(server.requests.contains { $0.path.hasPrefix(path) }, "case \(index)")
                #expect(!recorder.started.isEmpty && !recorder.heads.isEmpty, "case \(index)")
            }
        }
    }
}
