import Foundation

/// A response body: a single-pass `AsyncSequence` of byte chunks.
///
/// A streaming body holds at most about ``BodyBuffer/defaultLimit`` bytes the consumer has not
/// taken yet; past that, the transport stops reading from the network until the consumer catches
/// up. When the consumer stops iterating (or the body is released unread), the transfer is
/// cancelled. Collecting into `Data` (``collect(upTo:)``) is one way to consume it.
public final class ResponseBody: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = Data

    /// The `Content-Length` the server announced, when it did.
    public let expectedLength: Int64?
    let source: Source
    private let claim = OnceFlag()

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
    public init<Chunks: AsyncSequence & Sendable>(chunks: Chunks, expectedLength: Int64? = nil)
    where Chunks.Element == Data {
        source = .sequence(SequenceSource(chunks))
        self.expectedLength = expectedLength
    }

    init(buffer: BodyBuffer, expectedLength: Int64?) {
        source = .buffer(buffer)
        self.expectedLength = expectedLength
    }

    deinit {
        // Released before the end: nobody will read the rest, so stop the transfer.
        if case .buffer(let buffer) = source { buffer.cancel() }
    }

    /// Starts reading. A second iterator throws ``NetLayerError/Code/bodyConsumed``.
    public func makeAsyncIterator() -> Iterator {
        Iterator(body: self, claimed: claim.take())
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
                throw NetLayerError(
                    .bodyConsumed, "the response body was already read; bodies are single-pass")
            }
            switch body.source {
            case .buffered(let data):
                if deliveredBuffered { return nil }
                deliveredBuffered = true
                return data.isEmpty ? nil : data
            case .buffer(let buffer):
                return try await buffer.next()
            case .sequence(let source):
                return try await source.next()
            }
        }
    }

    /// Stops the transfer; reading afterwards throws `CancellationError`. Safe to call more than
    /// once.
    public func cancel() {
        if case .buffer(let buffer) = source { buffer.cancel() }
    }

    /// Reads the whole body into memory.
    /// - Parameter limit: The most bytes accepted. Default `Int.max`.
    /// - Throws: ``NetLayerError/Code/responseTooLarge`` past `limit` (the transfer is cancelled),
    ///   or the transfer's error.
    public func collect(upTo limit: Int = .max) async throws -> Data {
        if case .buffered(let data) = source {
            guard claim.take() else {
                throw NetLayerError(
                    .bodyConsumed, "the response body was already read; bodies are single-pass")
            }
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

    private static func tooLarge(_ limit: Int) -> NetLayerError {
        NetLayerError(.responseTooLarge, "the response body is longer than \(limit) bytes")
    }
}

/// A flag that can be taken once (thread-safe).
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = false

    /// `true` the first time only.
    func take() -> Bool {
        lock.withLock {
            defer { taken = true }
            return !taken
        }
    }
}

/// Pulls from a type-erased sequence. Unchecked Sendable: the iterator is only used by the one
/// consumer the single-pass claim lets through, one `next()` at a time.
final class SequenceSource: @unchecked Sendable {
    private let nextChunk: () async throws -> Data?

    init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
        let box = IteratorBox(chunks.makeAsyncIterator())
        nextChunk = { try await box.next() }
    }

    func next() async throws -> Data? { try await nextChunk() }

    private final class IteratorBox<Iterator: AsyncIteratorProtocol> where Iterator.Element == Data {
        var iterator: Iterator
        init(_ iterator: Iterator) { self.iterator = iterator }
        func next() async throws -> Data? { try await iterator.next() }
    }
}
