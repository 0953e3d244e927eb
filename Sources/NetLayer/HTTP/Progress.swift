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
    /// body the call returns. A resumed download counts the whole file: the bytes already on disk
    /// are done from its first event on.
    public let completedBytes: Int64
    /// The total, when known (the request body's length; the response's `Content-Length`; for a
    /// resumed download, the whole file's length from the `206`'s `Content-Range`).
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

    /// A resumed download is being asked for: download events wait (the latest one kept) until
    /// ``resumeDownload(from:total:)`` says, from the response head, what they count.
    func holdDownload() { state.holdDownload() }

    /// The response to a resumed download arrived: from now on download events count `offset`
    /// bytes already on disk as done, out of `total` (the whole file) when known, else out of the
    /// response's own length plus `offset`. An event for the bytes so far is reported at once.
    /// `offset` 0 and `total` `nil` (a `200`, the whole file again) report events as they come.
    func resumeDownload(from offset: Int64, total: Int64?) {
        state.resumeDownload(from: offset, total: total)
    }

    /// The final events: the upload (when there was a body) and the download, each once.
    /// `downloaded` is this response's bytes; a resumed download's event adds the bytes on disk.
    func finish(uploaded: Int64?, downloaded: Int64) {
        if let uploaded { state.report(.upload, completed: uploaded, expected: uploaded, finished: true) }
        state.report(.download, completed: downloaded, expected: downloaded, finished: true)
    }
}

/// The last event of each direction, behind a lock. The handler runs under the lock too, so events
/// reach it in order whichever thread reports them.
final class ProgressState: Sendable {
    /// What download events count: the response's bytes as they are, or a resumed file's.
    private enum DownloadBase {
        /// The response's bytes (a full download).
        case none
        /// Waiting for the head of a resumed download; the latest event reported meanwhile.
        case held(latest: (completed: Int64, expected: Int64?)?)
        /// A resumed download: `offset` bytes were on disk, of `total` when known.
        case resumed(offset: Int64, total: Int64?)
    }

    private struct State {
        var last: [TransferProgress.Direction: (completed: Int64, finished: Bool)] = [:]
        var base = DownloadBase.none
    }

    private let handler: @Sendable (TransferProgress) -> Void
    private let state = LockedValue(State())

    init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
    }

    /// Forgets what was reported: a new attempt's events start from zero (a resumed download's
    /// held or resumed base stays: the attempt asks for the same range).
    func reset() {
        state.withLock { state in
            state.last = [:]
            if case .held = state.base { state.base = .held(latest: nil) }
        }
    }

    /// See ``ProgressReporter/holdDownload()``.
    func holdDownload() { state.withLock { $0.base = .held(latest: nil) } }

    /// See ``ProgressReporter/resumeDownload(from:total:)``.
    func resumeDownload(from offset: Int64, total: Int64?) {
        state.withLock { state in
            let held: (completed: Int64, expected: Int64?)?
            if case .held(let latest) = state.base { held = latest } else { held = nil }
            state.base = offset > 0 ? .resumed(offset: offset, total: total) : .none
            // The resumed call's first event: the bytes on disk (and any that arrived meanwhile).
            if offset > 0 || held != nil {
                report(
                    &state, .download, completed: held?.completed ?? 0,
                    expected: held.flatMap { $0.expected },
                    finished: false)
            }
        }
    }

    func report(_ direction: TransferProgress.Direction, completed: Int64, expected: Int64?, finished: Bool) {
        state.withLock { state in
            report(&state, direction, completed: completed, expected: expected, finished: finished)
        }
    }

    private func report(
        _ state: inout State, _ direction: TransferProgress.Direction, completed: Int64, expected: Int64?,
        finished: Bool
    ) {
        var completed = completed
        var expected = expected
        if direction == .download {
            switch state.base {
            case .none: break
            case .held:
                state.base = .held(latest: (completed, expected))
                return
            case .resumed(let offset, let total):
                // Saturating: a transport's number plus the offset cannot trap.
                completed = Self.sum(completed, offset)
                expected = total ?? expected.map { Self.sum($0, offset) }
            }
        }
        let previous = state.last[direction]
        if previous?.finished == true { return }
        let done = max(completed, previous?.completed ?? 0)
        let total = expected.map { max($0, done) }
        if !finished, let previous {
            // Throttle: a new event only for a step of at least 1/500 of the total (or 64 KiB).
            let step = max(64 * 1024, (total ?? 0) / 500)
            if done - previous.completed < step && done != total { return }
            if done == previous.completed { return }
        }
        state.last[direction] = (done, finished)
        handler(
            TransferProgress(
                direction: direction, completedBytes: done, expectedBytes: total, isFinished: finished))
    }

    /// `a + b`, at most `Int64.max`.
    private static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : value
    }
}
