import Foundation

/// The `text/event-stream` parser of the WHATWG HTML standard ("Server-sent events", §9.2.6,
/// "Interpreting an event stream"), fed bytes as they arrive. Pure: no I/O, no clock.
///
/// - Lines end at LF, CR or CRLF, also when the CR ends one chunk and the LF starts the next.
/// - One leading UTF-8 BOM is dropped; invalid UTF-8 becomes U+FFFD (per line, as the standard's
///   whole-stream decoding would, since line ends are ASCII).
/// - A blank line dispatches; `:` starts a comment; a field without a colon has an empty value; one
///   space after the colon is dropped; unknown fields are ignored; `id` with a NUL is ignored;
///   `retry` only as ASCII digits (milliseconds).
/// - The end of the stream discards an event without its blank line (``finish()``).
///
/// Bytes are handled as bytes until an event is dispatched, so an event costs its own strings and
/// nothing else: the partial line, data and type buffers keep their capacity between events.
///
/// ``Executor/events(reconnection:maximumEventSize:debug:)`` uses it; it is public for events that
/// arrive some other way (a WebSocket, a file, another HTTP client):
///
/// ```swift
/// var parser = EventStreamParser()
/// for try await chunk in chunks { try parser.consume(chunk) { event in print(event.data) } }
/// parser.finish()
/// ```
public struct EventStreamParser: Sendable {
    /// The longest event (its data, or one line) accepted, in bytes.
    public let maximumEventSize: Int

    /// The last event ID, committed at each dispatch (the standard's "last event ID string").
    public private(set) var lastEventID = ""
    /// The reconnection time the latest `retry:` set (milliseconds on the wire); `nil` until one
    /// does.
    public private(set) var reconnectionTime: Duration?

    private var idBuffer = ""
    private var idChanged = false
    private var data: [UInt8] = []
    private var type: [UInt8] = []
    private var retryInEvent: Duration?
    /// A line not ended yet (its bytes arrived in earlier chunks).
    private var partial: [UInt8] = []
    /// The previous chunk ended with CR: an LF starting this one ends nothing.
    private var afterCR = false
    /// Bytes of a possible BOM at the start of the stream (up to 3), until it is decided.
    private var head: [UInt8] = []
    private var atStart = true

    /// The longest `retry:` kept: the same clamp as every NetLayer timer.
    static let maximumRetry = Timeouts.maximum

    /// Creates a parser at the start of a stream.
    /// - Parameter maximumEventSize: The longest event data or line accepted, in bytes. Default
    ///   16 MiB; at least 1.
    public init(maximumEventSize: Int = 16 << 20) {
        self.maximumEventSize = max(1, maximumEventSize)
    }

    /// A new response on the same event source (a reconnection): buffers start empty, but the last
    /// event ID and the reconnection time carry over (as browsers keep them).
    public mutating func startNewStream() {
        idBuffer = lastEventID
        idChanged = false
        data.removeAll(keepingCapacity: true)
        type.removeAll(keepingCapacity: true)
        retryInEvent = nil
        partial.removeAll(keepingCapacity: true)
        afterCR = false
        head.removeAll()
        atStart = true
    }

    /// The end of the stream: an event without its closing blank line is discarded, as the
    /// standard says. The parser can then read a new stream (see ``startNewStream()``).
    public mutating func finish() {
        startNewStream()
    }

    /// Parses `chunk`, calling `emit` with each event completed in it.
    /// - Throws: Only ``NetLayerError``: `.responseTooLarge` when a line or an event's data grows past
    ///   ``maximumEventSize``.
    public mutating func consume(_ chunk: Data, _ emit: (ServerSentEvent) -> Void) throws {
        if chunk.isEmpty { return }
        if atStart {
            head.append(contentsOf: chunk)
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            let checked = min(head.count, 3)
            if head.prefix(checked).elementsEqual(bom.prefix(checked)) && head.count < 3 { return }
            atStart = false
            let rest = head.starts(with: bom) ? Array(head.dropFirst(3)) : head
            head = []
            try rest.withUnsafeBufferPointer { try scan($0, emit) }
            return
        }
        try chunk.withUnsafeBytes { raw in try scan(raw.bindMemory(to: UInt8.self), emit) }
    }

    /// Splits `bytes` into lines; the unfinished end is kept in ``partial``.
    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (ServerSentEvent) -> Void)
        throws
    {
        var index = 0
        let count = bytes.count
        if afterCR, count > 0 {
            afterCR = false
            if bytes[0] == 0x0A { index = 1 }
        }
        while index < count {
            var end = index
            while end < count, bytes[end] != 0x0A, bytes[end] != 0x0D { end += 1 }
            if end == count {
                if partial.count + (count - index) > maximumEventSize { throw tooLarge }
                partial.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<count]))
                return
            }
            if partial.isEmpty {
                if end - index > maximumEventSize { throw tooLarge }
                try line(UnsafeBufferPointer(rebasing: bytes[index..<end]), emit)
            } else {
                if partial.count + (end - index) > maximumEventSize { throw tooLarge }
                partial.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                // Swapped out rather than copied, so the buffer keeps its capacity.
                var whole: [UInt8] = []
                swap(&whole, &partial)
                defer {
                    whole.removeAll(keepingCapacity: true)
                    swap(&whole, &partial)
                }
                try whole.withUnsafeBufferPointer { line -> Void in try self.line(line, emit) }
            }
            if bytes[end] == 0x0D {
                if end + 1 == count {
                    afterCR = true
                } else if bytes[end + 1] == 0x0A {
                    end += 1
                }
            }
            index = end + 1
        }
    }

    private var tooLarge: NetLayerError {
        NetLayerError(.responseTooLarge, "an event of the stream is longer than \(maximumEventSize) bytes")
    }

    /// Processes one line (without its line end).
    private mutating func line(_ line: UnsafeBufferPointer<UInt8>, _ emit: (ServerSentEvent) -> Void)
        throws
    {
        if line.isEmpty { return dispatch(emit) }
        if line[0] == 0x3A { return }  // a comment
        var colon = 0
        while colon < line.count, line[colon] != 0x3A { colon += 1 }
        let name = UnsafeBufferPointer(rebasing: line[0..<colon])
        var valueStart = min(colon + 1, line.count)
        if valueStart < line.count, line[valueStart] == 0x20 { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: line[valueStart..<line.count])
        if Self.equals(name, "data") {
            if data.count + value.count > maximumEventSize { throw tooLarge }
            data.append(contentsOf: value)
            data.append(0x0A)
        } else if Self.equals(name, "event") {
            type.removeAll(keepingCapacity: true)
            type.append(contentsOf: value)
        } else if Self.equals(name, "id") {
            if !value.contains(0) {
                idBuffer = String(decoding: value, as: UTF8.self)
                idChanged = true
            }
        } else if Self.equals(name, "retry") {
            if let milliseconds = Self.digits(value) {
                let retry = Duration.milliseconds(milliseconds)
                reconnectionTime = retry
                retryInEvent = retry
            }
        }
    }

    /// A blank line: commits the last event ID, then emits the event if it has data.
    private mutating func dispatch(_ emit: (ServerSentEvent) -> Void) {
        if idChanged {
            lastEventID = idBuffer
            idChanged = false
        }
        defer {
            data.removeAll(keepingCapacity: true)
            type.removeAll(keepingCapacity: true)
            retryInEvent = nil
        }
        guard !data.isEmpty else { return }
        let text = data.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0.dropLast()), as: UTF8.self)
        }
        let name = type.isEmpty ? "message" : String(decoding: type, as: UTF8.self)
        emit(
            ServerSentEvent(
                id: lastEventID.isEmpty ? nil : lastEventID, event: name, data: text, retry: retryInEvent))
    }

    /// A field name compared byte for byte (field names are case-sensitive).
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return bytes.elementsEqual(expected)
    }

    /// ASCII digits only (at least one) as milliseconds, clamped to ``maximumRetry``.
    static func digits(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        let cap = maximumRetry.components.seconds * 1000
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = min(cap, value * 10 + Int64(byte - 0x30))
        }
        return value
    }
}
