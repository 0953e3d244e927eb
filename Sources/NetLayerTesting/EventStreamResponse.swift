import Foundation
import NetLayer

/// Why ``ScriptedResponse/eventStream(_:status:)`` cannot write an event: the text/event-stream
/// format has no way to carry the value, and sending something else would test something else.
public struct EventStreamEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The position of the event in the list, from 0.
    public let index: Int
    /// What cannot be written.
    public let reason: String

    /// `event 2: the id holds a line break`.
    public var description: String { "event \(index): \(reason)" }
}

extension ScriptedResponse {
    /// A `text/event-stream` response (`Content-Type: text/event-stream`, `Cache-Control: no-cache`)
    /// whose body is `events`, in order, written as the WHATWG HTML standard's server-sent events
    /// format reads them back:
    ///
    /// - `id: <id>` when ``ServerSentEvent/id`` is set (an empty one resets the last event ID);
    /// - `event: <type>` unless the type is `message`, which is what a reader assumes without it;
    /// - one `data: <line>` per line of ``ServerSentEvent/data`` (split at LF, CRLF and CR, which a
    ///   reader joins back with LF, so `"a\r\nb"` arrives as `"a\nb"`); an empty data is one `data:`;
    /// - `retry: <milliseconds>` when ``ServerSentEvent/retry`` is set (whole milliseconds, rounded
    ///   down; longer than `Int64.max` milliseconds is written as that);
    /// - an empty line, which dispatches the event.
    ///
    /// Lines end with LF; the body is UTF-8. A reader keeps the last `id` for later events that set
    /// none, so an event after one with an id arrives with that id. The response ends after the last
    /// event (NetLayer's `events()` ends there too unless it reconnects); on a ``LoopbackResponse``,
    /// `.dripped(_:)` spaces the events out.
    ///
    /// ```swift
    /// stub.on(.get, "/v1/feed", try .eventStream([
    ///     ServerSentEvent(id: "1", data: "hello"),
    ///     ServerSentEvent(id: "2", event: "update", data: "line one\nline two", retry: .seconds(5)),
    /// ]))
    /// ```
    /// - Parameters:
    ///   - events: The events, in order.
    ///   - status: Default 200.
    /// - Throws: ``EventStreamEncodingError`` for an `id` holding a line break or a NUL (a reader
    ///   would split it or ignore it), an event type holding a line break, or a negative `retry`.
    public static func eventStream(_ events: [ServerSentEvent], status: Int = 200)
        throws(EventStreamEncodingError) -> Self
    {
        var text = ""
        for (index, event) in events.enumerated() {
            text += try EventStreamText.encode(event, index: index)
        }
        return Self(
            status: status, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            body: Data(text.utf8))
    }
}

/// The writing behind ``ScriptedResponse/eventStream(_:status:)``.
enum EventStreamText {
    /// One event's lines, ending with the empty line that dispatches it.
    static func encode(_ event: ServerSentEvent, index: Int) throws(EventStreamEncodingError) -> String {
        var text = ""
        if let id = event.id {
            if id.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
                throw EventStreamEncodingError(index: index, reason: "the id holds a line break")
            }
            if id.unicodeScalars.contains("\0") {
                throw EventStreamEncodingError(
                    index: index, reason: "the id holds a NUL, which readers ignore")
            }
            text += field("id", id)
        }
        if event.event != "message" {
            if event.event.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
                throw EventStreamEncodingError(index: index, reason: "the event type holds a line break")
            }
            text += field("event", event.event)
        }
        for line in lines(event.data) { text += field("data", line) }
        if let retry = event.retry {
            guard retry >= .zero else {
                throw EventStreamEncodingError(index: index, reason: "retry \(retry) is negative")
            }
            text += field("retry", String(milliseconds(retry)))
        }
        return text + "\n"
    }

    /// `name: value` (one space, which a reader removes), or `name:` for an empty value.
    private static func field(_ name: String, _ value: String) -> String {
        value.isEmpty ? "\(name):\n" : "\(name): \(value)\n"
    }

    /// `text` split at LF, CRLF and CR; `[""]` for empty text.
    static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n", afterCR {
                afterCR = false
                continue
            }
            afterCR = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                lines.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        lines.append(String(current))
        return lines
    }

    /// Whole milliseconds, rounded down, at most `Int64.max`.
    private static func milliseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        let (whole, overflow) = parts.seconds.multipliedReportingOverflow(by: 1000)
        let (sum, overflowSum) = whole.addingReportingOverflow(parts.attoseconds / 1_000_000_000_000_000)
        return overflow || overflowSum ? Int64.max : sum
    }
}
