import Foundation

@testable import NetLayer

/// How a response body is paced: the head goes out at once, then the body in pieces.
struct TestDrip: Sendable, Equatable {
    /// Bytes per piece (the last piece may be shorter). Ignored when `pieceLengths` is set.
    var pieceSize: Int
    /// Explicit piece lengths, in order; any remainder of the body becomes one last piece.
    var pieceLengths: [Int]?
    /// Pause after the head, before the first piece.
    var initialPause: Duration
    /// Pause between two pieces.
    var interval: Duration

    init(pieceSize: Int = 1, interval: Duration, initialPause: Duration = .zero) {
        self.pieceSize = max(1, pieceSize)
        self.pieceLengths = nil
        self.initialPause = initialPause
        self.interval = interval
    }

    init(pieceLengths: [Int], interval: Duration, initialPause: Duration = .zero) {
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
                let end = min(body.endIndex, offset + max(0, length))
                pieces.append(body.subdata(in: offset..<end))
                offset = end
            }
            if offset < body.endIndex { pieces.append(body.subdata(in: offset..<body.endIndex)) }
            return pieces
        }
        while offset < body.endIndex {
            let end = min(body.endIndex, offset + pieceSize)
            pieces.append(body.subdata(in: offset..<end))
            offset = end
        }
        return pieces
    }
}

/// A response body produced piece by piece while it is written, so it is never held whole (see
/// `TestResponse.streamedBody`). Each piece is sent as soon as it is made; with `chunked`, one chunk
/// per piece.
struct TestStreamedBody: Sendable {
    /// How far the writer got. `.writing` after each piece sent, then exactly one of the others.
    enum State: Sendable, Equatable {
        case writing
        /// Every byte was sent.
        case finished
        /// Stopped early: `interruptAfter` was reached, the peer went away or the server stopped.
        case cut
    }

    /// The full body length (announced in `Content-Length` unless the response is chunked).
    var length: Int64
    /// The body bytes at offsets `range`; called for consecutive ranges of at most `pieceSize` bytes.
    var bytes: @Sendable (_ range: Range<Int64>) -> Data
    var pieceSize: Int = 256 << 10
    /// Pause between two pieces (watching for the peer to hang up).
    var pause: Duration = .zero
    /// Send only this many body bytes, then close the connection (the peer sees a short body).
    var interruptAfter: Int64?
    /// Told the body bytes written so far: `.writing` after every piece sent, then once more at the
    /// end (a HEAD or no-body response ends `.finished` with 0). Runs on the connection's thread.
    var progress: (@Sendable (_ bytesWritten: Int64, _ state: State) -> Void)?

    init(length: Int64, bytes: @escaping @Sendable (_ range: Range<Int64>) -> Data) {
        self.length = length
        self.bytes = bytes
    }
}

/// What the test server sends back for one request.
///
/// Unless the handler sets `Content-Length` or `Transfer-Encoding` itself, the server adds
/// `Content-Length: body.count` (or `Transfer-Encoding: chunked` when `chunked`). 1xx, 204 and 304
/// responses never carry a body or a `Content-Length`; HEAD responses get the headers (including the
/// `Content-Length` the body would have) but no body. No `Date` or `Server` header is ever added.
struct TestResponse: Sendable {
    var status: Int
    /// Reason phrase; nil means the standard phrase for `status`.
    var reason: String?
    var headers: [TestHeader]
    var body: Data
    /// Wait this long before sending anything.
    var delay: Duration = .zero
    /// Send the head at once, then the body in pieces with pauses (see `TestDrip`).
    var drip: TestDrip?
    /// Use `Transfer-Encoding: chunked`; each drip piece (or the whole body) is one chunk.
    var chunked: Bool = false
    /// Close the connection after this response (adds `Connection: close`).
    var closeConnection: Bool = false
    /// Close the connection without sending anything (after `delay`).
    var dropConnection: Bool = false
    /// A body generated while it is written; when set, it replaces `body` (and `drip`).
    var streamedBody: TestStreamedBody?

    init(status: Int = 200, reason: String? = nil, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.reason = reason
        self.headers = headers.map { TestHeader($0.0, $0.1) }
        self.body = body
    }

    /// A JSON body with `Content-Type: application/json`.
    static func json(_ string: String, status: Int = 200) -> TestResponse {
        TestResponse(status: status, headers: [("Content-Type", "application/json")], body: Data(string.utf8))
    }

    /// A JSON body serialized from a Foundation object (sorted keys, slashes unescaped).
    static func json(object: Any, status: Int = 200) -> TestResponse {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("null".utf8)
        return TestResponse(status: status, headers: [("Content-Type", "application/json")], body: data)
    }

    /// A text body with `Content-Type: text/plain; charset=utf-8`.
    static func text(_ string: String, status: Int = 200) -> TestResponse {
        TestResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(string.utf8))
    }

    /// Raw bytes with the given content type.
    static func data(_ data: Data, contentType: String = "application/octet-stream", status: Int = 200)
        -> TestResponse
    {
        TestResponse(status: status, headers: [("Content-Type", contentType)], body: data)
    }

    /// Closes the connection without answering.
    static func drop() -> TestResponse {
        var response = TestResponse(status: 0)
        response.dropConnection = true
        return response
    }

    /// First value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Replaces every header named `name` (case-insensitive) with one `name: value`.
    mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append(TestHeader(name, value))
    }

    /// Appends a header, keeping existing ones with the same name.
    mutating func addHeader(_ name: String, _ value: String) {
        headers.append(TestHeader(name, value))
    }

    /// Returns a copy delayed by `delay`.
    func delayed(by delay: Duration) -> TestResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// Returns a copy whose body is dripped.
    func dripped(_ drip: TestDrip) -> TestResponse {
        var copy = self
        copy.drip = drip
        return copy
    }

    /// Whether this status forbids a body (1xx, 204, 304).
    var statusForbidsBody: Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    /// The standard reason phrase (the library's own table; tests never assert on phrases).
    static func standardReason(for status: Int) -> String {
        StatusText.reason(status)
    }
}
