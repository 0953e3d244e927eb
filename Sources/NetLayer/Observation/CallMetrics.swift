import Foundation

/// Where a call's time went: its admission waits and its attempts, measured by NetLayer itself on
/// every platform (Linux URLSession never delivers `URLSessionTaskMetrics`). Carried by
/// ``Response/metrics``, ``Download/metrics``, ``NetLayerError/metrics`` and
/// ``CallFinished/metrics``; recorded whether or not an observer is installed.
///
/// Offsets count from ``start``. Decoding the body is not part of the call.
public struct CallMetrics: Sendable, Hashable, CustomStringConvertible {
    /// When the call started.
    public let start: ContinuousClock.Instant
    /// From the start to the call's end (or to when these metrics were taken, for a call not yet
    /// ended): the same span ``Response/duration`` covers.
    public internal(set) var duration: Duration
    /// Every wait for admission, in order.
    public internal(set) var admissionWaits: [AdmissionWait]
    /// Every attempt, in order (see ``AttemptStarted/number``).
    public var attempts: [AttemptMetrics] { earlierAttempts + (lastAttempt.map { [$0] } ?? []) }

    /// All attempts but the last (empty for a call of one attempt: no allocation).
    var earlierAttempts: [AttemptMetrics] = []
    /// The latest attempt.
    var lastAttempt: AttemptMetrics?

    init(start: ContinuousClock.Instant) {
        self.start = start
        duration = .zero
        admissionWaits = []
    }

    /// The sum of ``admissionWaits``.
    public var admissionTime: Duration { admissionWaits.reduce(.zero) { $0 + $1.duration } }

    /// From the call's start to the head of its last attempt, when one arrived.
    public var timeToFirstByte: Duration? {
        guard let last = lastAttempt, let ttfb = last.timeToFirstByte else { return nil }
        return last.start + ttfb
    }

    /// `1 attempt · 12.3 ms` and one line per wait and attempt.
    public var description: String {
        let all = attempts
        var lines = ["\(all.count) attempt\(all.count == 1 ? "" : "s") · \(duration.formattedSeconds)"]
        lines += admissionWaits.map { "  wait \($0)" }
        lines += all.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// One attempt of a call, as ``CallMetrics`` records it.
public struct AttemptMetrics: Sendable, Hashable, CustomStringConvertible {
    /// Which attempt, from 1.
    public let number: Int
    /// Why it was sent.
    public let reason: AttemptReason
    /// When it started (after admission), from the call's start.
    public let start: Duration
    /// From its start to its response head; `nil` when none arrived.
    public internal(set) var timeToFirstByte: Duration?
    /// From its start to its end (or to when the metrics were taken, while it runs).
    public internal(set) var duration: Duration
    /// How it ended; `nil` while it runs.
    public internal(set) var end: AttemptEnd?
    /// Why it failed, for ``AttemptEnd/failed``.
    public internal(set) var errorCode: NetLayerError.Code?
    /// Its response's status, when a head arrived.
    public internal(set) var statusCode: Int?
    /// The request body's length.
    public let bytesSent: Int64
    /// Response body bytes received.
    public internal(set) var bytesReceived: Int64

    /// `#2 retry after 503: 200 · ttfb 3.1 ms · 14.2 ms · 0 ↑ 87 ↓ · completed`.
    public var description: String {
        var text = "#\(number) \(reason):"
        if let statusCode { text += " \(statusCode)" }
        if let timeToFirstByte { text += " · ttfb \(timeToFirstByte.formattedSeconds)" }
        text += " · \(duration.formattedSeconds) · \(bytesSent) ↑ \(bytesReceived) ↓"
        if let end { text += " · \(end)" }
        if let errorCode { text += " (\(errorCode))" }
        return text
    }
}
