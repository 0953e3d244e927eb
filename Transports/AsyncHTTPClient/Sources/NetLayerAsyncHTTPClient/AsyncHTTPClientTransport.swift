import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NetLayer

/// A ``NetLayer/Transport`` on AsyncHTTPClient (SwiftNIO): the HTTP client of server-side Swift,
/// several times faster than URLSession on Linux, with HTTP/2 over TLS and public-key pinning.
///
/// NetLayer keeps its decisions over this transport as over URLSession: the client follows no
/// redirects (NetLayer's RFC 9110 rules apply), NetLayer's idle timeout and total deadline cover
/// the whole body (AsyncHTTPClient's own deadline ends at the head), and the connection pool does
/// not retry a failed connection (NetLayer's retry policy decides). Request bodies stream with
/// their exact `Content-Length`, files read in chunks, never spooled; response bodies stream
/// with backpressure: a consumer that stops reading stops the reads from the socket.
///
/// Lifecycle: a transport made from a ``Configuration`` owns its `HTTPClient` and shuts it down in
/// ``shutdown()`` (or, if you forget, when it is released); one made from an `HTTPClient` your app
/// already has borrows it and never shuts it down. A call after ``shutdown()`` fails with
/// ``NetLayer/NetLayerError/Code/transport`` whose `underlying` error is
/// ``AsyncHTTPClientTransportError/shutDown``.
public final class AsyncHTTPClientTransport: Transport {
    /// The client every call goes through.
    public let client: HTTPClient
    /// Whether this transport made `client` (and so shuts it down).
    private let ownsClient: Bool
    private let state = TransportState()

    /// Creates a transport with a client of its own, on the process's shared event loop group
    /// (so no threads of its own are started or leaked).
    /// - Parameter configuration: Default ``Configuration/init()``.
    public init(configuration: Configuration = Configuration()) {
        client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: configuration.clientConfiguration())
        ownsClient = true
    }

    /// Creates a transport over a client your app already has; the transport never shuts it down.
    ///
    /// Configure that client as ``Configuration`` would: `redirectConfiguration: .disallow` (or
    /// NetLayer's redirect rules are bypassed for the hops the client follows itself) and
    /// decompression as you want it. Public-key pins need a client this transport makes.
    /// - Parameter client: The client; it must outlive the calls made through this transport.
    public init(client: HTTPClient) {
        self.client = client
        ownsClient = false
    }

    deinit {
        // An owned client must be shut down before it goes (AsyncHTTPClient stops a debug build
        // otherwise); this does it without blocking, if ``shutdown()`` was not called.
        if ownsClient, state.markShutDown() {
            client.shutdown { _ in }
        }
    }

    /// Shuts the transport down: calls still running fail, later calls fail with
    /// ``AsyncHTTPClientTransportError/shutDown``. An owned client is shut down (its connections
    /// closed); a borrowed one is left running. Calling it again does nothing.
    /// - Throws: The client's shutdown error, for an owned client.
    public func shutdown() async throws {
        guard state.markShutDown() else { return }
        if ownsClient { try await client.shutdown() }
    }

    /// Sends `request` through the client.
    ///
    /// The head returns as soon as it arrives; the body streams as the consumer reads it.
    /// - Throws: `URLError` for connection and protocol failures (the codes URLSession uses, so
    ///   NetLayer's retry rules and messages are the same on both transports),
    ///   ``NetLayer/NetLayerError`` `.timedOut` when a limit elapses, `.encodingFailed` when a
    ///   body file cannot be read or changed length, `.invalidMethod`, `.invalidURL` or
    ///   `.invalidHeader` for a request that may not be sent, `CancellationError` when the calling
    ///   task is cancelled, ``AsyncHTTPClientTransportError`` after ``shutdown()`` or on a
    ///   public-key pin mismatch.
    public func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse
    {
        try Task.checkCancellation()
        try request.checkForSending()
        let timeouts = try context.timeouts.validated()
        guard !state.isShutDown else { throw AsyncHTTPClientTransportError.shutDown }
        if timeouts.idle == nil, timeouts.total == nil {
            let prepared = RequestConversion.clientRequest(request, progress: context.progress)
            return try await sendDirectly(prepared, request: request, progress: context.progress)
        }
        return try await TimedExchange.send(
            request, client: client, timeouts: timeouts, progress: context.progress)
    }

    /// No limit to watch: the head is awaited in the calling task and the body is read by its
    /// consumer straight from the client, so cancelling either task reaches the connection.
    private func sendDirectly(
        _ prepared: HTTPClientRequest, request: TransportRequest, progress: ProgressReporter?
    ) async throws -> TransportResponse {
        let response: HTTPClientResponse
        do {
            response = try await client.execute(prepared, deadline: .distantFuture)
        } catch {
            throw ErrorMapping.map(error, url: request.url)
        }
        return ResponseConversion.response(response, request: request, progress: progress)
    }
}

/// Errors of ``AsyncHTTPClientTransport`` itself; NetLayer reports them as
/// ``NetLayer/NetLayerError/Code/transport`` with this value as `underlying`.
public enum AsyncHTTPClientTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The transport was shut down before the call.
    case shutDown
    /// The server's certificate carries none of the public keys pinned for its host.
    case pinMismatch(host: String)

    /// A sentence naming the failure.
    public var description: String {
        switch self {
        case .shutDown: "the AsyncHTTPClient transport was shut down"
        case .pinMismatch(let host):
            "the certificate of \(host) carries none of the public keys pinned for it"
        }
    }
}

/// Whether the transport was shut down.
private final class TransportState: Sendable {
    private let shutDown = NIOLockedValueBox(false)

    var isShutDown: Bool { shutDown.withLockedValue { $0 } }

    /// `true` the first time only.
    func markShutDown() -> Bool {
        shutDown.withLockedValue { value in
            defer { value = true }
            return !value
        }
    }
}
