import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends one request and returns the response head with a body that streams as it arrives.
/// Conform to it to route calls through something other than `URLSession` (a stub in tests, a
/// different HTTP stack).
///
/// The shape follows swift-openapi-runtime's `ClientTransport`: a request value in, a head and a
/// streaming body out. NetLayer consumes the body exactly once (collecting, writing a file, or
/// handing chunks on) and cancels it when it stops early.
public protocol Transport: Sendable {
    /// Sends `request`.
    /// - Parameters:
    ///   - request: The request exactly as it should go on the wire (framing headers excepted).
    ///   - context: Timeouts to enforce, where to report progress, and whether the body is
    ///     streamed to the caller.
    /// - Returns: The head once it arrived, and the body.
    /// - Throws: `URLError`, `CancellationError` or ``NetLayerError``; NetLayer wraps anything else as
    ///   ``NetLayerError/Code/transport``.
    func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse
}

/// What a transport needs to know about one call besides the request.
public struct TransportContext: Sendable {
    /// The idle timeout and total deadline to enforce; the total covers reading the body too.
    public var timeouts: Timeouts
    /// Where to report upload and download progress; `nil` when nobody listens.
    public var progress: ProgressReporter?
    /// Whether the caller reads the body as it arrives (a stream, a download). `false`: it
    /// collects the whole body at once, so a transport may read it in one piece.
    public var streamsResponse: Bool

    /// Creates a context.
    /// - Parameters:
    ///   - timeouts: Default none.
    ///   - progress: Default `nil`.
    ///   - streamsResponse: Default `false`.
    public init(
        timeouts: Timeouts = Timeouts(), progress: ProgressReporter? = nil, streamsResponse: Bool = false
    ) {
        self.timeouts = timeouts
        self.progress = progress
        self.streamsResponse = streamsResponse
    }
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

    /// The limits as a transport enforces them: longer than ``maximum`` clamped to it.
    /// - Throws: ``NetLayerError/Code/invalidValue`` for a limit of zero or less.
    public func validated() throws(NetLayerError) -> Timeouts {
        try Self.checked(idle: idle, total: total)
    }

    /// Both limits checked and clamped.
    /// - Throws: ``NetLayerError/Code/invalidValue`` for a limit of zero or less.
    static func checked(idle: Duration?, total: Duration?) throws(NetLayerError) -> Timeouts {
        func check(_ value: Duration?, _ name: String) throws(NetLayerError) -> Duration? {
            guard let value else { return nil }
            if value <= .zero {
                throw .invalidValue(
                    part: name,
                    reason: "\(value.formattedSeconds) is not longer than zero; leave it nil for no limit")
            }
            return min(value, maximum)
        }
        return Timeouts(idle: try check(idle, "timeout"), total: try check(total, "resourceTimeout"))
    }
}
