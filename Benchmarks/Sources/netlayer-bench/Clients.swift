import Foundation
import NetLayer
import NetLayerObservability

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The two clients of the throughput benchmark. Each makes one `GET /books` and decodes `[Book]`.

/// The configuration of the raw URLSession clients (`BENCH_BASELINE_CONFIGURATION`).
enum BaselineConfiguration: String, CaseIterable {
    /// The one NetLayer's transport uses, `URLSessionTransport.defaultConfiguration` (on Linux,
    /// Foundation's default without its `URLCache`, which never caches there): both clients pay
    /// for the same session work, so a ratio prices NetLayer's own. The goals use this one.
    case same
    /// `URLSessionConfiguration.default`, as hand-written code usually has it: on Linux every
    /// request also pays for a `URLCache` lookup. Tells what NetLayer's default saves a user.
    case foundation

    func make() -> URLSessionConfiguration {
        switch self {
        case .same: URLSessionTransport.defaultConfiguration
        case .foundation: .default
        }
    }
}

/// Baseline: raw URLSession. One session created once, one request prepared once, one decoder,
/// `session.data(for:)` + a status check + `JSONDecoder.decode`: the least work a URLSession caller
/// can do for the same result.
final class URLSessionClient: Sendable {
    let session: URLSession
    let url: URL
    let request: URLRequest
    let decoder = JSONDecoder()

    init(port: Int, configuration: URLSessionConfiguration) {
        session = URLSession(configuration: configuration)
        url = URL(string: "http://127.0.0.1:\(port)/books")!
        request = URLRequest(url: url)
    }

    func books() async throws -> [Book] { try await books(request) }

    /// Diagnostic (`BENCH_THROUGHPUT_CONTENDER=urlsession-fresh`): the same call with a new
    /// `URLRequest` each time (from a `URL` made once), as any client whose requests vary must.
    func booksWithAFreshRequest() async throws -> [Book] {
        try await books(URLRequest(url: url))
    }

    private func books(_ request: URLRequest) async throws -> [Book] {
        let (data, response) = try await session.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw BenchError("URLSession: unexpected response \(response)")
        }
        return try decoder.decode([Book].self, from: data)
    }

    deinit { session.finishTasksAndInvalidate() }
}

/// NetLayer as an app would write it: a `Resource` subclass for the service and a `Target` subclass
/// with one method per call. Every call builds its executor and request anew (the real call path).
final class BenchAPI: Resource, @unchecked Sendable {
    init(port: Int, transport: (any Transport)? = nil, options: ResourceOptions = ResourceOptions()) {
        super.init(protocol: .http, domain: "127.0.0.1:\(port)", transport: transport, options: options)
    }

    var bookList: BooksTarget { BooksTarget(resource: self, path: "/books") }
}

final class BooksTarget: Target, @unchecked Sendable {
    func list() async throws -> [Book] {
        try await makeExecutor(method: .get).execute(model: [Book].self)
    }
}

/// NetLayer client with its target made once, as a long-lived client object would hold it.
final class NetLayerClient: Sendable {
    let api: BenchAPI
    let target: BooksTarget

    /// - Parameters:
    ///   - transport: Default: the resource's own (`URLSessionTransport()`).
    ///   - options: Default: NetLayer's defaults (a collected body is limited to 64 MiB).
    init(port: Int, transport: (any Transport)? = nil, options: ResourceOptions = ResourceOptions()) {
        var options = options
        options.observer = BenchObserver.fromEnvironment
        api = BenchAPI(port: port, transport: transport, options: options)
        target = api.bookList
    }

    /// Diagnostic (`netlayer-unlimited`): NetLayer with `maximumResponseSize: nil`, so a collected
    /// call takes URLSession's one-call `data(for:)` path instead of reading its body as it arrives.
    static func unlimited(port: Int) -> NetLayerClient {
        NetLayerClient(port: port, options: ResourceOptions(maximumResponseSize: nil))
    }

    /// Diagnostic (`netlayer-foundation`): NetLayer on a transport with
    /// `URLSessionConfiguration.default`, as every resource had before its default dropped the
    /// `URLCache` on Linux.
    static func onFoundationDefault(port: Int) -> NetLayerClient {
        NetLayerClient(port: port, transport: URLSessionTransport(configuration: .default))
    }

    func books() async throws -> [Book] { try await target.list() }
}

/// Diagnostic baselines (`BENCH_THROUGHPUT_CONTENDER`, see Config.swift): raw URLSession as
/// ``URLSessionClient`` calls it, but on a session with a delegate that refuses redirects (what a
/// library that decides redirects itself must have), with a given delegate queue. They replace
/// NetLayer in the throughput part, to price the delegate alone.
final class URLSessionDelegateClient: Sendable {
    enum Queue: String, CaseIterable {
        /// An `OperationQueue` with `maxConcurrentOperationCount = 1` (NetLayer's choice).
        case serial
        /// An `OperationQueue` with the default (unlimited) concurrency.
        case concurrent
        /// `delegateQueue: nil`: URLSession makes its own (serial) queue.
        case none
    }

    final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    let session: URLSession
    let request: URLRequest
    let decoder = JSONDecoder()

    init(port: Int, queue: Queue, configuration: URLSessionConfiguration) {
        let operationQueue: OperationQueue?
        switch queue {
        case .serial:
            operationQueue = OperationQueue()
            operationQueue?.maxConcurrentOperationCount = 1
        case .concurrent: operationQueue = OperationQueue()
        case .none: operationQueue = nil
        }
        session = URLSession(
            configuration: configuration, delegate: RedirectRefusingDelegate(), delegateQueue: operationQueue)
        request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/books")!)
    }

    func books() async throws -> [Book] {
        let (data, response) = try await session.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw BenchError("URLSession with a delegate: unexpected response \(response)")
        }
        return try decoder.decode([Book].self, from: data)
    }

    deinit { session.finishTasksAndInvalidate() }
}

/// Diagnostic (`BENCH_THROUGHPUT_CONTENDER=transport`): NetLayer's `URLSessionTransport` called
/// directly with a request value, without an executor; its ratio separates the transport's cost
/// from the executor's.
final class TransportClient: Sendable {
    let transport = URLSessionTransport()
    let request: TransportRequest
    let decoder = JSONDecoder()

    init(port: Int) {
        request = TransportRequest(method: .get, url: URL(string: "http://127.0.0.1:\(port)/books")!)
    }

    func books() async throws -> [Book] {
        let response = try await transport.send(request, context: TransportContext())
        guard (200..<300).contains(response.head.statusCode) else {
            throw BenchError("URLSessionTransport: unexpected status \(response.head.statusCode)")
        }
        return try decoder.decode([Book].self, from: try await response.body.collect())
    }
}

/// Diagnostic (`BENCH_PROFILE_CLIENT=canned`): the same NetLayer call as ``NetLayerClient``, through a
/// transport that answers at once with the server's bytes. No network, no URLSession: the CPU per
/// call is NetLayer's own work plus the decode. `canned-decode` is the decode alone on the same
/// bytes; the difference is what NetLayer adds, measured hot.
final class CannedClient: Sendable {
    /// Answers every request with the books JSON and the headers the server sends.
    struct CannedTransport: Transport {
        let body: Data
        let head: ResponseHead

        func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse {
            TransportResponse(head: head, body: ResponseBody(body))
        }
    }

    final class CannedAPI: Resource, @unchecked Sendable {
        init(transport: CannedTransport) {
            super.init(
                protocol: .http, domain: "127.0.0.1:9", transport: transport,
                options: ResourceOptions(observer: BenchObserver.fromEnvironment))
        }
    }

    let target: BooksTarget
    let body: Data
    let decoder = JSONDecoder()

    init() throws {
        body = try JSONEncoder().encode(BenchServer.books)
        let head = ResponseHead(
            statusCode: 200,
            headerFields: HeaderFields(received: [
                ("Content-Type", "application/json"), ("Content-Length", "\(body.count)"),
            ]),
            url: URL(string: "http://127.0.0.1:9/books"))
        target = BooksTarget(
            resource: CannedAPI(transport: CannedTransport(body: body, head: head)), path: "/books")
    }

    func books() async throws -> [Book] { try await target.list() }
    func decodeOnly() async throws -> [Book] { try decoder.decode([Book].self, from: body) }
}

/// Diagnostic (`BENCH_OBSERVER`): a ``CallObserver`` on NetLayer's clients, to price observation.
/// `noop` implements nothing (every event is built and delivered to the protocol's defaults);
/// `counting` counts every event under a lock, as a metrics bridge would; `telemetry` is the
/// observability package's `TelemetryObserver` over the no-op tracer and metrics (it ignores every
/// call); `reads-url` reads each call's URL, host and port and ignores the call (what a call cost
/// such an observer before `CallStarted` built them on demand). Unset: no observer, NetLayer's
/// default.
struct BenchObserver: CallObserver {
    let counts: LockedCounts?
    var readsTheURL = false

    final class LockedCounts: @unchecked Sendable {  // guarded by lock
        private let lock = NSLock()
        private var events = 0
        func add() { lock.withLock { events += 1 } }
    }

    static let fromEnvironment: (any CallObserver)? = {
        switch ProcessInfo.processInfo.environment["BENCH_OBSERVER"] {
        case "noop": BenchObserver(counts: nil)
        case "counting": BenchObserver(counts: LockedCounts())
        case "telemetry": TelemetryObserver()
        case "reads-url": BenchObserver(counts: nil, readsTheURL: true)
        default: nil
        }
    }()

    func callStarted(_ event: CallStarted) -> (any CallObserver)? {
        guard readsTheURL else { return self }
        return event.url.isEmpty || event.host.isEmpty || event.port == 0 ? self : nil
    }

    func admissionWaited(_ event: AdmissionWaited) { counts?.add() }
    func attemptStarted(_ event: AttemptStarted, headers: inout AttemptHeaders) { counts?.add() }
    func headReceived(_ event: HeadReceived) { counts?.add() }
    func attemptFinished(_ event: AttemptFinished) { counts?.add() }
    func callFinished(_ event: CallFinished) { counts?.add() }
}
