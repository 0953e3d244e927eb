import Foundation

/// A response body: a single-pass `AsyncSequence` of byte chunks.
///
/// A body streamed by ``URLSessionTransport`` holds at most its `bufferLimit` (1 MiB by default)
/// in memory that the consumer has not taken yet; past that, the task is paused (Apple platforms)
/// or the surplus goes to a temporary file (Linux, where URLSession cannot pause a task). When the
/// consumer stops iterating (or the body is released unread), the transfer is cancelled. Collecting into `Data` (``collect(upTo:)``) is one way to consume it.
public final class ResponseBody: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = Data

    /// The `Content-Length` the server announced, when it did.
    public let expectedLength: Int64?
    let source: Source
    /// Whether an iterator, `collect` or `drain` took the body, and what runs once when the body
    /// ends, fails, is cancelled or is released (a concurrency slot). One box for both: every
    /// call makes a body, and each box is an allocation.
    private let state = LockedValue(State())

    private struct State: Sendable {
        var claimed = false
        var finish: (@Sendable () -> Void)?
        /// The body is done with: an action registered from now on runs at once.
        var isFinished = false
    }

    enum Source: Sendable {
        case buffered(Data)
        case buffer(BodyBuffer)
        case sequence(SequenceSource)
    }

    /// A body that is already in memory.
    public init(_ data: Data) {
        source = .buffered(data)
        expectedLength = Int64(data.count)
    }

    /// A body read from any sequence of chunks (a custom transport's stream). It is pulled as the
    /// consumer reads, so it is never buffered.
    /// - Parameters:
    ///   - chunks: The chunks; iterated once.
    ///   - expectedLength: Default `nil` (unknown).
    ///   - onCancel: Called once, from any thread, when the body is abandoned before its end: the
    ///     consumer cancelled it (breaking out of a `stream()` loop does), or it was released
    ///     unread. Stop the transfer there. Default `nil`.
    public init<Chunks: AsyncSequence & Sendable>(
        chunks: Chunks, expectedLength: Int64? = nil, onCancel: (@Sendable () -> Void)? = nil
    ) where Chunks.Element == Data {
        source = .sequence(SequenceSource(chunks, onCancel: onCancel))
        self.expectedLength = expectedLength
    }

    init(buffer: BodyBuffer, expectedLength: Int64?) {
        source = .buffer(buffer)
        self.expectedLength = expectedLength
    }

    deinit {
        // Released before the end: nobody will read the rest, so stop the transfer.
        cancel()
    }

    /// Whether the whole body is already in memory.
    var isInMemory: Bool {
        if case .buffered = source { return true }
        return false
    }

    /// Runs `action` once when the body is done with: read to the end, failed, cancelled or
    /// released. A body already in memory, or already done with, runs it at once.
    func whenFinished(_ action: @escaping @Sendable () -> Void) {
        if case .buffered = source {
            action()
            return
        }
        let runsNow = state.withLock { state in
            if state.isFinished { return true }
            let previous = state.finish
            state.finish = {
                previous?()
                action()
            }
            return false
        }
        if runsNow { action() }
    }

    /// Runs the finish action, once.
    func finished() {
        let action = state.withLock { state in
            let action = state.finish
            state.finish = nil
            state.isFinished = true
            return action
        }
        action?()
    }

    /// `true` for the first reader only.
    private func takeClaim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    /// Starts reading. A second iterator throws ``NetLayerError/Code/bodyConsumed``.
    public func makeAsyncIterator() -> Iterator {
        Iterator(body: self, claimed: takeClaim())
    }

    /// Reads the next chunk.
    public struct Iterator: AsyncIteratorProtocol {
        let body: ResponseBody
        let claimed: Bool
        private var deliveredBuffered = false

        init(body: ResponseBody, claimed: Bool) {
            self.body = body
            self.claimed = claimed
        }

        /// The next chunk; `nil` at the end of the body.
        /// - Throws: ``NetLayerError``, `URLError` or `CancellationError` from the transfer.
        public mutating func next() async throws -> Data? {
            guard claimed else {
                throw ResponseBody.alreadyRead
            }
            switch body.source {
            case .buffered(let data):
                if deliveredBuffered { return nil }
                deliveredBuffered = true
                return data.isEmpty ? nil : data
            case .buffer(let buffer):
                return try await body.ended { try await buffer.next() }
            case .sequence(let source):
                return try await body.ended { try await source.next() }
            }
        }
    }

    /// Stops the transfer; reading afterwards throws `CancellationError`. Safe to call more than
    /// once.
    public func cancel() {
        switch source {
        case .buffered: break
        case .buffer(let buffer): buffer.cancel()
        case .sequence(let sequence): sequence.cancel()
        }
        finished()
    }

    /// Reads a chunk and runs the finish action at the end or on an error.
    private func ended(_ read: () async throws -> Data?) async throws -> Data? {
        do {
            let chunk = try await read()
            if chunk == nil { finished() }
            return chunk
        } catch {
            finished()
            throw error
        }
    }

    /// Hands every chunk to `sink` until the end. A body streamed by ``URLSessionTransport`` calls
    /// it on the transport's own thread as each chunk arrives (no hop to the caller's task per
    /// chunk), so `sink` must be quick and must not block on the caller.
    /// - Throws: ``NetLayerError/Code/bodyConsumed`` when already read, the transfer's error or the
    ///   sink's (the transfer is then cancelled).
    func drain(into sink: @escaping @Sendable (Data) throws -> Void) async throws {
        guard case .buffer(let buffer) = source else {
            for try await chunk in self {
                do { try sink(chunk) } catch {
                    cancel()
                    throw error
                }
            }
            return
        }
        guard takeClaim() else {
            throw Self.alreadyRead
        }
        _ = try await ended {
            try await buffer.drain(into: sink)
            return nil
        }
    }

    /// The whole body at once when it is already in memory (claiming it), `nil` when it streams.
    /// - Throws: ``NetLayerError/Code/bodyConsumed`` when it was read before.
    func takeBuffered() throws(NetLayerError) -> Data? {
        guard case .buffered(let data) = source else { return nil }
        guard takeClaim() else {
            throw Self.alreadyRead
        }
        return data
    }

    /// Reads the whole body into memory.
    /// - Parameter limit: The most bytes accepted, from 0 (only an empty body). Default `Int.max`.
    /// - Throws: ``NetLayerError/Code/invalidValue`` for a negative `limit`, before anything is
    ///   read (the body is still unread); ``NetLayerError/Code/responseTooLarge`` past `limit`
    ///   (the transfer is cancelled); ``NetLayerError/Code/bodyConsumed`` when it was read before;
    ///   or the transfer's error.
    public func collect(upTo limit: Int = .max) async throws -> Data {
        guard limit >= 0 else {
            throw NetLayerError.invalidValue(
                part: "limit", reason: "a body cannot be collected up to \(limit) bytes; use 0 or more")
        }
        if let data = try takeBuffered() {
            if data.count > limit { throw Self.tooLarge(limit) }
            return data
        }
        var data = Data()
        if let expectedLength, expectedLength <= Int64(Swift.min(limit, 64 << 20)) {
            data.reserveCapacity(Int(expectedLength))
        }
        for try await chunk in self {
            if chunk.count > limit - data.count {
                cancel()
                throw Self.tooLarge(limit)
            }
            data.append(chunk)
        }
        return data
    }

    /// The error of a second read: bodies are single-pass.
    private static var alreadyRead: NetLayerError {
        NetLayerError(.bodyConsumed, "the response body was already read; bodies are single-pass")
    }

    private static func tooLarge(_ limit: Int) -> NetLayerError {
        NetLayerError(.responseTooLarge, "the response body is longer than \(limit) bytes")
    }
}

/// Pulls from a type-erased sequence. Unchecked Sendable: the iterator (inside `nextChunk`, not
/// `Sendable`) is only used by the one consumer the single-pass claim lets through, one `next()` at
/// a time; `state` is a ``LockedValue`` (``cancel()`` may come from any thread).
final class SequenceSource: @unchecked Sendable {
    private let nextChunk: () async throws -> Data?
    private let onCancel: (@Sendable () -> Void)?
    private let state = LockedValue(State.open)

    private enum State { case open, ended, cancelled }

    init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, onCancel: (@Sendable () -> Void)?)
    where Chunks.Element == Data {
        let box = IteratorBox(chunks.makeAsyncIterator())
        nextChunk = { try await box.next() }
        self.onCancel = onCancel
    }

    func next() async throws -> Data? {
        switch state.withLock({ $0 }) {
        case .ended: return nil
        case .cancelled: throw CancellationError()
        case .open: break
        }
        do {
            let chunk = try await nextChunk()
            if chunk == nil { state.withLock { if $0 == .open { $0 = .ended } } }
            return chunk
        } catch {
            state.withLock { if $0 == .open { $0 = .ended } }
            throw error
        }
    }

    /// Abandons the sequence: calls `onCancel` once, unless it already ended.
    func cancel() {
        let wasOpen = state.withLock { state in
            defer { if state == .open { state = .cancelled } }
            return state == .open
        }
        if wasOpen { onCancel?() }
    }

    private final class IteratorBox<Iterator: AsyncIteratorProtocol> where Iterator.Element == Data {
        var iterator: Iterator
        init(_ iterator: Iterator) { self.iterator = iterator }
        func next() async throws -> Data? { try await iterator.next() }
    }
}
