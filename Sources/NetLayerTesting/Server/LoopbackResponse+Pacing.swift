import Foundation

extension LoopbackResponse {
    /// How a response body is paced: the head goes out at once, then the body in pieces, for
    /// testing idle timeouts, progress and streaming readers.
    ///
    /// ```swift
    /// server.route("/slow") { _ in
    ///     LoopbackResponse.text("0123456789").dripped(.init(pieceSize: 2, interval: .milliseconds(100)))
    /// }
    /// ```
    public struct Drip: Sendable, Equatable {
        /// Bytes per piece (the last piece may be shorter), at least 1. Ignored when
        /// ``pieceLengths`` is set.
        public var pieceSize: Int
        /// Explicit piece lengths, in order; any remainder of the body becomes one last piece.
        public var pieceLengths: [Int]?
        /// The pause after the head, before the first piece.
        public var initialPause: Duration
        /// The pause between two pieces.
        public var interval: Duration

        /// Pieces of equal size.
        /// - Parameters:
        ///   - pieceSize: Default 1; less than 1 counts as 1.
        ///   - interval: The pause between two pieces.
        ///   - initialPause: Default none.
        public init(pieceSize: Int = 1, interval: Duration, initialPause: Duration = .zero) {
            self.pieceSize = max(1, pieceSize)
            self.pieceLengths = nil
            self.initialPause = initialPause
            self.interval = interval
        }

        /// Pieces of the given lengths (for example one server-sent event each).
        /// - Parameters:
        ///   - pieceLengths: The lengths, in order; negative counts as 0.
        ///   - interval: The pause between two pieces.
        ///   - initialPause: Default none.
        public init(pieceLengths: [Int], interval: Duration, initialPause: Duration = .zero) {
            self.pieceSize = 1
            self.pieceLengths = pieceLengths
            self.initialPause = initialPause
            self.interval = interval
        }

        /// Splits `body` into the pieces to send.
        func pieces(of body: Data) -> [Data] {
            var pieces: [Data] = []
            var offset = body.startIndex
            if let pieceLengths {
                for length in pieceLengths where offset < body.endIndex {
                    // Compared before adding: `offset + length` overflows for a length near Int.max.
                    let end =
                        max(0, length) >= body.endIndex - offset ? body.endIndex : offset + max(0, length)
                    pieces.append(body.subdata(in: offset..<end))
                    offset = end
                }
                if offset < body.endIndex { pieces.append(body.subdata(in: offset..<body.endIndex)) }
                return pieces
            }
            while offset < body.endIndex {
                let end =
                    max(1, pieceSize) >= body.endIndex - offset ? body.endIndex : offset + max(1, pieceSize)
                pieces.append(body.subdata(in: offset..<end))
                offset = end
            }
            return pieces
        }
    }

    /// A response body produced piece by piece while it is written, so it is never held whole (a
    /// download of gigabytes, an endless event stream). Each piece is sent as soon as it is made;
    /// with ``LoopbackResponse/chunked``, one chunk per piece.
    public struct StreamedBody: Sendable {
        /// How far the writer got: ``writing`` after each piece sent, then exactly one of the others.
        public enum State: Sendable, Equatable {
            /// Some pieces are sent; more follow.
            case writing
            /// Every byte was sent.
            case finished
            /// Stopped early: ``interruptAfter`` was reached, the client went away or the server
            /// stopped.
            case cut
        }

        /// The full body length, announced in `Content-Length` unless the response is chunked.
        public var length: Int64
        /// Makes the body bytes at offsets `range`; called for consecutive ranges of at most
        /// ``pieceSize`` bytes, on the connection's thread. Return exactly `range.count` bytes: a
        /// shorter piece is sent and then the connection is closed, as with ``interruptAfter`` (the
        /// client sees a short body, never a stalled one).
        public var bytes: @Sendable (_ range: Range<Int64>) -> Data
        /// The most bytes per piece. Default 256 KiB.
        public var pieceSize: Int = 256 << 10
        /// The pause between two pieces (the server watches for the client hanging up meanwhile).
        /// Default none.
        public var pause: Duration = .zero
        /// Send only this many body bytes, then close the connection (the client sees a short
        /// body). Default `nil`: send everything.
        public var interruptAfter: Int64?
        /// Told the body bytes written so far: ``State/writing`` after every piece sent, then once
        /// more at the end (a HEAD or no-body response ends ``State/finished`` with 0). Runs on the
        /// connection's thread. Default `nil`.
        public var progress: (@Sendable (_ bytesWritten: Int64, _ state: State) -> Void)?

        /// Creates a streamed body.
        /// - Parameters:
        ///   - length: The full length in bytes.
        ///   - bytes: Makes the bytes of a range of offsets.
        public init(length: Int64, bytes: @escaping @Sendable (_ range: Range<Int64>) -> Data) {
            self.length = length
            self.bytes = bytes
        }
    }
}
