import Foundation
import NetLayer
import Testing

extension WireTests {
    /// DESIGN §17 as a property: a secret sent under a redacted name never appears in any text
    /// NetLayer prints about the call — debug lines, curl, error description, debugDescription,
    /// body previews of any length — whatever the placement (credentials from an authenticator,
    /// bearer or Basic, included), whether the server echoes it back (as sent, upper-cased, as a
    /// header's name; a Basic credential's blob, decoded `user:password` and password), and
    /// wherever a cut falls. Seeded: `NETLAYER_REDACTION_CASES` (default 150),
    /// `NETLAYER_REDACTION_SEED` (default random, printed).
    @Suite("Redaction as a property")
    struct RedactionPropertyTests {
        static let server = TestServerPool.make()

        /// Printable characters a secret is drawn from: letters, digits, punctuation, a space, and
        /// a few non-ASCII ones. No control characters: header values refuse them anyway.
        static let alphabet = Array(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?#[]%\"\\<>{}|^` éß日本🔑"
        )

        /// The characters of an HTTP token (RFC 9110 `tchar`): a secret a server echoes as a header
        /// name is drawn from these.
        static let tokenAlphabet = Array(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")

        /// The shortest secret masked wherever it appears (shorter ones are hidden by name only).
        static let minimumMaskedLength = 4

        enum Placement: CaseIterable {
            case bearerHeader, apiKeyHeader, queryParam, formParam, nestedJSONParam, multipartField, pathPart
            case jsonBody, authenticatorBearer, authenticatorBasic
        }

        /// How the server echoes the secret, besides echoing the whole request in its JSON body.
        enum Echo: CaseIterable {
            /// Only the JSON echo of the request.
            case asSent
            /// In a header value with its ASCII letters upper-cased (for Basic, the decoded
            /// `user:password` and the password as well).
            case upperCased
            /// As the name of a header (the secret is drawn from token characters).
            case headerName
        }

        struct Secret: Encodable, Sendable {
            var secret: String
            var note: String
        }

        @Test func secretsNeverAppearInPrintedText() async throws {
            let server = try Self.server.get()
            let environment = ProcessInfo.processInfo.environment
            let count = environment["NETLAYER_REDACTION_CASES"].flatMap { Int($0) } ?? 150
            let seed =
                environment["NETLAYER_REDACTION_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 0...UInt64.max)
            print("[redaction] seed \(seed), \(count) cases (NETLAYER_REDACTION_SEED=\(seed))")
            var random = FuzzRandom(seed: seed)  // the fuzzer's seeded generator
            var checked = 0
            for index in 0..<count {
                let placement = random.pick(Placement.allCases)
                let echo = random.pick(Echo.allCases)
                let alphabet = echo == .headerName ? Self.tokenAlphabet : Self.alphabet
                var secret = ""
                while secret.count < Self.minimumMaskedLength || secret.first == " " || secret.last == " " {
                    secret = String(
                        (0..<random.int(4...24)).map { _ in
                            random.pick(alphabet)
                        })
                }
                let user = "u\(random.int(0...999))"
                // The texts the server sends back besides its JSON echo, and the secret's forms that
                // must never be printed.
                var echoed: [(String, String)] = []
                var forbidden = [secret]
                if placement == .authenticatorBasic {
                    let blob = Data("\(user):\(secret)".utf8).base64EncodedString()
                    forbidden.append(blob)
                    if echo == .upperCased {
                        echoed += [
                            ("X-Blob", Self.asciiUpperCased(blob)), ("X-Pair", "\(user):\(secret)"),
                        ]
                    }
                }
                switch echo {
                case .asSent: break
                case .upperCased:
                    echoed.append(("X-Echo", "echo \(Self.asciiUpperCased(secret))"))
                    forbidden.append(Self.asciiUpperCased(secret))
                case .headerName:
                    echoed += [(secret, "1"), (Self.asciiUpperCased(secret), "2")]
                    forbidden.append(Self.asciiUpperCased(secret))
                }
                let status = random.pick([200, 401, 404, 500])
                let pad = String(repeating: "p", count: random.int(0...1500))
                let path = uniquePath() + "-\(index)"
                server.route(path) { [echoed] request in
                    var response = TestRoutes.echo(request)
                    response.status = status
                    response.headerFields = HeaderFields(
                        received: response.headerFields.map { (name: $0.name, value: $0.value) }
                            + echoed.map { (name: $0.0, value: $0.1) })
                    return response
                }
                let lines = LineCollector()
                let authentication: Authentication? =
                    switch placement {
                    case .authenticatorBearer: .bearer(token: secret) { rejected in rejected }
                    case .authenticatorBasic: .basic(username: user, password: secret)
                    default: nil
                    }
                let api = TestAPI(
                    server: server,
                    options: ResourceOptions(debug: true, log: lines.sink, authentication: authentication))
                let executor: Executor
                switch placement {
                case .authenticatorBearer, .authenticatorBasic:
                    executor = api.target(path).makeExecutor(params: ["pad": pad])
                case .bearerHeader:
                    executor = api.target(path).makeExecutor(
                        headers: ["Authorization": "Bearer \(secret)"], params: ["pad": pad])
                case .apiKeyHeader:
                    executor = api.target(path).makeExecutor(
                        method: .post, headers: ["X-Api-Key": secret], params: ["pad": pad])
                case .queryParam:
                    executor = api.target(path).makeExecutor(params: ["api_key": secret, "pad": pad])
                case .formParam:
                    executor = api.target(path).makeExecutor(
                        method: .post, params: ["password": secret, "pad": pad])
                case .nestedJSONParam:
                    executor = api.target(path).makeExecutor(
                        method: .patch,
                        params: ["user": ["password": secret, "name": "n"] as ParamValue, "pad": pad],
                        placement: .json)
                case .multipartField:
                    executor = api.target(path).makeExecutor(
                        method: .post, params: ["token": secret, "pad": pad],
                        files: ["f": .data(Data(pad.utf8), filename: "f.txt")])
                case .pathPart:
                    // Answered by the built-in echo (200), so the decoding error shows the echoed path.
                    executor = api.target(path + "/:token").makeExecutor(
                        pathParts: ["token": secret], params: ["pad": pad])
                case .jsonBody:
                    executor = api.target(path).makeExecutor(
                        method: .put, body: .json(Secret(secret: secret, note: pad)))
                }
                var texts: [String] = []
                texts.append(try executor.curlDescription)
                do {
                    _ = try await executor.execute(model: Book.self)
                    Issue.record("case \(index): expected a failure (status \(status) or decoding)")
                } catch let error as NetLayerError {
                    texts += [
                        error.description, error.debugDescription, error.message,
                        error.bodyPreview() ?? "", error.bodyPreview(limit: random.int(0...400)) ?? "",
                    ]
                }
                texts += lines.lines
                let all = texts.joined(separator: "\n")
                let forms = forbidden.flatMap { Self.spellings(of: $0) }
                // In any case: URLSession may change a header name's case, and masking ignores it.
                if let leaked = forms.first(where: { all.range(of: $0, options: .caseInsensitive) != nil }) {
                    Issue.record(
                        "case \(index) (seed \(seed)): \(placement), echo \(echo), status \(status), pad \(pad.count): secret \(secret.debugDescription) printed as \(leaked.debugDescription)\n\(all)"
                    )
                }
                // The secret did reach the server (the check is not vacuous).
                let received = server.requests.filter { $0.path.hasPrefix(path) }
                // A 401 to the bearer authenticator is refreshed (to the same token) and replayed once.
                let sent = placement == .authenticatorBearer && status == 401 ? 2 : 1
                #expect(received.count == sent, "case \(index): \(placement)")
                checked += 1
            }
            #expect(checked == count)
        }

        /// `text` with its ASCII letters upper-cased (a server upper-casing a token it echoes).
        static func asciiUpperCased(_ text: String) -> String {
            String(
                text.unicodeScalars.map { scalar in
                    ("a"..."z").contains(scalar)
                        ? Character(Unicode.Scalar(UInt8(scalar.value - 32))) : Character(scalar)
                })
        }

        /// The spellings a secret travels in: as is, percent-encoded, JSON-escaped.
        static func spellings(of secret: String) -> [String] {
            var forms = [secret]
            let unreserved = CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: unreserved) {
                forms.append(encoded)
            }
            let escaped = secret.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            forms.append(escaped)
            return forms
        }
    }
}
