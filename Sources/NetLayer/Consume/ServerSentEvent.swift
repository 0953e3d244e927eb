import Foundation

/// One event of a `text/event-stream` response (Server-Sent Events), as the WHATWG HTML standard
/// defines it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The last event ID the stream set (`id:`) when this event was dispatched; `nil` when none
    /// was set or it was set to empty. Kept across events and across reconnections, and sent back
    /// as `Last-Event-ID` when NetLayer reconnects.
    public var id: String?
    /// The event type (`event:`); `"message"` when the event named none.
    public var event: String
    /// The data lines (`data:`) joined with `"\n"`.
    public var data: String
    /// The reconnection time a `retry:` line in this event set, if any (the server gives
    /// milliseconds). It applies to later reconnections whether or not an event follows it.
    public var retry: Duration?

    /// Creates an event (for tests and custom transports).
    /// - Parameters:
    ///   - id: Default `nil`.
    ///   - event: Default `"message"`.
    ///   - data: The data.
    ///   - retry: Default `nil`.
    public init(id: String? = nil, event: String = "message", data: String, retry: Duration? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}

/// Whether and how an event stream reconnects after it ends or its connection drops.
///
/// NetLayer then waits the server's `retry:` time (or ``defaultDelay``), sends the request again
/// with `Last-Event-ID`, and goes on with the events. It stops on a 204, on a status that is not
/// retryable, on a non-event-stream content type, when the consumer stops iterating, and after
/// ``maximumAttempts`` attempts in a row that brought no event.
public struct EventStreamReconnection: Sendable, Hashable {
    /// Attempts in a row that may fail or bring no event before the stream gives up with the last
    /// error (or ends, when the server kept closing cleanly). An event resets the count.
    public var maximumAttempts: Int
    /// The wait before reconnecting when the server sent no `retry:`.
    public var defaultDelay: Duration
    /// The longest wait, whatever `retry:` or `Retry-After` asks for.
    public var maximumDelay: Duration
    /// The shortest wait, whatever `retry:` asks for (a server's `retry: 0` cannot make a client
    /// reconnect in a loop). While connections keep ending within a second with at most one event,
    /// this floor doubles with each one (up to ``maximumDelay``); a connection that brings two
    /// events or lasts longer resets it.
    public var minimumDelay: Duration

    /// Reconnects up to 5 times in a row, after 3 s unless the server says otherwise (browsers wait
    /// a few seconds too), never sooner than 250 ms nor later than 60 s.
    public static let `default` = EventStreamReconnection()

    /// Creates a reconnection setting.
    /// - Parameters:
    ///   - maximumAttempts: Default 5. Zero or less: never reconnect.
    ///   - defaultDelay: Default 3 s. Negative counts as zero; longer than `maximumDelay` is cut.
    ///   - maximumDelay: Default 60 s; at most ``Timeouts/maximum``.
    ///   - minimumDelay: Default 250 ms. Negative counts as zero; longer than `maximumDelay` is cut.
    public init(
        maximumAttempts: Int = 5, defaultDelay: Duration = .seconds(3), maximumDelay: Duration = .seconds(60),
        minimumDelay: Duration = .milliseconds(250)
    ) {
        self.maximumAttempts = maximumAttempts
        self.defaultDelay = defaultDelay
        self.maximumDelay = maximumDelay
        self.minimumDelay = minimumDelay
    }

    /// `delay` (or the default) kept within the floor and ``maximumDelay``; the floor is
    /// ``minimumDelay`` doubled once per connection in a row that ended quickly with at most one
    /// event (`sparseConnections`).
    func wait(_ delay: Duration?, sparseConnections: Int = 0) -> Duration {
        let cap = min(max(.zero, maximumDelay), Timeouts.maximum)
        var floor = min(max(.zero, minimumDelay), cap)
        for _ in 0..<min(max(0, sparseConnections), 32) where floor < cap {
            floor = min(floor * 2, cap)
        }
        return min(max(floor, delay ?? defaultDelay), cap)
    }

    /// A connection counts as sparse when it ended within this time with at most one event.
    static let sparseConnectionTime: Duration = .seconds(1)
}
