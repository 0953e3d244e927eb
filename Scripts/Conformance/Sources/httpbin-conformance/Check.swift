import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one case found: mismatches, and the bytes that were sent (printed only on failure).
final class Check {
    private(set) var problems: [String] = []
    private(set) var evidence: [String] = []

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

    /// Sends the call and parses httpbin's echo.
    func echo(_ executor: Executor) async throws -> JSON {
        let response = try await send(executor)
        note(sent: response.request)
        return try JSON.parse(response.data)
    }

    /// Sends the call; on failure notes the request it would have sent, then rethrows.
    private func send(_ executor: Executor) async throws -> Response<Data> {
        do {
            return try await executor.response()
        } catch {
            if let request = try? executor.urlRequest { note(sent: request) }
            throw error
        }
    }

    /// Sends the call to the raw capture server and returns what arrived.
    func capture(_ executor: Executor, _ server: RawCapture) async throws -> RawCapture.Request {
        _ = server.takeLast()
        let response = try await send(executor)
        guard let request = server.takeLast() else {
            note(sent: response.request)
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
