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
        /// The attempt this body belongs to, told how and when the body ends (see ``BodyTap``).
        var tap: BodyTap?
        /// How the body ended, for a tap attached afterwards.
        var ending: BodyEnding?
        /// Bytes handed to the reader, counted only while a tap is attached.
        var received: Int64 = 0
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

    /// The length of a body already whole in memory; `nil` when it streams.
    var bufferedCount: Int? {
        if case .buffered(let data) = source { return data.count }
        return nil
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

    /// Tells `tap` how and when the body ends (read to the end, failed, cancelled or released),
    /// with the bytes read; a body already in memory, or already done with, tells it at once.
    /// One tap per body (the pipeline's, for the attempt that received it).
    func observe(_ tap: BodyTap) {
        if case .buffered(let data) = source {
            tap.ended(.completed, received: Int64(data.count))
            return
        }
        let ended: (BodyEnding, Int64)? = state.withLock { state in
            if state.isFinished { return (state.ending ?? .cancelled, state.received) }
            state.tap = tap
            return nil
        }
        if let (ending, received) = ended { tap.ended(ending, received: received) }
    }

    /// Runs the finish action and tells the tap, once.
    func finished(_ ending: BodyEnding = .cancelled) {
        let (action, tap, received) = state.withLock { state in
            let action = state.finish
            let tap = state.isFinished ? nil : state.tap
            state.finish = nil
            state.tap = nil
            if !state.isFinished { state.ending = ending }
            state.isFinished = true
            return (action, tap, state.received)
        }
        action?()
        tap?.ended(ending, received: received)
    }

    /// `true` for the first reader only; `counts`: a tap wants the bytes counted.
    private func takeClaim() -> (claimed: Bool, counts: Bool) {
        state.withLock { state in
            defer { state.claimed = true }
            return (!state.claimed, state.tap != nil)
        }
    }

    /// Adds `count` bytes read to the tap's count.
    private func count(_ count: Int) {
        state.withLock { $0.received += Int64(count) }
    }

    /// Starts reading. A second iterator throws ``NetLayerError/Code/bodyConsumed``.
    public func makeAsyncIterator() -> Iterator {
        let claim = takeClaim()
        return Iterator(body: self, claimed: claim.claimed, counts: claim.counts)
    }

    /// Reads the next chunk.
    public struct Iterator: AsyncIteratorProtocol {
        let body: ResponseBody
        let claimed: Bool
        /// Whether a tap counts the bytes read (set for bodies the pipeline received).
        let counts: Bool
        private var deliveredBuffered = false

        init(body: ResponseBody, claimed: Bool, counts: Bool) {
            self.body = body
            self.claimed = claimed
            self.counts = counts
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
                let chunk = try await body.ended { try await buffer.next() }
                if counts, let chunk { body.count(chunk.count) }
                return chunk
            case .sequence(let source):
                let chunk = try await body.ended { try await source.next() }
                if counts, let chunk { body.count(chunk.count) }
                return chunk
            }
        }
    }

    /// Stops the transfer; reading afterwards throws `CancellationError`. Safe to call more than
    /// once.
    public func cancel() { cancel(.cancelled) }

    /// Stops the transfer; its tap hears `ending` (a limit NetLayer enforces is a failure).
    func cancel(_ ending: BodyEnding) {
        switch source {
        case .buffered: break
        case .buffer(let buffer): buffer.cancel()
        case .sequence(let sequence): sequence.cancel()
        }
        finished(ending)
    }

    /// Reads a chunk and runs the finish action at the end or on an error.
    private func ended(_ read: () async throws -> Data?) async throws -> Data? {
        do {
            let chunk = try await read()
            if chunk == nil { finished(.completed) }
            return chunk
        } catch {
            finished(.failed(NetLayerError.Code.of(error)))
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
        let claim = takeClaim()
        guard claim.claimed else {
            throw Self.alreadyRead
        }
        var counted = sink
        if claim.counts {
            counted = { [unowned self] chunk in
                try sink(chunk)
                self.count(chunk.count)
            }
        }
        _ = try await ended { [counted] in
            try await buffer.drain(into: counted)
            return nil
        }
    }

    /// The whole body at once when it is already in memory (claiming it), `nil` when it streams.
    /// - Throws: ``NetLayerError/Code/bodyConsumed`` when it was read before.
    func takeBuffered() throws(NetLayerError) -> Data? {
        guard case .buffered(let data) = source else { return nil }
        guard takeClaim().claimed else {
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
                cancel(.failed(.responseTooLarge))
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

/// How a response body ended, as its ``BodyTap`` hears it.
enum BodyEnding: Sendable, Equatable {
    /// Read to the end.
    case completed
    /// Reading failed with an error of this kind.
    case failed(NetLayerError.Code)
    /// Cancelled or released before the end.
    case cancelled
}

/// Who hears how a body the pipeline received ends: the attempt that received it. A value (the
/// call's record and a number), so tapping a body allocates nothing.
struct BodyTap: Sendable {
    let record: AttemptRecord
    let attempt: Int

    func ended(_ ending: BodyEnding, received: Int64) {
        record.attemptEnded(attempt, ending, received: received)
    }
}
