import Foundation
import Testing

@testable import NetLayer
@testable import NetLayerTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// URLSession decides nothing NetLayer decides: with the default configuration no response is
    /// cached, no challenge is answered from stored credentials and no cookie is kept — on every
    /// platform. Each test runs on the direct path (`data(for:)`) and the watched path (a timeout).
    @Suite("Transport: URLSession's defaults decide nothing")
    struct SessionDefaultsWireTests {
        static let server = TestServerPool.make()

        /// Both send paths of the URLSession transport.
        static let paths: [Duration?] = [nil, .seconds(20)]

        @Test(arguments: paths)
        func aFreshResponseIsFetchedAgain(timeout: Duration?) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let counter = HitCounter()
            server.route(path) { _ in
                let count = counter.next()
                var response = LoopbackResponse.text("fetch \(count)")
                response.setHeader("Cache-Control", "max-age=3600")
                response.setHeader("ETag", "\"v1\"")
                response.setHeader("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")
                return response
            }
            let api = TestAPI(server: server)
            let first = try await api.target(path).makeExecutor(timeout: timeout).response()
            let second = try await api.target(path).makeExecutor(timeout: timeout).response()
            #expect(String(decoding: first.data, as: UTF8.self) == "fetch 1")
            #expect(String(decoding: second.data, as: UTF8.self) == "fetch 2")
            #expect(second.statusCode == 200)
            let requests = server.requests(path: path)
            #expect(requests.count == 2)
            // URLSession added no validator of its own.
            #expect(
                requests.allSatisfy {
                    $0.header("If-None-Match") == nil && $0.header("If-Modified-Since") == nil
                })
        }

        @Test(arguments: paths)
        func aBasicChallengeReachesTheCallerWithItsBody(timeout: Duration?) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { _ in
                var response = LoopbackResponse.text("log in first", status: 401)
                response.addHeader("WWW-Authenticate", #"Basic realm="books""#)
                response.addHeader("WWW-Authenticate", #"Digest realm="books", nonce="abc", qop="auth""#)
                return response
            }
            let api = TestAPI(server: server)
            // Twice: the first challenge of a host and a later one keep the body alike.
            for _ in 0..<2 {
                let error = await #expect(throws: NetLayerError.self) {
                    try await api.target(path).makeExecutor(timeout: timeout).execute()
                }
                #expect(error?.code == .unacceptableStatus)
                #expect(error?.statusCode == 401)
                #expect(error?.body.map { String(decoding: $0, as: UTF8.self) } == "log in first")
            }
            #expect(server.requests(path: path).allSatisfy { $0.header("Authorization") == nil })
        }

        @Test(arguments: paths)
        func cookiesAreNeitherKeptNorSent(timeout: Duration?) async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            server.route(path) { request in
                var response = LoopbackResponse.echo(request)
                response.addHeader("Set-Cookie", "session=s3cr3t-\(UUID().uuidString); Path=/; Max-Age=3600")
                return response
            }
            let api = TestAPI(server: server)
            try await api.target(path).makeExecutor(timeout: timeout).execute()
            try await api.target(path).makeExecutor(timeout: timeout).execute()
            let requests = server.requests(path: path)
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.header("Cookie") == nil })
        }
    }
}
