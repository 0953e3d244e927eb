import Foundation
import NetLayer
import NetLayerAsyncHTTPClient
import NetLayerTesting
import Testing

/// NetLayer's cookie jar over AsyncHTTPClient, which keeps no cookies of its own: the same
/// behaviour as over URLSession, asserted on what the server received.
@Suite struct CookieJarTests {
    @Test(arguments: [nil, Duration.seconds(30)])
    func aLoginCookieIsSentOnTheNextCallsAndAcrossARedirect(timeout: Duration?) async throws {
        let server = try LoopbackServer.start(fallback: { request in
            switch request.path {
            case "/login":
                LoopbackResponse(
                    headers: [
                        ("Set-Cookie", "session=abc123; Path=/; HttpOnly"),
                        ("Set-Cookie", "theme=dark; Path=/settings"),
                    ])
            case "/hop":
                LoopbackResponse(
                    status: 302, headers: [("Location", "/landing"), ("Set-Cookie", "hop=1; Path=/")])
            default: LoopbackResponse(status: 204)
            }
        })
        defer { server.stop() }
        let jar = CookieJar()
        try await withTransport { transport in
            let api = LoopbackAPI(
                server: server, transport: transport,
                options: ResourceOptions {
                    $0.cookieJar = jar
                    $0.timeout = timeout
                })
            _ = try await api.target("/login").makeExecutor().execute()
            _ = try await api.target("/books").makeExecutor().execute()
            _ = try await api.target("/settings").makeExecutor().execute()
            _ = try await api.target("/hop").makeExecutor().execute()
        }
        let cookies = Dictionary(
            server.requests.map { ($0.path, $0.headerFields["Cookie"] ?? "") }, uniquingKeysWith: { $1 })
        #expect(cookies["/login"] == "")
        #expect(cookies["/books"] == "session=abc123")
        #expect(cookies["/settings"] == "theme=dark; session=abc123")
        #expect(cookies["/landing"] == "session=abc123; hop=1")
        #expect(jar.all.count == 3)
    }
}
