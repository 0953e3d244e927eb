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

    /// The longest timeout NetLayer passes on: 7 days. Longer values are clamped to it, because
    /// Foundation and the clock arithmetic behind timers overflow (and crash) on absurd values,
    /// and no request is meant to stay open longer.
    public static let maximum: Duration = .seconds(7 * 86_400)

    /// Both limits checked and clamped.
    /// - Throws: ``NetLayerError/Code/invalidValue`` for a limit of zero or less.
    static func checked(idle: Duration?, total: Duration?) throws(NetLayerError) -> Timeouts {
        func check(_ value: Duration?, _ name: String) throws(NetLayerError) -> Duration? {
            guard let value else { return nil }
            if value <= .zero {
                throw .invalidValue(
                    part: name, reason: "\(value) is not longer than zero; leave it nil for no limit")
            }
            return min(value, maximum)
        }
        return Timeouts(idle: try check(idle, "timeout"), total: try check(total, "resourceTimeout"))
    }
}
