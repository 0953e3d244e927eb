import Foundation

/// Reads an opened call's body for a stream; maps errors and ends progress. Unchecked Sendable:
/// the iterator is used by the stream's one consumer (the iterator that claimed the stream), one
/// `next()` at a time; `state` is a ``LockedValue``, as ``stop()`` may run on another thread.
final class BodyReader: @unchecked Sendable {
    private let call: OpenedCall
    /// Called once when the stream ends, however it ends (``Executor/progressUpdates()``).
    private let ended: (@Sendable () -> Void)?
    private var iterator: ResponseBody.Iterator
    private var received: Int64 = 0
    private let state = LockedValue(State.reading)

    private enum State: Sendable {
        case reading
        /// Read to the end, or failed with an error already thrown.
        case ended
        /// Stopped before its end (``stop()``): the rest of the body is not read.
        case stopped
    }

    init(call: OpenedCall, ended: (@Sendable () -> Void)?) {
        self.call = call
        self.ended = ended
        iterator = call.body.makeAsyncIterator()
    }

    deinit { stop() }

    /// The consumer stopped: stop the transfer (a no-op after the end). The call ends well: the
    /// consumer had what it wanted.
    func stop() {
        call.body.cancel()
        let wasReading = state.withLock { state in
            defer { if state == .reading { state = .stopped } }
            return state == .reading
        }
        if wasReading {
            call.succeeded()
            ended?()
        }
    }

    /// The call's metrics so far (final once the stream ended).
    var metrics: CallMetrics { call.record.metrics }

    /// A reader of the body failed with `failure` (a line too long): the call ends with it (the
    /// transfer stops when the consumer stops). - Returns: `failure` with the call's metrics.
    func failing(_ failure: NetLayerError) -> NetLayerError { call.ending(failure) }

    /// Marks the end; true when this call ended it.
    private func end() -> Bool {
        state.withLock { state in
            defer { if state == .reading { state = .ended } }
            return state == .reading
        }
    }

    /// The next chunk; `nil` at the end, and again after it.
    /// - Throws: The call's error; `.cancelled` once the stream was stopped before its end, so
    ///   that a reader never takes a truncated body for a whole one.
    func next() async throws(NetLayerError) -> Data? {
        switch state.withLock({ $0 }) {
        case .reading: break
        case .ended: return nil
        case .stopped:
            throw NetLayerError(.cancelled, "the response stream was stopped before its end")
        }
        do {
            guard let chunk = try await iterator.next() else {
                if end() {
                    call.succeeded()
                    call.progress?.finish(uploaded: call.request.body?.length, downloaded: received)
                    ended?()
                }
                return nil
            }
            received += Int64(chunk.count)
            return chunk
        } catch {
            if end() { ended?() }
            throw call.failure(error)
        }
    }
}

/// Counts lines for error messages.
final class LineCounter: Sendable {
    private let count = LockedValue(0)
    /// The next line's number, from 1.
    func advance() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

/// Splits a body into lines. Unchecked Sendable: used by one consumer, one `next()` at a time.
final class LineReader: @unchecked Sendable {
    private let reader: BodyReader
    private let maximumLength: Int
    private var pending: [UInt8] = []
    /// Where the next line starts in `pending`.
    private var start = 0
    /// Where the search for LF resumes (bytes before it hold none).
    private var searchFrom = 0
    private var ended = false

    private var tooLong: NetLayerError {
        NetLayerError(.responseTooLarge, "a line of the response is longer than \(maximumLength) bytes")
    }

    init(reader: BodyReader, maximumLength: Int) {
        self.reader = reader
        self.maximumLength = maximumLength
    }

    func next() async throws(NetLayerError) -> String? {
        while true {
            if let newline = pending[max(start, searchFrom)...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start && pending[end - 1] == 0x0D { end -= 1 }
                if end - start > maximumLength { throw reader.failing(tooLong) }
                let line = String(decoding: pending[start..<end], as: UTF8.self)
                start = newline + 1
                searchFrom = start
                return line
            }
            searchFrom = pending.count
            // One byte of room for a CR whose LF has not arrived yet.
            if pending.count - start - 1 > maximumLength { throw reader.failing(tooLong) }
            if ended {
                guard pending.count > start else { return nil }
                if pending.count - start > maximumLength { throw reader.failing(tooLong) }
                let line = String(decoding: pending[start...], as: UTF8.self)
                start = pending.count
                return line
            }
            guard let chunk = try await reader.next() else {
                ended = true
                continue
            }
            if start > 0 {
                pending.removeFirst(start)
                searchFrom -= start
                start = 0
            }
            pending.append(contentsOf: chunk)
        }
    }
}

/// The chunks or lines of a response body as they arrive: a single-pass `AsyncSequence`.
///
/// One iterator reads the stream: the first one made. Any later iterator — from another task, or
/// a second loop after the first — throws ``NetLayerError/Code/bodyConsumed`` from its `next()`,
/// as a ``ResponseBody`` read twice does, and never disturbs the first one.
///
/// Ending the loop early — `break`, an error, the task's cancellation — cancels the transfer at
/// once, even while the stream value is still held (an `AsyncThrowingStream` would keep its producer
/// until the stream itself is released). An iterator kept after the stream was stopped before its
/// end throws ``NetLayerError/Code/cancelled``, never a silent end; after the real end it returns
/// `nil`.
public struct ResponseStream<Element: Sendable>: AsyncSequence, Sendable {
    private let nextElement: @Sendable () async throws -> Element?
    private let stop: @Sendable () -> Void
    /// Whether an iterator took the stream: a handle every copy of the stream shares, locked once
    /// per iterator made (reading an element takes no lock of its own here).
    private let claimed = LockedValue(false)

    init(next: @escaping @Sendable () async throws -> Element?, stop: @escaping @Sendable () -> Void) {
        self.nextElement = next
        self.stop = stop
    }

    /// Starts reading. A stream is read once: a second iterator throws
    /// ``NetLayerError/Code/bodyConsumed`` from `next()`, and dropping it changes nothing.
    public func makeAsyncIterator() -> Iterator {
        let isFirst = claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
        guard isFirst else { return Iterator(lifetime: nil) }
        return Iterator(lifetime: IteratorLifetime(next: nextElement, stop: stop))
    }

    /// Reads the next element; dropping the iterator that reads the stream cancels the transfer.
    public struct Iterator: AsyncIteratorProtocol {
        /// `nil` for an iterator made after the first: it reads nothing and stops nothing.
        let lifetime: IteratorLifetime<Element>?

        /// The next element; `nil` at the end.
        /// - Throws: ``NetLayerError``: `.bodyConsumed` from an iterator that is not the stream's
        ///   first; `.cancelled` once the stream was stopped before its end; the call's errors.
        public mutating func next() async throws -> Element? {
            guard let lifetime else {
                throw NetLayerError(
                    .bodyConsumed,
                    "the response stream is already read by another iterator; streams are single-pass")
            }
            return try await lifetime.next()
        }
    }
}

/// Stops the transfer when the iterator that owns it goes away.
final class IteratorLifetime<Element: Sendable>: Sendable {
    let next: @Sendable () async throws -> Element?
    private let stop: @Sendable () -> Void

    init(next: @escaping @Sendable () async throws -> Element?, stop: @escaping @Sendable () -> Void) {
        self.next = next
        self.stop = stop
    }

    deinit { stop() }
}
