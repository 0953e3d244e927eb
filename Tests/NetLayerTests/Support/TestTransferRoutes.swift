import Foundation

@testable import NetLayerTesting

/// The test server's transfer routes: bodies of up to 8 GiB, streamed in pieces and never held whole,
/// with records a test can read back (`TestServer.sinkRecords(path:)`, `patternRecords(path:)`).
/// Query values are percent-decoded; an absent parameter takes the default shown, an invalid or
/// out-of-range one gets 400.
///
/// | path | behaviour |
/// |---|---|
/// | `/sink...` (any path starting with `/sink`) | any method; the body (Content-Length or chunked, `Expect: 100-continue` honoured, up to 8 GiB regardless of `maxBodyBytes`) is streamed into a `TestSinkRecord`; answer `{"checksum":"<16 hex>","length":N}` with status `status=200` (200–599) |
/// | `/pattern`, `/pattern/...` | GET/HEAD (else 405): `TestPattern` bytes `0..<length`, see `pattern(_:core:)` |
/// | `/firehose`, `/firehose/...` | GET/HEAD: `TestPattern` bytes `0..<length` (`length=1048576`, `seed=0`) in 64 KiB pieces as fast as the socket takes them; no ranges, no validators |
///
/// `/pattern` and `/firehose` responses are recorded as `TestPatternRecord`s under the request path,
/// updated after every piece; use a path like `/pattern/<test name>` to keep tests' records apart.
/// A finished `/sink...` request is also in `TestServer.requests`, with an empty body; one whose client
/// hung up mid-body is only a sink record (`complete == false`). A custom route registered for the
/// exact path still wins; for `/sink...` the body is streamed and recorded first and the handler
/// sees the request with an empty body.
enum TestTransferRoutes {
    /// The largest body these routes send or accept.
    static let maxLength: Int64 = 8 << 30
    /// The `Last-Modified` value `/pattern?lastModified=1` sends.
    static let lastModified = "Sun, 22 Nov 2026 00:00:00 GMT"
    static let patternPieceSize = 256 << 10
    static let firehosePieceSize = 64 << 10

    static func isSink(_ path: String) -> Bool { path.hasPrefix("/sink") }

    /// Streams `/sink...` bodies into `TestSinkRecord`s kept in `scenarios`.
    static func bodyStreaming(_ scenarios: TestScenarios) -> BodyStreaming {
        BodyStreaming(
            limit: { isSink($0) ? maxLength : nil },
            start: { head, connectionID in
                TestSink(head: head, connectionID: connectionID, scenarios: scenarios)
            })
    }

    /// The response for `/pattern` or `/firehose` (recording it), nil for any other path.
    static func response(for request: RecordedRequest, scenarios: TestScenarios) -> TestResponse? {
        let isPattern = matches(request.path, "/pattern")
        guard isPattern || matches(request.path, "/firehose") else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = TestResponse.text("use GET or HEAD", status: 405)
            response.addHeader("Allow", "GET, HEAD")
            return response
        }
        do {
            return isPattern
                ? try pattern(request, scenarios: scenarios) : try firehose(request, scenarios: scenarios)
        } catch {
            return .text(error.message, status: 400)
        }
    }

    /// The sink's answer: `{"checksum":"<16 hex>","length":N}` with status `status=` (default 200).
    static func sinkResponse(_ record: TestSinkRecord, request: RecordedRequest) -> TestResponse {
        let status: Int
        do {
            status = try number(request, "status", default: 200, in: 200...599)
        } catch {
            return .text(error.message, status: 400)
        }
        return .json(object: ["length": record.length, "checksum": record.checksumHex], status: status)
    }

    /// `/pattern?length=1048576&seed=0` — `TestPattern` bytes `0..<length` (at most 8 GiB), generated
    /// in 256 KiB pieces while they are written. Options:
    /// - `etag=<value>`: send `ETag: "<value>"` instead of `"p-<length>-<seed>"`; `etag=none`: no ETag.
    /// - `lastModified=1`: send `Last-Modified: Sun, 22 Nov 2026 00:00:00 GMT`.
    /// - `ranges=0`: no `Accept-Ranges: bytes`, and `Range` is ignored (always 200).
    /// - `Range: bytes=a-`, `bytes=a-b`, `bytes=-n` (GET only, one range) → 206 with
    ///   `Content-Range: bytes a-b/N`; `a >= N` → 416 with `Content-Range: bytes */N` and no body; several
    ///   ranges or a malformed header → ignored (200). `If-Range` that is not exactly the ETag (a
    ///   strong one) or the `Last-Modified` sent → the full 200.
    /// - `interruptAfter=K`: close the connection after K body bytes of this response.
    /// - `interruptOnce=1` (with `interruptAfter`): interrupt only the first response per key; the key
    ///   is `interruptKey=` if given, else the whole request target (so a plain retry, with or without
    ///   `Range`, completes). Keys are per server and never forgotten: use unique ones.
    /// - `pace=ms`: pause this long between pieces (watching for the client to hang up).
    static func pattern(_ request: RecordedRequest, scenarios: TestScenarios) throws(TestRouteError)
        -> TestResponse
    {
        let length = try number(request, "length", default: Int64(1 << 20), in: 0...maxLength)
        let seed = try number(request, "seed", default: UInt64(0), in: 0...UInt64.max)
        let pace = try number(request, "pace", default: 0, in: 0...60_000)
        let interruptAfter: Int64? =
            request.queryValue("interruptAfter") == nil
            ? nil : try number(request, "interruptAfter", default: 0, in: 0...maxLength)
        let rangesAllowed = request.queryValue("ranges") != "0"
        let lastModified = request.queryValue("lastModified") == "1" ? Self.lastModified : nil
        let etag: String? =
            switch request.queryValue("etag") {
            case nil: "\"p-\(length)-\(seed)\""
            case "none": nil
            case let value?: "\"\(value)\""
            }

        var response = TestResponse(headers: [("Content-Type", "application/octet-stream")])
        if let etag { response.addHeader("ETag", etag) }
        if let lastModified { response.addHeader("Last-Modified", lastModified) }
        if rangesAllowed { response.addHeader("Accept-Ranges", "bytes") }

        var range: Range<Int64> = 0..<length
        if request.method == "GET", rangesAllowed, let rangeHeader = request.header("Range"),
            ifRangeAllows(request.header("If-Range"), etag: etag, lastModified: lastModified)
        {
            switch parseRange(rangeHeader, length: length) {
            case .ignored:
                break
            case .unsatisfiable:
                response.status = 416
                response.addHeader("Content-Range", "bytes */\(length)")
                _ = scenarios.beginPatternRecord(request, status: 416, bodyLength: 0, ended: true)
                return response
            case .satisfiable(let satisfiable):
                range = satisfiable
                response.status = 206
                response.addHeader(
                    "Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)")
            }
        }

        let bodyLength = range.upperBound - range.lowerBound
        var body = streamed(range: range, seed: seed, pieceSize: patternPieceSize)
        body.pause = .milliseconds(pace)
        if let interruptAfter, interruptAfter < bodyLength, request.method == "GET" {
            let once = request.queryValue("interruptOnce") == "1"
            let key = request.queryValue("interruptKey") ?? request.target
            if !once || scenarios.claimInterruptKey(key) { body.interruptAfter = interruptAfter }
        }
        let headLength = request.method == "HEAD" ? 0 : bodyLength
        return recorded(response, body: body, request: request, bodyLength: headLength, scenarios: scenarios)
    }

    /// `/firehose?length=1048576&seed=0`: like `/pattern` without options, in 64 KiB pieces.
    static func firehose(_ request: RecordedRequest, scenarios: TestScenarios) throws(TestRouteError)
        -> TestResponse
    {
        let length = try number(request, "length", default: Int64(1 << 20), in: 0...maxLength)
        let seed = try number(request, "seed", default: UInt64(0), in: 0...UInt64.max)
        let response = TestResponse(headers: [("Content-Type", "application/octet-stream")])
        let body = streamed(range: 0..<length, seed: seed, pieceSize: firehosePieceSize)
        let headLength = request.method == "HEAD" ? 0 : length
        return recorded(response, body: body, request: request, bodyLength: headLength, scenarios: scenarios)
    }

    /// Pattern bytes `range` as a streamed body.
    private static func streamed(range: Range<Int64>, seed: UInt64, pieceSize: Int) -> TestStreamedBody {
        let start = range.lowerBound
        var body = TestStreamedBody(length: range.upperBound - range.lowerBound) { piece in
            TestPattern.bytes(seed: seed, range: (start + piece.lowerBound)..<(start + piece.upperBound))
        }
        body.pieceSize = pieceSize
        return body
    }

    /// Starts the response's record and has the writer keep it up to date.
    private static func recorded(
        _ response: TestResponse, body: TestStreamedBody, request: RecordedRequest, bodyLength: Int64,
        scenarios: TestScenarios
    ) -> TestResponse {
        let id = scenarios.beginPatternRecord(request, status: response.status, bodyLength: bodyLength)
        var body = body
        body.progress = { written, state in
            scenarios.updatePatternRecord(id: id, bytesWritten: written, state: state)
        }
        var response = response
        response.streamedBody = body
        return response
    }

    enum RangeRequest: Equatable {
        /// Absent, malformed or several ranges: send the whole body.
        case ignored
        case unsatisfiable
        case satisfiable(Range<Int64>)
    }

    /// Parses one `bytes=` range (RFC 9110 §14.1.2) against a body of `length` bytes.
    static func parseRange(_ header: String, length: Int64) -> RangeRequest {
        let unit = "bytes="
        guard header.lowercased().hasPrefix(unit) else { return .ignored }
        let spec = header.dropFirst(unit.count).trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .ignored }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {  // suffix: the last n bytes
            guard let suffix = digits(lastText) else { return .ignored }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, length - suffix)..<length)
        }
        guard let first = digits(firstText) else { return .ignored }
        var last = length - 1
        if !lastText.isEmpty {
            guard let value = digits(lastText), value >= first else { return .ignored }
            last = min(value, length - 1)
        }
        guard first < length else { return .unsatisfiable }
        return .satisfiable(first..<(last + 1))
    }

    /// RFC 9110 §13.1.5: a range is honoured only when `If-Range` is absent or matches exactly: the
    /// (strong) ETag sent, or the `Last-Modified` date sent.
    static func ifRangeAllows(_ ifRange: String?, etag: String?, lastModified: String?) -> Bool {
        guard let ifRange else { return true }
        if ifRange.hasPrefix("\"") { return ifRange == etag }
        if ifRange.hasPrefix("W/") { return false }
        return ifRange == lastModified
    }

    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(text)
    }

    private static func matches(_ path: String, _ route: String) -> Bool {
        path == route || path.hasPrefix(route + "/")
    }

    /// Query parameter `name` as a number in `bounds`; `fallback` when absent.
    private static func number<Value: FixedWidthInteger>(
        _ request: RecordedRequest, _ name: String, default fallback: Value, in bounds: ClosedRange<Value>
    ) throws(TestRouteError) -> Value {
        guard let text = request.queryValue(name) else { return fallback }
        guard let value = Value(text), bounds.contains(value) else {
            throw TestRouteError(message: "invalid \(name)=\(text): expected \(bounds)")
        }
        return value
    }
}

/// A query parameter a transfer route cannot use; answered with 400 and `message`.
struct TestRouteError: Error {
    let message: String
}

/// One `/sink...` body being streamed: summarised into a `TestSinkRecord` as it arrives.
final class TestSink: StreamedRequestBody {
    private let head: RequestHead
    private let connectionID: Int
    private let scenarios: TestScenarios
    private var accumulator = TestSinkAccumulator()

    init(head: RequestHead, connectionID: Int, scenarios: TestScenarios) {
        self.head = head
        self.connectionID = connectionID
        self.scenarios = scenarios
    }

    func consume(_ piece: UnsafeRawBufferPointer) { accumulator.add(piece) }

    func end(complete: Bool) -> @Sendable (RecordedRequest) -> TestResponse {
        let record = TestSinkRecord(
            path: head.path, rawQuery: head.rawQuery, method: head.method, headers: head.headerFields,
            length: accumulator.checksum.count, checksum: accumulator.checksum.value,
            head: accumulator.head, tail: accumulator.tail, complete: complete, connectionID: connectionID)
        scenarios.addSinkRecord(record)
        return { request in TestTransferRoutes.sinkResponse(record, request: request) }
    }
}
