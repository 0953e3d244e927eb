import Foundation
import NetLayer
import Testing

extension WireTests {
    /// Sending, validating and decoding against the test server.
    @Suite("Execution: validation, decoding, transport")
    struct ExecutionWireTests {
        static let server = TestServerPool.make()

        @Test func executeWithoutTypeAnnotationReturnsData() async throws {
            let api = TestAPI(server: try Self.server.get())
            let data = try await api.target(uniquePath()).makeExecutor().execute()
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(object?["method"] as? String == "GET")
        }

        @Test func decodesModelAndReturnsResponseDetails() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json(#"{"id":7,"title":"Dune"}"#, status: 201) }
            let api = TestAPI(server: server)
            let response = try await api.target(path).makeExecutor(method: .post, params: ["a": 1]).response(
                model: Book.self)
            #expect(response.value == Book(id: 7, title: "Dune"))
            #expect(response.statusCode == 201)
            #expect(response.request.httpMethod == "POST")
            #expect(response.request.url?.path == path)
            #expect(response.duration > .zero)
            #expect(response.data == Data(#"{"id":7,"title":"Dune"}"#.utf8))
        }

        @Test func statusOutsideTwoHundredsThrowsWithBodyAndHeaders() async throws {
            // swift-net-layer treated a 418 as success.
            let api = TestAPI(server: try Self.server.get())
            let target = EchoTarget(resource: api, path: "/status/418")
            do {
                _ = try await target.makeExecutor().execute(model: Book.self)
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .unacceptableStatus)
                #expect(error.statusCode == 418)
                #expect(error.body.map { String(decoding: $0, as: UTF8.self) } == "status 418")
                #expect(error.headers.contains { $0.key.lowercased() == "content-type" })
                #expect(error.description.contains("418"))
            }
        }

        @Test func customValidationAcceptsOtherStatuses() async throws {
            let api = TestAPI(server: try Self.server.get(), options: ResourceOptions(validation: .none))
            let response = try await EchoTarget(resource: api, path: "/status/404").makeExecutor().response()
            #expect(response.statusCode == 404)
        }

        @Test func noContentDecodesAsEmpty() async throws {
            let api = TestAPI(server: try Self.server.get())
            let value = try await EchoTarget(resource: api, path: "/status/204").makeExecutor(method: .delete)
                .execute(model: Empty.self)
            #expect(value == Empty())
        }

        @Test func decodingFailureNamesTheCodingPathAndKeepsTheBody() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json(#"[{"id":1,"title":"a"},{"id":2}]"#) }
            let api = TestAPI(server: server)
            do {
                _ = try await api.target(path).makeExecutor().execute(model: [Book].self)
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .decodingFailed)
                #expect(error.codingPath == "[1].title")
                #expect(error.description.contains("[1].title"))
                #expect(error.bodyPreview()?.contains(#"{"id":2}"#) == true)
            }
        }

        @Test func typeMismatchNamesTheField() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json(#"{"id":"seven","title":"x"}"#) }
            do {
                _ = try await TestAPI(server: server).target(path).makeExecutor().execute(model: Book.self)
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.codingPath == "id")
            }
        }

        /// Without limits the request goes through `URLSession.data(for:)`, with limits through a
        /// delegate-driven task: both must return the challenge's 401.
        @Test(arguments: [nil, Duration.seconds(5)])
        func basicChallengeReturnsPromptlyAsUnacceptableStatus(_ deadline: Duration?) async throws {
            let api = TestAPI(server: try Self.server.get())
            let start = ContinuousClock.now
            do {
                try await EchoTarget(resource: api, path: "/basic-auth").makeExecutor(
                    resourceTimeout: deadline
                ).execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .unacceptableStatus)
                #expect(error.statusCode == 401)
                #expect(error.headers.contains { $0.key.lowercased() == "www-authenticate" })
            }
            #expect(ContinuousClock.now - start < .seconds(2))
        }

        @Test func droppedConnectionIsATransportError() async throws {
            let api = TestAPI(server: try Self.server.get())
            do {
                try await EchoTarget(resource: api, path: "/drop").makeExecutor().execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .transport)
                #expect(error.urlError != nil)
            }
        }

        @Test func connectionRefusedIsATransportError() async throws {
            let api = Resource(protocol: .http, domain: "127.0.0.1:1")
            do {
                try await EchoTarget(resource: api, path: "/x").makeExecutor().execute()
                Issue.record("expected an error")
            } catch let error as NetLayerError {
                #expect(error.code == .transport)
            }
        }

        @Test func completionHandlerIsCalledExactlyOnce() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in .json(#"{"id":1,"title":"t"}"#) }
            let executor = TestAPI(server: server).target(path).makeExecutor()
            let calls = LineCollector()
            let result: Result<Book, NetLayerError> = await withCheckedContinuation { continuation in
                executor.execute(model: Book.self) { result in
                    calls.record("called")
                    continuation.resume(returning: result)
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(calls.lines.count == 1)
            #expect(try result.get() == Book(id: 1, title: "t"))
        }

        @Test func completionHandlerReportsCancellationOnce() async throws {
            let executor = EchoTarget(resource: TestAPI(server: try Self.server.get()), path: "/delay/3000")
                .makeExecutor()
            let calls = LineCollector()
            let start = ContinuousClock.now
            let result: Result<Empty, NetLayerError> = await withCheckedContinuation { continuation in
                let handle = executor.execute(model: Empty.self) { result in
                    calls.record("called")
                    continuation.resume(returning: result)
                }
                Task {
                    try? await Task.sleep(for: .milliseconds(200))
                    handle.cancel()
                    handle.cancel()
                }
            }
            #expect(ContinuousClock.now - start < .seconds(2))
            try await Task.sleep(for: .milliseconds(100))
            #expect(calls.lines.count == 1)
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                return
            }
            #expect(error.code == .cancelled)
        }
    }
}
