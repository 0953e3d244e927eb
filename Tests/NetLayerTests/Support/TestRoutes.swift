import Foundation
import NetLayer
import NetLayerTesting

/// The test server's built-in routes. Query parameters are read from `rawQuery` (percent-decoded,
/// `+` left as is); a missing or unparsable number falls back to the default shown.
///
/// | path | behaviour |
/// |---|---|
/// | anything else (`/echo`, `/anything/...`) | 200 JSON echo, see `echo(_:)` |
/// | `/status/<code>` | that status (200–599), `status <code>` as text; 204/304 without body |
/// | `/delay/<ms>` | echo after `ms` milliseconds |
/// | `/drip?bytes=10&interval=100&delay=0&chunk=1` | after `delay`, the head with `Content-Length: bytes` at once, then `chunk` bytes of `*` every `interval` ms |
/// | `/stall?ms=1000` | head with `Content-Length: 10` at once, nothing for `ms`, then `**********` |
/// | `/basic-auth[?user=u&pass=p]` | 401 + `WWW-Authenticate: Basic realm="netlayer-test"`, body `auth required`; echo when `user`/`pass` are given and `Authorization` matches |
/// | `/chunked?parts=a,b,c&interval=50` | chunked, one chunk per non-empty part, `interval` ms apart |
/// | `/sse?events=3&interval=100` | `text/event-stream`, chunked, `data: event <i>\n\n` for i in 1...events |
/// | `/drop` | closes the connection without answering (the request is still recorded) |
/// | `/redirect?to=/path&status=302` | redirect (301/302/303/307/308) to a path on this server |
/// | `/flaky?failures=1&key=K&retryAfter=1` | first `failures` requests per key: 503 + `Retry-After`; then echo |
enum TestRoutes {
    static let basicAuthRealm = "netlayer-test"

    /// The built-in response for `request`. `flakyAttempt(key)` must count calls per key (1, 2, ...).
    static func response(for request: RecordedRequest, flakyAttempt: (String) -> Int) -> TestResponse {
        let path = request.path
        if path.hasPrefix("/status/") { return status(String(path.dropFirst("/status/".count))) }
        if path.hasPrefix("/delay/") {
            guard let ms = Int(path.dropFirst("/delay/".count)), (0...600_000).contains(ms) else {
                return .text("invalid delay", status: 400)
            }
            return echo(request).delayed(by: .milliseconds(ms))
        }
        switch path {
        case "/drip": return drip(request)
        case "/stall": return stall(request)
        case "/basic-auth": return basicAuth(request)
        case "/chunked": return chunked(request)
        case "/sse": return serverSentEvents(request)
        case "/drop": return .drop()
        case "/redirect": return redirect(request)
        case "/flaky": return flaky(request, flakyAttempt: flakyAttempt)
        default: return echo(request)
        }
    }

    /// 200 `application/json` describing the request (see `LoopbackResponse.echo(_:)`).
    static func echo(_ request: RecordedRequest) -> TestResponse {
        .echo(request)
    }

    static func status(_ text: String) -> TestResponse {
        guard let code = Int(text), (200...599).contains(code) else {
            return .text("invalid status code", status: 400)
        }
        var response = TestResponse.text("status \(code)", status: code)
        if response.statusForbidsBody {
            response.body = Data()
            response.headerFields = HeaderFields()
        }
        return response
    }

    static func drip(_ request: RecordedRequest) -> TestResponse {
        let bytes = int(request, "bytes", default: 10, max: 64 << 20)
        let interval = int(request, "interval", default: 100, max: 600_000)
        let delay = int(request, "delay", default: 0, max: 600_000)
        let chunk = max(1, int(request, "chunk", default: 1, max: 64 << 20))
        var response = TestResponse.data(Data(repeating: UInt8(ascii: "*"), count: bytes))
        response.delay = .milliseconds(delay)
        response.drip = TestDrip(
            pieceSize: chunk, interval: .milliseconds(interval), initialPause: .milliseconds(interval))
        return response
    }

    static func stall(_ request: RecordedRequest) -> TestResponse {
        let ms = int(request, "ms", default: 1000, max: 600_000)
        let body = Data(repeating: UInt8(ascii: "*"), count: 10)
        return TestResponse.data(body).dripped(
            TestDrip(pieceSize: body.count, interval: .zero, initialPause: .milliseconds(ms)))
    }

    static func basicAuth(_ request: RecordedRequest) -> TestResponse {
        if let user = request.queryValue("user"), let pass = request.queryValue("pass"),
            request.header("Authorization") == "Basic " + Data("\(user):\(pass)".utf8).base64EncodedString()
        {
            return echo(request)
        }
        var response = TestResponse.text("auth required", status: 401)
        response.addHeader("WWW-Authenticate", "Basic realm=\"\(basicAuthRealm)\"")
        return response
    }

    static func chunked(_ request: RecordedRequest) -> TestResponse {
        let parts = (request.queryValue("parts") ?? "a,b,c").split(separator: ",").map(String.init)
        let interval = int(request, "interval", default: 50, max: 600_000)
        var response = TestResponse.text(parts.joined())
        response.chunked = true
        response.drip = TestDrip(pieceLengths: parts.map { $0.utf8.count }, interval: .milliseconds(interval))
        return response
    }

    static func serverSentEvents(_ request: RecordedRequest) -> TestResponse {
        let count = int(request, "events", default: 3, max: 100_000)
        let interval = int(request, "interval", default: 100, max: 600_000)
        let events = (0..<count).map { "data: event \($0 + 1)\n\n" }
        var response = TestResponse(
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
            body: Data(events.joined().utf8)
        )
        response.chunked = true
        response.drip = TestDrip(
            pieceLengths: events.map { $0.utf8.count }, interval: .milliseconds(interval))
        return response
    }

    /// Only same-server paths are accepted, so a redirect can never send a client elsewhere.
    static func redirect(_ request: RecordedRequest) -> TestResponse {
        guard let target = request.queryValue("to"), target.hasPrefix("/"), !target.hasPrefix("//"),
            !target.contains("\\"),
            !target.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return .text("redirect needs to=/path on this server", status: 400) }
        let code = int(request, "status", default: 302, max: 399)
        guard [301, 302, 303, 307, 308].contains(code) else {
            return .text("invalid redirect status", status: 400)
        }
        var response = TestResponse.text("redirecting to \(target)", status: code)
        response.addHeader("Location", target)
        return response
    }

    static func flaky(_ request: RecordedRequest, flakyAttempt: (String) -> Int) -> TestResponse {
        let failures = int(request, "failures", default: 1, max: Int.max)
        let attempt = flakyAttempt(request.queryValue("key") ?? "")
        guard attempt <= failures else { return echo(request) }
        var response = TestResponse.text("flaky failure \(attempt) of \(failures)", status: 503)
        response.addHeader("Retry-After", String(int(request, "retryAfter", default: 1, max: 86_400)))
        return response
    }

    /// Integer query parameter clamped to 0...max; `fallback` when absent or not a number.
    private static func int(_ request: RecordedRequest, _ name: String, default fallback: Int, max: Int)
        -> Int
    {
        guard let value = request.queryValue(name).flatMap({ Int($0) }) else { return fallback }
        return Swift.min(Swift.max(0, value), max)
    }
}
