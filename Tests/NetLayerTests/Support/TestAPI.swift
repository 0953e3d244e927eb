import Foundation
import NetLayer
import NetLayerTesting
import Testing

/// A resource pointing at a test server, written the way users write theirs.
///
/// Without `options`, collected calls have no `maximumResponseSize`, so that a call without a
/// timeout goes through URLSession's one-call path (`data(for:)`) as the suites' `paths`
/// parameters (`nil` and a timeout) intend; options given keep NetLayer's default limit (64 MiB),
/// which reads every collected body as it arrives (`DefaultResponseSizeTests`).
final class TestAPI: Resource, @unchecked Sendable {
    init(
        server: TestServer, version: String? = nil, headers: [String: String] = [:], params: Params = [:],
        rateLimits: [RateLimit] = [], transport: (any Transport)? = nil,
        options: ResourceOptions = ResourceOptions(maximumResponseSize: nil)
    ) {
        super.init(
            protocol: .http, domain: server.hostAndPort, version: version, defaultHeaders: headers,
            defaultParams: params, rateLimits: rateLimits, transport: transport, options: options)
    }

    func target(_ path: String, headers: [String: String] = [:], params: Params = [:]) -> EchoTarget {
        EchoTarget(resource: self, path: path, headers: headers, params: params)
    }
}

/// A target with no methods of its own: tests call `makeExecutor` directly.
final class EchoTarget: Target, @unchecked Sendable {}

/// A unique path per test, so parallel tests sharing one server never read each other's requests.
func uniquePath(_ name: String = #function) -> String {
    let clean = name.prefix(while: { $0 != "(" })
    return "/t/\(clean)-\(UUID().uuidString.prefix(8))"
}

/// Collects debug lines.
final class LineCollector: @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var storage: [String] = []
    var lines: [String] { lock.withLock { storage } }
    var sink: LogSink { LogSink { [self] line in record(line) } }
    func record(_ line: String) { lock.withLock { storage.append(line) } }
}

struct Book: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

struct NewBook: Codable, Sendable {
    var title: String
    var tags: [String]
}

/// Starts one server per suite; a failure to start surfaces in every test that uses it.
enum TestServerPool {
    static func make() -> Result<TestServer, any Error> { Result { try TestServer.start() } }
}

extension RecordedRequest {
    /// The body decoded as UTF-8 (invalid bytes replaced), for comparisons with expected text.
    var bodyString: String { String(decoding: body, as: UTF8.self) }
}

/// Every suite that talks to a test server runs inside this one, one test at a time, so timing
/// assertions (timeouts within 10%, limiter spacing) are not skewed by other suites' load on a
/// two-core machine.
@Suite(.serialized) enum WireTests {}
