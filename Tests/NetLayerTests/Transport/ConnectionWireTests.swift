import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// Issue 5 defects 7 and 10: the same 401 on both send paths, and what happens when a server
    /// closes a kept-alive connection just as the next request arrives.
    @Suite("Connections and challenges")
    struct ConnectionWireTests {
        static let server = TestServerPool.make()
        static let paths: [Duration?] = [nil, .seconds(10)]

        @Test func basicChallengeKeepsItsBodyOnTheWatchedPathAlways() async throws {
            let api = TestAPI(server: try Self.server.get())
            for _ in 0..<2 {
                let error = try await challenged(api, path: "/basic-auth", timeout: .seconds(10))
                #expect(error.body.map { String(decoding: $0, as: UTF8.self) } == "auth required")
            }
        }

        @Test func basicChallengeKeepsItsBodyOnTheDirectPathFromTheFirstChallenge() async throws {
            // The no-timeout path (URLSession's own data(for:) on Linux) keeps the body of every
            // 401, the first challenge of a host included, as the watched path does.
            let api = TestAPI(server: try Self.server.get())
            for _ in 0..<3 {
                let error = try await challenged(api, path: "/basic-auth", timeout: nil)
                #expect(error.body.map { String(decoding: $0, as: UTF8.self) } == "auth required")
                #expect(error.header("WWW-Authenticate") == "Basic realm=\"netlayer-test\"")
            }
        }

        /// Calls `path`, expects a prompt 401 and returns its error.
        /// A file body goes up through `upload(for:fromFile:)` on the direct path and through a
        /// delegate-driven upload task when watched: both come back promptly with the 401, and the
        /// server received the file's exact bytes.
        @Test(arguments: paths)
        func aFileUploadMeetingABasicChallengeComesBackPromptly(_ timeout: Duration?) async throws {
            let server = try Self.server.get()
            let api = TestAPI(server: server)
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("netlayer-challenge-\(UUID().uuidString).bin")
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let before = server.requests(path: "/basic-auth").count
            let start = ContinuousClock.now
            let error = await #expect(throws: NetLayerError.self) {
                try await EchoTarget(resource: api, path: "/basic-auth")
                    .makeExecutor(method: .put, body: .file(file), timeout: timeout).execute()
            }
            #expect(ContinuousClock.now - start < .seconds(2))
            #expect(error?.statusCode == 401, "\(String(describing: error))")
            #expect(error?.header("WWW-Authenticate") == "Basic realm=\"netlayer-test\"")
            let received = server.requests(path: "/basic-auth").dropFirst(before)
            #expect(received.contains { $0.method == "PUT" && $0.body == bytes })
        }

        private func challenged(_ api: TestAPI, path: String, timeout: Duration?) async throws
            -> NetLayerError
        {
            let start = ContinuousClock.now
            defer { #expect(ContinuousClock.now - start < .seconds(2)) }
            do {
                try await EchoTarget(resource: api, path: path).makeExecutor(timeout: timeout).execute()
            } catch let error as NetLayerError {
                #expect(error.statusCode == 401, "\(error)")
                return error
            }
            throw NetLayerError(.unacceptableStatus, "expected a 401")
        }

        @Test(arguments: [false, true])
        func concurrentChallengedCallsEachGetTheirOwnResponse(_ hostChallengedBefore: Bool) async throws {
            // Identical method and URL, different headers: each caller gets its own 401 (matched by
            // task when the body is recorded, else by the whole request).
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                var response = TestResponse.text("body of \(request.header("X-N") ?? "?")", status: 401)
                response.addHeader("WWW-Authenticate", "Basic realm=\"r\"")
                response.addHeader("X-N", request.header("X-N") ?? "?")
                return response.delayed(by: .milliseconds(Int64.random(in: 0...30)))
            }
            let api = TestAPI(server: server)
            if hostChallengedBefore { _ = try await challenged(api, path: "/basic-auth", timeout: nil) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<16 {
                    group.addTask {
                        do {
                            try await api.target(path).makeExecutor(headers: ["X-N": "\(n)"]).execute()
                            Issue.record("expected 401")
                        } catch let error as NetLayerError {
                            #expect(error.header("X-N") == "\(n)")
                            if hostChallengedBefore {
                                #expect(
                                    error.body.map { String(decoding: $0, as: UTF8.self) } == "body of \(n)")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }

        /// Answers the first request of a connection; closes without answering any later one, as a
        /// server whose keep-alive timer fires just as the next request arrives.
        private func dropOnReusedConnection(_ server: TestServer, _ path: String) {
            server.route(path) { request in
                request.sequenceOnConnection >= 2 ? .drop() : TestRoutes.echo(request)
            }
        }

        @Test(arguments: paths, [HTTPMethod.post, .patch, .put])
        func requestsWithBodiesAreNeverResentAndNeverHang(_ timeout: Duration?, _ method: HTTPMethod)
            async throws
        {
            // A POST on a stale kept-alive connection hung until the idle timeout (libcurl resent its
            // head without the body).
            let server = try Self.server.get()
            let path = uniquePath()
            dropOnReusedConnection(server, path)
            let api = TestAPI(server: server)
            for round in 0..<3 {
                try await api.target(path + "/warm").makeExecutor().execute()  // a connection to reuse
                let start = ContinuousClock.now
                let call = api.target(path).makeExecutor(
                    method: method, params: ["round": round], timeout: timeout)
                #if canImport(FoundationNetworking)
                    // Linux: the request gets a connection of its own, so the stale one never matters.
                    let data = try await call.execute()
                    #expect(String(decoding: data, as: UTF8.self).contains("round=\(round)"))
                #else
                    // Apple platforms reuse connections for every request (HTTP/2 multiplexes them);
                    // URLSession never resends a request with a body there, it fails at once with
                    // networkConnectionLost when the server closed the connection first.
                    do {
                        let data = try await call.execute()
                        #expect(String(decoding: data, as: UTF8.self).contains("round=\(round)"))
                    } catch let error as NetLayerError {
                        #expect(error.code == .transport, "\(error)")
                    }
                #endif
                #expect(ContinuousClock.now - start < .seconds(3))
            }
            let received = server.requests(path: path)
            // Never sent twice: each round reached the server once at most.
            for round in 0..<3 {
                #expect(received.filter { $0.bodyString.contains("round=\(round)") }.count <= 1)
            }
            #if canImport(FoundationNetworking)
                #expect(received.count == 3, "sent \(received.count) times")
                #expect(received.allSatisfy { $0.sequenceOnConnection == 1 })
                #expect(received.allSatisfy { $0.header("Connection") == "close" })
            #endif
        }

        /// Answers in full without a `Connection` field, then holds the connection open for a while
        /// before closing it, reading nothing more: a server that honours the request's
        /// `Connection: close` without announcing it (RFC 9112 §9.6 only says SHOULD; Hummingbird
        /// does this) and whose close lags behind its answer, as under CPU load.
        private func closeSilentlyAfterAnswering(_ server: TestServer, _ path: String) {
            server.route(path) { request in
                let body = Data("seen \(request.bodyString)".utf8)
                let head =
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.count)\r\n\r\n"
                return .raw([.init(Data(head.utf8) + body), .init(Data(), after: .milliseconds(1500))])
            }
        }

        @Test(arguments: paths, [HTTPMethod.post, .patch, .put])
        func bodiesInARowNeverHangWhenTheServerClosesWithoutSayingSo(
            _ timeout: Duration?, _ method: HTTPMethod
        )
            async throws
        {
            // Found as a stall of the sample's uploads under load: libcurl keeps a connection whose
            // answer did not say `Connection: close` in the session's pool, reuses it for the next
            // request with a body, meets the server's close, resends the head on a new connection
            // without the body (or without the part it had sent), and both sides wait until a
            // timeout. Each such request now gets a session, and so a connection pool, of its own.
            let server = try Self.server.get()
            let path = uniquePath()
            closeSilentlyAfterAnswering(server, path)
            let api = TestAPI(server: server)
            for round in 0..<3 {
                let start = ContinuousClock.now
                let call = api.target(path).makeExecutor(
                    method: method, params: ["round": round], timeout: timeout)
                #if canImport(FoundationNetworking)
                    let data = try await withDeadline(.seconds(5)) { try await call.execute() }
                    #expect(String(decoding: data, as: UTF8.self).contains("round=\(round)"))
                #else
                    // Apple platforms reuse the connection; a request that meets the close fails
                    // with networkConnectionLost, never hangs (see the test above).
                    do {
                        let data = try await withDeadline(.seconds(5)) { try await call.execute() }
                        #expect(String(decoding: data, as: UTF8.self).contains("round=\(round)"))
                    } catch let error as NetLayerError {
                        #expect(error.code == .transport, "\(error)")
                    }
                #endif
                #expect(ContinuousClock.now - start < .seconds(3), "round \(round)")
            }
            #if canImport(FoundationNetworking)
                let received = server.requests(path: path)
                #expect(received.count == 3, "sent \(received.count) times")
                #expect(received.allSatisfy { $0.sequenceOnConnection == 1 })
            #endif
        }

        @Test func allRequestsReuseConnectionsWhenTheTransportIsToldTo() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server, transport: URLSessionTransport(connectionReuse: .allRequests))
            for _ in 0..<3 {
                try await api.target(path).makeExecutor(method: .post, params: ["a": 1]).execute()
            }
            let received = server.requests(path: path)
            #expect(received.count == 3)
            #expect(Set(received.map(\.connectionID)).count == 1)
        }

        @Test func transportUsedDirectlyChecksAndClampsTimeouts() async throws {
            let server = try Self.server.get()
            let transport = URLSessionTransport()
            await #expect(throws: NetLayerError.self) {
                _ = try await transport.send(
                    TransportRequest(method: .get, url: server.url("/x")),
                    context: TransportContext(timeouts: Timeouts(idle: .zero)))
            }
            let response = try await transport.send(
                TransportRequest(method: .get, url: server.url("/x")),
                context: TransportContext(timeouts: Timeouts(idle: .seconds(Int64.max / 2))))
            #expect(response.head.statusCode == 200)
            #expect(try await response.body.collect().count > 0)
            var error = NetLayerError(.invalidValue, "x")
            error.body = Data("abc".utf8)
            #expect(error.bodyPreview(limit: -5) == "… (3 bytes in all)")
        }

        @Test func idempotentRequestsWithoutBodyKeepReusingConnections() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server)
            for _ in 0..<4 { try await api.target(path).makeExecutor().execute() }
            let received = server.requests(path: path)
            #expect(Set(received.map(\.connectionID)).count == 1)
            #expect(received.allSatisfy { $0.header("Connection")?.lowercased() != "close" })
        }

        @Test(arguments: [
            (HTTPMethod.get, "GET"), (.delete, "DELETE"), (.options, "OPTIONS"),
            // Foundation sends a known method in capitals, so this one is a GET on the wire too.
            (HTTPMethod(rawValue: "get"), "GET"),
        ])
        func idempotentMethodsGoOutAsAskedOnAKeptConnection(_ method: HTTPMethod, _ onTheWire: String)
            async throws
        {
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server)
            for _ in 0..<3 { try await api.target(path).makeExecutor(method: method).execute() }
            let received = server.requests(path: path)
            #expect(received.count == 3)
            #expect(received.allSatisfy { $0.method == onTheWire })
            #expect(Set(received.map(\.connectionID)).count == 1)
            #expect(received.allSatisfy { $0.header("Connection")?.lowercased() != "close" })
        }

        @Test func idempotentRequestsOnAStaleConnectionCompletePromptly() async throws {
            // Documented, RFC 9110 §9.2.2: URLSession may resend an idempotent request without a body
            // once on a new connection; it completes promptly and is never half sent.
            let server = try Self.server.get()
            let path = uniquePath()
            dropOnReusedConnection(server, path)
            let api = TestAPI(server: server)
            for method in [HTTPMethod.get, .delete] {
                server.reset()
                try await api.target(path + "/warm").makeExecutor().execute()
                let start = ContinuousClock.now
                try await api.target(path).makeExecutor(method: method).execute()
                #expect(ContinuousClock.now - start < .seconds(3))
                let received = server.requests(path: path)
                #expect((1...2).contains(received.count))
                #expect(received.last?.sequenceOnConnection == 1)
            }
        }
    }
}
