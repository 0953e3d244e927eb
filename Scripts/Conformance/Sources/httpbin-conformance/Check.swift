import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one case found: mismatches, and the bytes that were sent (printed only on failure).
final class Check {
    private(set) var problems: [String] = []
    private(set) var evidence: [String] = []
    /// The request of the last ``echo(_:)``, as NetLayer handed it to the transport.
    private(set) var lastSent: TransportRequest?

    func equal(_ what: String, _ expected: JSON, _ actual: JSON) {
        if expected != actual { problems.append("expected \(what) = \(expected) got \(actual)") }
    }

    func that(_ what: String, _ ok: Bool, expected: String, got: String) {
        if !ok { problems.append("expected \(what) \(expected) got \(got)") }
    }

    func fail(_ text: String) { problems.append(text) }

    func note(_ text: String) { evidence.append(text) }

    /// Records a request as NetLayer handed it to URLSession.
    func note(sent request: URLRequest) {
        var line = "sent \(request.httpMethod ?? "?") \(request.url?.absoluteString ?? "?")"
        let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }
        if !headers.isEmpty {
            line += " headers{" + headers.map { "\($0.key): \($0.value)" }.joined(separator: " | ") + "}"
        }
        if let body = request.httpBody {
            line += " body(\(body.count))=\(showBytes(body))"
        } else {
            line += " no body"
        }
        evidence.append(line)
    }

    /// Records a request as NetLayer handed it to the transport; a body made of file segments
    /// (a `.file` body, multipart with file parts) is shown segment by segment.
    func note(sent request: TransportRequest) {
        var line = "sent \(request.method.rawValue) \(request.url.absoluteString)"
        let headers = request.headerFields.fields.sorted { $0.name < $1.name }
        if !headers.isEmpty {
            line += " headers{" + headers.map { "\($0.name): \($0.value)" }.joined(separator: " | ") + "}"
        }
        guard let body = request.body, body.length > 0 else {
            evidence.append(line + " no body")
            return
        }
        if let bytes = body.inMemoryBytes {
            evidence.append(line + " body(\(bytes.count))=\(showBytes(bytes))")
            return
        }
        line += " body(\(body.length)) = "
        line += body.segments.map { segment in
            switch segment {
            case .bytes(let data): "bytes(\(data.count))=\(showBytes(data, limit: 300))"
            case .file(let url, let range):
                "file(\(url.lastPathComponent) \(range.lowerBound)..<\(range.upperBound))"
            }
        }.joined(separator: " + ")
        evidence.append(line)
    }

    /// Sends the call and parses httpbin's echo.
    func echo(_ executor: Executor) async throws -> JSON {
        let response = try await send(executor)
        lastSent = response.sentRequest
        note(sent: response.sentRequest)
        return try JSON.parse(response.data)
    }

    /// Sends the call; on failure notes the request it would have sent, then rethrows.
    private func send(_ executor: Executor) async throws -> Response<Data> {
        do {
            return try await executor.response()
        } catch {
            if let request = try? executor.transportRequest { note(sent: request) }
            throw error
        }
    }

    /// httpbin's `json_safe` view of `expected` (text when it is UTF-8, else a base64 `data:` URL
    /// labelled `contentType`) is what it showed as `what`. On a mismatch the first differing byte
    /// is reported with the bytes around it, without printing megabytes.
    func httpbinBytes(_ what: String, _ expected: Data, contentType: String, _ got: JSON) {
        let shown = httpbinJSONSafe(expected, contentType: contentType)
        guard let text = got.string else {
            fail(
                "expected \(what) = \(expected.count) bytes as \(shown.hasPrefix("data:") ? "a data: URL" : "text") got \(got.description.prefix(300))"
            )
            return
        }
        if text == shown { return }
        let prefix = "data:\(contentType);base64,"
        let form = shown.hasPrefix("data:") ? "a data: URL (\(prefix)…)" : "UTF-8 text"
        let decoded: Data?
        if text.hasPrefix("data:") {
            decoded = text.range(of: ";base64,").flatMap {
                Data(base64Encoded: String(text[$0.upperBound...]))
            }
            if !text.hasPrefix(prefix) { fail("expected \(what) as \(form) got \(text.prefix(80))…") }
        } else {
            decoded = Data(text.utf8)
            if shown.hasPrefix("data:") { fail("expected \(what) as \(form) got UTF-8 text") }
        }
        guard let decoded else {
            fail(
                "expected \(what) = \(expected.count) bytes got an undecodable data: URL \(text.prefix(120))…"
            )
            return
        }
        sameBytes(what, expected, decoded)
    }

    /// Two byte strings are equal; otherwise reports the lengths and the first difference.
    func sameBytes(_ what: String, _ expected: Data, _ got: Data) {
        guard expected != got else { return }
        let a = Array(expected)
        let b = Array(got)
        let first = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let from = max(0, first - 24)
        fail(
            "expected \(what) = \(a.count) bytes got \(b.count) bytes, first difference at byte \(first): "
                + "expected \"\(showBytes(Data(a[from..<min(a.count, first + 40)])))\" "
                + "got \"\(showBytes(Data(b[from..<min(b.count, first + 40)])))\" (from byte \(from))")
    }

    /// Sends the call to the raw capture server and returns what arrived.
    func capture(_ executor: Executor, _ server: RawCapture) async throws -> RawCapture.Request {
        _ = server.takeLast()
        let response = try await send(executor)
        guard let request = server.takeLast() else {
            note(sent: response.sentRequest)
            throw CaptureError("the raw capture server recorded no request")
        }
        note("wire: \(request.shown)")
        return request
    }

    // MARK: httpbin fields

    /// httpbin parsed the body as its Content-Type says: JSON labelled JSON, or a form labelled form.
    func bodyMatchesLabel(_ reply: JSON, params: JSON) {
        let type = header(reply, "Content-Type") ?? ""
        let asJSON = reply["json"] == params && type == "application/json"
        let asForm = reply["form"] == params && type == "application/x-www-form-urlencoded"
        that(
            "body and Content-Type", asJSON || asForm,
            expected:
                "to agree (JSON params labelled application/json, or a form labelled application/x-www-form-urlencoded)",
            got:
                "Content-Type \"\(type)\" with data \(reply["data"]) form \(reply["form"]) json \(reply["json"])"
        )
    }

    /// A header from httpbin's `headers`, name compared case-insensitively.
    func header(_ reply: JSON, _ name: String) -> String? {
        reply["headers"].object?.first(where: { $0.key.lowercased() == name.lowercased() })?.value.string
    }

    func header(_ reply: JSON, _ name: String, is expected: String?) {
        let got = header(reply, name)
        that(
            "header \(name)", got == expected, expected: expected.map { "= \"\($0)\"" } ?? "absent",
            got: got.map { "\"\($0)\"" } ?? "absent")
    }

    /// No params in the query: `args` is `{}`.
    func noArgs(_ reply: JSON) { equal("args", [:], reply["args"]) }

    /// No body at all: empty `data`, `form`, `files`, null `json`, no Content-Type, no length > 0.
    func noBody(_ reply: JSON) {
        equal("data", "", reply["data"])
        equal("form", [:], reply["form"])
        equal("files", [:], reply["files"])
        equal("json", .null, reply["json"])
        header(reply, "Content-Type", is: nil)
        let length = header(reply, "Content-Length")
        that(
            "header Content-Length", length == nil || length == "0", expected: "absent or 0",
            got: length ?? "")
        let chunked = header(reply, "Transfer-Encoding")
        that("header Transfer-Encoding", chunked == nil, expected: "absent", got: chunked ?? "")
    }

    /// The path httpbin saw, percent-decoded (werkzeug decodes and re-quotes it before echoing).
    func decodedPath(_ reply: JSON) -> String {
        guard var url = reply["url"].string else { return "<no url>" }
        if let scheme = url.range(of: "://") { url = String(url[scheme.upperBound...]) }
        if let slash = url.firstIndex(of: "/") { url = String(url[slash...]) } else { url = "/" }
        if let mark = url.firstIndex(of: "?") { url = String(url[..<mark]) }
        return percentDecode(url)
    }
}

/// One named conformance case.
struct Case {
    let name: String
    let run: (Check) async throws -> Void
}
