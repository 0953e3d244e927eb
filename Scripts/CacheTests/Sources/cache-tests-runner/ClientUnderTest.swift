import Foundation
import NetLayer

/// The resource every test request goes through: NetLayer as an application would use it, one
/// resource (so one cache) for the whole run.
///
/// Nothing may hide from the suite what the cache does:
/// - every status is an answer (`validation = .none`), so a 304, 404 or 503 is checked, not thrown;
/// - no retries (`retryPolicy = .none`): a second request would count as a cache miss, and the
///   suite's `Request-Numbers` check reports one as `retry`;
/// - redirects are NetLayer's own (`.default`) unless a request says `redirect: manual`, as the
///   suite's fetch client does (no test of the private-cache profile answers with a 3xx: those
///   tests are `browser_skip`, as a browser's fetch cannot show a redirect);
/// - the transport is URLSession with NetLayer's default configuration (no `URLCache`), with
///   enough connections that concurrent tests do not queue behind a delayed response.
///
/// - Parameters:
///   - server: The suite's server.
///   - cache: NetLayer's private cache, one for the whole run (as a browser has one).
func makeResource(for server: ServerAddress, cache: HTTPCache) -> Resource {
    let configuration = URLSessionTransport.defaultConfiguration
    configuration.httpMaximumConnectionsPerHost = 64
    let options = ResourceOptions {
        $0.validation = .none
        $0.retryPolicy = .none
        $0.redirects = .default
        $0.cache = cache
    }
    return Resource(
        protocol: .http, domain: server.authority,
        transport: URLSessionTransport(configuration: configuration), options: options)
}

/// Sends a test's requests through the resource under test, as the suite's client sends them
/// (`test-engine/client/fetching.mjs`).
struct ClientUnderTest: Sendable {
    /// How long one request may take before the client gives up (the suite's 10 s abort).
    static let requestTimeout: Duration = .seconds(10)

    private let server: ServerAddress
    private let target: Target

    /// A client for the suite's server at `server`, its answers cached in `cache`.
    init(server: ServerAddress, cache: HTTPCache) {
        self.server = server
        target = Target(resource: makeResource(for: server, cache: cache), path: "")
    }

    /// Sends request `number` (from 1) of a test and reads the whole response.
    /// - Parameters:
    ///   - request: The request's template.
    ///   - number: Its number in the test, sent as `Req-Num`.
    ///   - uuid: The test run's id: the URL's path and the server's configuration key.
    ///   - test: The test, whose name and id go in `Test-Name` and `Test-ID`.
    ///   - previous: The previous response, for `magic_ims`.
    /// - Throws: ``TestFailure``: `AbortError` after ``requestTimeout``, `NetLayerError` when the
    ///   request fails (a closed connection, …), `Setup` when it cannot be described.
    func send(
        _ request: RequestTemplate, number: Int, uuid: String, test: SuiteTest, previous: ObservedResponse?
    ) async throws(TestFailure) -> ObservedResponse {
        let url = try server.url(try Self.path(of: request, uuid: uuid))
        let headers = try RequestFields.make(for: request, number: number, test: test, previous: previous)
        let body = request.body.map { text in
            // A fetch client labels a string body as text unless the request sets a type.
            Body.data(Data(text.utf8), contentType: headers.hasContentType ? nil : "text/plain;charset=UTF-8")
        }
        let executor = target.makeExecutor(
            url: url, method: HTTPMethod(rawValue: request.method), headers: headers.fields, body: body,
            resourceTimeout: Self.requestTimeout,
            redirects: request.redirectMode == "manual" ? .doNotFollow : nil)
        do {
            let response = try await executor.response()
            return ObservedResponse(
                status: response.statusCode, fields: response.headerFields, body: response.data)
        } catch let error as NetLayerError where error.code == .timedOut {
            throw TestFailure(
                kind: "AbortError", message: "Request \(number) timed out: \(stable(error, uuid))")
        } catch {
            throw TestFailure(
                kind: "NetLayerError", message: "Request \(number) failed: \(stable(error, uuid))")
        }
    }

    /// An error's text without the server's port and the run's id, so results of two runs compare.
    private func stable(_ error: any Error, _ uuid: String) -> String {
        String(describing: error).replacingOccurrences(of: server.baseURL, with: "")
            .replacingOccurrences(of: uuid, with: "ID")
    }

    /// `/test/UUID[/filename][?query_arg]`.
    private static func path(of request: RequestTemplate, uuid: String) throws(TestFailure) -> String {
        var path = "/test/\(uuid)"
        if let filename = try request.string("filename") { path += "/\(filename)" }
        if let query = try request.string("query_arg") { path += "?\(query)" }
        return path
    }
}
