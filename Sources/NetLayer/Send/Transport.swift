import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one prepared request and returns the whole response. Conform to it to route calls through
/// something other than `URLSession` (a stub in tests, a different HTTP stack).
public protocol Transport: Sendable {
    /// Sends `request` and waits for the whole body.
    /// - Parameters:
    ///   - request: The request exactly as it should go on the wire.
    ///   - timeouts: The idle timeout and total deadline the transport should enforce.
    /// - Returns: The body and the HTTP response.
    /// - Throws: `URLError`, `CancellationError` or ``NetLayerError``; NetLayer wraps anything else as
    ///   ``NetLayerError/Code/transport``.
    func send(_ request: URLRequest, timeouts: Timeouts) async throws -> (Data, HTTPURLResponse)
}

/// The time limits of one request.
public struct Timeouts: Sendable, Hashable {
    /// The longest time without any bytes arriving (or being sent). `nil`: the transport's default.
    public var idle: Duration?
    /// The longest time for the whole request. `nil`: no limit.
    public var total: Duration?

    /// Creates limits; both default to `nil`.
    public init(idle: Duration? = nil, total: Duration? = nil) {
        self.idle = idle
        self.total = total
    }

    /// Whether either limit is set.
    var isEmpty: Bool { idle == nil && total == nil }
}
