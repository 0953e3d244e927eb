import Foundation

/// How far an upload or a download has come.
public struct TransferProgress: Sendable, Hashable {
    /// Which way the bytes go.
    public enum Direction: Sendable, Hashable {
        /// The request body going to the server.
        case upload
        /// The response body coming from the server.
        case download
    }

    /// Which way the bytes go.
    public let direction: Direction
    /// Bytes sent or received so far; never decreases within one attempt. A call its retry policy
    /// sends again starts again from the new attempt's first byte, so the last event describes the
    /// body the call returns.
    public let completedBytes: Int64
    /// The total, when known (the request body's length; the response's `Content-Length`).
    public let expectedBytes: Int64?
    /// Whether this is the last event of this direction: the transfer completed.
    public let isFinished: Bool

    /// Creates an event (for custom transports' tests).
    public init(direction: Direction, completedBytes: Int64, expectedBytes: Int64?, isFinished: Bool) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
        self.isFinished = isFinished
    }

    /// `completedBytes / expectedBytes` in 0...1; 1 when finished; `nil` while the total is unknown.
    public var fraction: Double? {
        if isFinished { return 1 }
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }
}

/// Where a transport reports progress. Events are made monotonic and throttled here (at most about
/// 500 per direction and call, plus the final one), so a transport may report every chunk.
public final class ProgressReporter: Sendable {
    private let state: ProgressState

    /// A reporter that hands events to `handler`, on the transport's thread.
    public init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        state = ProgressState(handler)
    }

    /// Reports the bytes of the request body sent so far.
    public func reportUpload(sent: Int64, expected: Int64?) {
        state.report(.upload, completed: sent, expected: expected, finished: false)
    }

    /// Reports the bytes of the response body received so far.
    public func reportDownload(received: Int64, expected: Int64?) {
        state.report(.download, completed: received, expected: expected, finished: false)
    }

    /// A retry begins: the next events count the new attempt's bytes, from zero.
    func restart() { state.reset() }

    /// The final events: the upload (when there was a body) and the download, each once.
    func finish(uploaded: Int64?, downloaded: Int64) {
        if let uploaded { state.report(.upload, completed: uploaded, expected: uploaded, finished: true) }
        state.report(.download, completed: downloaded, expected: downloaded, finished: true)
    }
}

/// The last event of each direction, behind a lock. The handler runs under the lock too, so events
/// reach it in order whichever thread reports them.
final class ProgressState: Sendable {
    private let handler: @Sendable (TransferProgress) -> Void
    private let last = LockedValue([TransferProgress.Direction: (completed: Int64, finished: Bool)]())

    init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
    }

    /// Forgets what was reported: a new attempt's events start from zero.
    func reset() { last.withLock { $0 = [:] } }

    func report(_ direction: TransferProgress.Direction, completed: Int64, expected: Int64?, finished: Bool) {
        last.withLock { last in
            let previous = last[direction]
            if previous?.finished == true { return }
            let done = max(completed, previous?.completed ?? 0)
            let total = expected.map { max($0, done) }
            if !finished, let previous {
                // Throttle: a new event only for a step of at least 1/500 of the total (or 64 KiB).
                let step = max(64 * 1024, (total ?? 0) / 500)
                if done - previous.completed < step && done != total { return }
                if done == previous.completed { return }
            }
            last[direction] = (done, finished)
            handler(
                TransferProgress(
                    direction: direction, completedBytes: done, expectedBytes: total, isFinished: finished))
        }
    }
}
