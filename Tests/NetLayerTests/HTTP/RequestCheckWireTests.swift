import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Adds header fields without `HeaderFields.setValue(_:for:)`'s checks, as any interceptor can
/// with the public `HeaderFields(received:)`; optionally replaces the method or the URL.
struct UncheckedRequestInterceptor: Interceptor {
    var fields: [HeaderField] = []
    var method: HTTPMethod? = nil
    var url: URL? = nil

    func intercept(
        _ request: TransportRequest, context: InterceptorContext,
        next: @Sendable (TransportRequest) async throws -> TransportResponse
    ) async throws -> TransportResponse {
        var request = request
        let all = request.headerFields.map { (name: $0.name, value: $0.value) }
        request.headerFields = HeaderFields(received: all + fields.map { (name: $0.name, value: $0.value) })
        if let method { request.method = method }
        if let url { request.url = url }
        return try await next(request)
    }
}

extension WireTests {
    /// Framing headers, methods that are not tokens and header values with control characters are
    /// refused before anything is sent, at every level and from interceptors and direct transport
    /// callers too; clean values go out as given (DESIGN §17).
    @Suite(
        "Request checks: nothing unchecked reaches the request line or the header block", .tags(.hardening))
    struct RequestCheckWireTests {
        static let server = TestServerPool.make()

        static let framingNames = [
            "Content-Length", "transfer-encoding", "CONNECTION", "Keep-Alive", "TE", "Trailer", "Upgrade",
            "Host",
        ]

        @Test(.tags(.hardening), arguments: framingNames)
        func framingHeadersAreRefusedAtEveryLevel(_ name: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let levels: [(TestAPI, EchoTarget, [String: String])] = [
                (TestAPI(server: server, headers: [name: "5"]), TestAPI(server: server).target(path), [:]),
                (TestAPI(server: server), TestAPI(server: server).target(path, headers: [name: "5"]), [:]),
                (TestAPI(server: server), TestAPI(server: server).target(path), [name: "5"]),
            ]
            for (api, target, callHeaders) in levels {
                let bound = EchoTarget(resource: api, path: path, headers: target.headers)
                let error = await expectRefused(
                    bound.makeExecutor(
                        method: .post, headers: callHeaders, body: .data(Data("123456789012".utf8))),
                    code: .invalidHeader, server: server, path: path)
                #expect(error?.part == name)
            }
        }

        @Test(.tags(.hardening)) func aSmuggledContentLengthCannotSplitTheNextRequest() async throws {
            // `Content-Length: 5` with a 12-byte body used to make the next request on the connection
            // arrive as `4567890GET /next`.
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(server: server)
            _ = await expectRefused(
                api.target(path).makeExecutor(
                    method: .post, headers: ["Content-Length": "5"], body: .data(Data("123456789012".utf8))),
                code: .invalidHeader, server: server, path: path)
            try await api.target(path + "/next").makeExecutor().execute()
            let next = try #require(server.requests(path: path + "/next").first)
            #expect(next.method == "GET")
            #expect(server.rejectedRequestCount == 0)
        }

        @Test(
            .tags(.hardening),
            arguments: ["GET /evil HTTP/1.1\r\nX-Injected: 1\r\nY:", "GE T", "", "GET\n", "PRÜFEN", "A(B)"])
        func methodsThatAreNotTokensAreRefused(_ raw: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            #expect(!HTTPMethod(rawValue: raw).isValid)
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(method: HTTPMethod(rawValue: raw)),
                code: .invalidMethod, server: server, path: path)
            #expect(server.requests.allSatisfy { $0.header("X-Injected") == nil })
        }

        @Test(.tags(.hardening)) func extensionMethodTokensStillWork() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            try await TestAPI(server: server).target(path).makeExecutor(
                method: HTTPMethod(rawValue: "propfind")
            )
            .execute()
            #expect(server.requests(path: path).first?.method == "PROPFIND")
        }

        @Test(
            .tags(.hardening),
            arguments: ["a\u{01}b", "a\u{7F}", "a\u{00}b", "x\r\nX-Injected: 1", "a\nb", "\u{1B}[31m"])
        func headerValuesWithControlCharactersAreRefused(_ value: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let error = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(headers: ["X-Value": value]),
                code: .invalidHeader, server: server, path: path)
            #expect(error?.part == "X-Value")
        }

        @Test(.tags(.hardening), arguments: ["X Y", "X:Y", "(X)", "Ä", "a\tb"])
        func headerNamesThatAreNotTokensAreRefused(_ name: String) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(headers: [name: "v"]),
                code: .invalidHeader, server: server, path: path)
        }

        @Test(.tags(.hardening)) func bodyContentTypeCannotInjectHeaders() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            _ = await expectRefused(
                TestAPI(server: server).target(path).makeExecutor(
                    method: .post, body: .data(Data("x".utf8), contentType: "text/plain\r\nX-Injected: 1")),
                code: .invalidHeader, server: server, path: path)
        }

        @Test(.tags(.hardening), arguments: [nil, Duration.seconds(10)])
        func headerValuesAreTrimmedAndWhitespaceOnlyValuesArriveEmpty(_ timeout: Duration?) async throws {
            // `["X-A": "\t"]` used to arrive as no `X-A` line at all.
            let server = try Self.server.get()
            let path = uniquePath()
            try await TestAPI(server: server, headers: ["X-Resource": " \t "]).target(path).makeExecutor(
                headers: ["X-A": "\t", "X-B": "  a b \t", "X-C": "", "X-D": "a\tb"], timeout: timeout
            ).execute()
            let received = try #require(server.requests(path: path).first)
            #expect(received.headerValues("X-A") == [""])
            #expect(received.headerValues("X-B") == ["a b"])
            #expect(received.headerValues("X-C") == [""])
            #expect(received.headerValues("X-D") == ["a\tb"])
            #expect(received.headerValues("X-Resource") == [""])
        }

        @Test(
            .tags(.hardening),
            arguments: [
                HeaderField("X-Probe", "a\r\nX-Injected: yes"),
                HeaderField("Host", "evil.example"),
                HeaderField("Content-Length", "0"),
                HeaderField("X Bad", "v"),
                HeaderField("X-Nul", "a\u{0}b"),
            ])
        func anInterceptorsUncheckedHeaderIsRefusedAndNothingIsSent(_ field: HeaderField) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(
                server: server,
                options: ResourceOptions(interceptors: [UncheckedRequestInterceptor(fields: [field])]))
            let error = await #expect(throws: NetLayerError.self) {
                try await api.target(path).makeExecutor().execute()
            }
            #expect(error?.code == .invalidHeader)
            #expect(server.requests(path: path).isEmpty)
        }

        @Test(.tags(.hardening)) func anInterceptorsMethodOrURLIsCheckedBeforeSending() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let badMethod = TestAPI(
                server: server,
                options: ResourceOptions(interceptors: [
                    UncheckedRequestInterceptor(method: HTTPMethod(rawValue: "GET /evil HTTP/1.1\r\nX:"))
                ]))
            let methodError = await #expect(throws: NetLayerError.self) {
                try await badMethod.target(path).makeExecutor().execute()
            }
            #expect(methodError?.code == .invalidMethod)
            let fileURL = TestAPI(
                server: server,
                options: ResourceOptions(interceptors: [
                    UncheckedRequestInterceptor(url: URL(fileURLWithPath: "/etc/hostname"))
                ]))
            let urlError = await #expect(throws: NetLayerError.self) {
                try await fileURL.target(path).makeExecutor().execute()
            }
            #expect(urlError?.code == .invalidURL)
            #expect(server.requests(path: path).isEmpty)
        }

        @Test(.tags(.hardening)) func anInterceptorsCheckedHeaderStillGoesOut() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let api = TestAPI(
                server: server,
                options: ResourceOptions(interceptors: [
                    UncheckedRequestInterceptor(fields: [HeaderField("X-Trace", "a\tb c")])
                ]))
            try await api.target(path).makeExecutor().execute()
            #expect(server.requests(path: path).first?.header("X-Trace") == "a\tb c")
        }

        @Test(.tags(.hardening)) func theTransportChecksARequestItsCallerBuilt() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let transport = URLSessionTransport()
            let url = try #require(URL(string: "http://\(server.hostAndPort)\(path)"))
            let smuggling = TransportRequest(
                method: .get, url: url,
                headerFields: HeaderFields(received: [(name: "X-Probe", value: "a\r\nX-Injected: yes")]))
            let error = await #expect(throws: NetLayerError.self) {
                _ = try await transport.send(smuggling, context: TransportContext())
            }
            #expect(error?.code == .invalidHeader)
            #expect(server.requests(path: path).isEmpty)
            // The same request with a clean field is sent.
            let clean = TransportRequest(
                method: .get, url: url, headerFields: HeaderFields(received: [(name: "X-Probe", value: "ok")])
            )
            let response = try await transport.send(clean, context: TransportContext())
            #expect(response.head.statusCode == 200)
            #expect(server.requests(path: path).first?.header("X-Probe") == "ok")
        }
    }
}
