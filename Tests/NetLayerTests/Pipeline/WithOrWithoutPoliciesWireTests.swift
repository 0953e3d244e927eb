import Foundation
import Testing

@testable import NetLayer

extension WireTests {
    /// A call with no policies (no retry policy, interceptors, authenticator, debug output, progress
    /// or limits) and the same call with a pass-through interceptor: everything a caller sees is the
    /// same — the requests on the wire, the response, the redirects, the errors.
    @Suite("A call with or without policies sends the same bytes and ends the same way", .tags(.hardening))
    struct WithOrWithoutPoliciesWireTests {
        static let server = TestServerPool.make()

        /// The same service twice: one whose calls go direct, one whose calls pass a pass-through
        /// interceptor (which puts them on the general path).
        private func resources(_ server: TestServer) -> (direct: TestAPI, chained: TestAPI) {
            let passThrough = ClosureInterceptor { request, _, next in try await next(request) }
            return (
                TestAPI(server: server),
                // The same transport path on both (no body limit): only the executor's paths differ.
                TestAPI(
                    server: server,
                    options: ResourceOptions(interceptors: [passThrough], maximumResponseSize: nil))
            )
        }

        /// The outcome of one call as a caller sees it, with the request the server got.
        private struct Outcome: Equatable {
            var status: Int?
            var attempts: Int
            var redirects: [Int]
            var errorCode: NetLayerError.Code?
            var errorMessage: String?
            var received: [String]
        }

        private func outcome(
            _ executor: Executor, server: TestServer, seen path: String
        ) async -> Outcome {
            let received = { () -> [String] in
                server.requests(path: path).map { request in
                    "\(request.method) \(request.header("Content-Type") ?? "-") \(request.bodyString)"
                }
            }
            do {
                let response = try await executor.response()
                return Outcome(
                    status: response.statusCode, attempts: response.attempts,
                    redirects: response.redirects.map(\.statusCode), received: received())
            } catch let error as NetLayerError {
                return Outcome(
                    attempts: error.attempts, redirects: error.redirects.map(\.statusCode),
                    errorCode: error.code,
                    errorMessage: error.message, received: received())
            } catch {
                return Outcome(attempts: -1, redirects: [], errorMessage: "\(error)", received: received())
            }
        }

        /// Runs the same call on both resources (each on a path of its own, compared without it) and
        /// returns the outcome both had.
        private func compare(
            _ make: (EchoTarget) -> Executor, path: (String) -> String, seen: (String) -> String
        ) async throws -> Outcome {
            let server = try Self.server.get()
            let (direct, chained) = resources(server)
            var outcomes: [Outcome] = []
            for resource in [direct, chained] {
                let unique = uniquePath()
                var result = await outcome(
                    make(EchoTarget(resource: resource, path: path(unique))), server: server,
                    seen: seen(unique))
                result.errorMessage = result.errorMessage?.replacingOccurrences(of: unique, with: "<path>")
                outcomes.append(result)
            }
            #expect(outcomes[0] == outcomes[1])
            return outcomes[0]
        }

        @Test func anAcceptedResponse() async throws {
            // A call that adds nothing (its request worked out with the target) and one with params.
            for params in [[:], ["q": "a b"]] as [Params] {
                let outcome = try await compare(
                    { $0.makeExecutor(params: params) }, path: { $0 }, seen: { $0 })
                #expect(outcome.status == 200)
                #expect(outcome.attempts == 1)
                #expect(outcome.received == ["GET - "])
            }
        }

        @Test(arguments: [301, 303, 307, 308])
        func aRedirectIsFollowedByTheGeneralLoop(_ status: Int) async throws {
            let outcome = try await compare(
                { $0.makeExecutor(method: .post, body: .json(["title": "Dune"])) },
                path: { "/redirect?to=\($0)&status=\(status)" }, seen: { $0 })
            #expect(outcome.status == 200)
            #expect(outcome.attempts == 1)
            #expect(outcome.redirects == [status])
            let kept = status == 307 || status == 308
            #expect(outcome.received == [kept ? #"POST application/json {"title":"Dune"}"# : "GET - "])
        }

        @Test func aRedirectNotFollowedIsJudgedByValidation() async throws {
            let outcome = try await compare(
                { $0.makeExecutor(redirects: RedirectPolicy(maximum: 0)) },
                path: { "/redirect?to=\($0)&status=307" }, seen: { $0 })
            #expect(outcome.errorCode == .unacceptableStatus)
            #expect(outcome.attempts == 1)
            #expect(outcome.received.isEmpty)
        }

        @Test func anUnacceptableStatus() async throws {
            let outcome = try await compare(
                { $0.makeExecutor(subpath: "418") }, path: { _ in "/status" }, seen: { _ in "/" })
            #expect(outcome.errorCode == .unacceptableStatus)
            #expect(outcome.attempts == 1)
            #expect(outcome.errorMessage?.contains("418") == true)
        }

        @Test func aDroppedConnection() async throws {
            let outcome = try await compare({ $0.makeExecutor() }, path: { _ in "/drop" }, seen: { _ in "/" })
            #expect(outcome.errorCode == .transport)
            #expect(outcome.attempts == 1)
            #expect(outcome.errorMessage?.contains("GET http://") == true)
        }

        /// What a custom transport may hand back: a body that streams, a body already read, a
        /// stream that fails half-way, each accepted or not. A direct call collects them as the
        /// general path does.
        @Test(arguments: ["streamed", "consumed", "failing"], [200, 500])
        func aCustomTransportsBodyIsCollectedAsTheGeneralPathCollectsIt(_ kind: String, _ status: Int)
            async throws
        {
            let transport = ClosureTransport { request in
                let body: ResponseBody
                switch kind {
                case "streamed": body = ResponseBody(chunks: [Data("ab".utf8), Data("cd".utf8)].async)
                case "consumed":
                    body = ResponseBody(Data("abcd".utf8))
                    _ = try await body.collect()
                default:
                    body = ResponseBody(
                        chunks: AsyncThrowingStream<Data, any Error> { continuation in
                            continuation.yield(Data("ab".utf8))
                            continuation.finish(throwing: URLError(.networkConnectionLost))
                        })
                }
                return TransportResponse(
                    head: ResponseHead(statusCode: status, url: request.url), body: body)
            }
            let passThrough = ClosureInterceptor { request, _, next in try await next(request) }
            var outcomes: [String] = []
            for resource in [
                OfflineAPI(transport: transport),
                OfflineAPI(transport: transport, options: ResourceOptions(interceptors: [passThrough])),
            ] {
                do {
                    let response = try await EchoTarget(resource: resource, path: "/x").makeExecutor()
                        .response()
                    outcomes.append(
                        "\(response.statusCode) \(response.attempts) \(String(decoding: response.data, as: UTF8.self))"
                    )
                } catch let error as NetLayerError {
                    let body = error.body.map { String(decoding: $0, as: UTF8.self) } ?? "-"
                    outcomes.append("\(error.code) \(error.attempts) \(body) \(error.message)")
                }
            }
            #expect(outcomes.count == 2)
            #expect(outcomes.first == outcomes.last)
            let expected =
                switch (kind, status) {
                case ("streamed", 200): "200 1 abcd"
                case ("streamed", _): "unacceptableStatus 1 abcd"
                case ("consumed", 200): "bodyConsumed 1 -"
                // A rejected status is the news: its error goes without the body that was read.
                case ("consumed", _): "unacceptableStatus 1  GET"
                case (_, 200): "transport 1 -"
                default: "unacceptableStatus 1 ab"
                }
            #expect(outcomes.first?.hasPrefix(expected) == true, "\(outcomes)")
        }
    }
}
