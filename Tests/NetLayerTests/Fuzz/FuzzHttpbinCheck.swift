import Foundation

/// Compares httpbin's `/anything` echo (`method`, `url`, `args`, `form`, `files`, `json`, `data`,
/// `headers`) with the expected view, transformed only as httpbin's JSON forces (see
/// ``FuzzWerkzeug``): multi-dicts semiflattened, header names title-cased (compared
/// case-insensitively) and values read as ISO-8859-1, files keyed by field name (first file per
/// name) with non-UTF-8 content as a `data:` URL, multipart names with `%22` read as `"`.
/// httpbin does not echo filenames or the raw bytes of form, multipart or JSON bodies.
enum FuzzHttpbinCheck {
    /// All problems of one case. `path` is the path before the template segment, e.g.
    /// `/anything/fuzz/<tag>/`.
    static func check(_ fuzzCase: FuzzCase, outcome: FuzzOutcome, path: String) -> [FuzzProblem] {
        var problems = outcome.problems(for: fuzzCase)
        guard problems.isEmpty, FuzzRefusal.all(in: fuzzCase).isEmpty, case .returned(let body) = outcome
        else {
            return problems
        }
        let reply: FuzzJSON
        do {
            reply = try FuzzJSON.parse(body)
        } catch {
            return [FuzzProblem("httpbin reply", error.description)]
        }
        let expected = FuzzExpectation(fuzzCase)
        func problem(_ kind: String, _ detail: String) {
            problems.append(FuzzProblem(kind, detail))
        }
        func compare(_ kind: String, _ field: String, _ want: FuzzJSON) {
            let got = reply[field] ?? .null
            if !want.same(as: got) { problem(kind, "expected \(field) = \(want.text), httpbin: \(got.text)") }
        }

        if !(reply["method"]?.string.map { $0 == expected.method } ?? false) {
            problem("method", "expected \(expected.method), httpbin: \(reply["method"]?.text ?? "none")")
        }
        let wantPath = FuzzWerkzeug.urlPath(path + expected.segment)
        let gotPath = urlPath(reply["url"]?.string ?? "")
        if !fuzzSame(wantPath, gotPath) {
            problem(
                "path segment value",
                "expected url path \(wantPath.fuzzLiteral), httpbin: \(gotPath.fuzzLiteral)")
        }
        compare("query pairs", "args", FuzzWerkzeug.semiflatten(expected.query))

        var form: [FuzzPair] = []
        var files: [(String, String)] = []
        var json: FuzzJSON? = .null
        var data: String? = ""
        switch expected.body {
        case .none:
            break
        case .form(let pairs):
            form = pairs
        case .multipart(let parts):
            for part in parts {
                let name = FuzzWerkzeug.multipartName(fromDesignView: part.name)
                if part.filename == nil {
                    form.append(FuzzPair(name: name, value: String(decoding: part.data, as: UTF8.self)))
                } else if !files.contains(where: { fuzzSame($0.0, name) }) {
                    files.append(
                        (name, FuzzWerkzeug.jsonSafe(part.data, contentType: part.contentType ?? "")))
                }
            }
        case .json(let object):
            json = object
            data = nil  // the JSON text's exact bytes are NetLayer's choice
            if case .object(let members) = object, members.isEmpty, reply["data"]?.string == "" {
                json = .null
            }
        case .raw(let bytes):
            data = FuzzWerkzeug.jsonSafe(bytes, contentType: "application/octet-stream")
            // Python's json.loads also takes NaN and more: compared only when the bytes are strict JSON.
            json = (try? FuzzJSON.parse(bytes)) ?? nil
        }
        compare(
            expected.placement == .multipart ? "multipart fields" : "form pairs", "form",
            FuzzWerkzeug.semiflatten(form))
        compare("multipart files", "files", .object(files.map { ($0.0, .string($0.1)) }))
        if let json { compare(expected.placement == .json ? "json body" : "json", "json", json) }
        if let data { compare(expected.placement == .body ? "raw body" : "data", "data", .string(data)) }
        checkHeaders(reply, expected, fuzzCase: fuzzCase, problem: problem)
        return problems
    }

    private static func checkHeaders(
        _ reply: FuzzJSON, _ expected: FuzzExpectation, fuzzCase: FuzzCase, problem: (String, String) -> Void
    ) {
        guard case .object(let fields) = reply["headers"] ?? .null else {
            problem("httpbin reply", "no headers object")
            return
        }
        func values(_ name: String) -> [String] {
            fields.filter { fuzzLowerASCII($0.0) == fuzzLowerASCII(name) }.compactMap { $0.1.string }
                .map(FuzzWerkzeug.headerText)
        }
        for header in expected.headers {
            let got = values(header.name)
            if got.count != 1 || !fuzzSame(got[0], header.value) {
                problem(
                    "header value",
                    "expected \(header.name.fuzzLiteral) = \(header.value.fuzzLiteral), "
                        + "httpbin: \(got.map(\.fuzzLiteral))"
                )
            }
        }
        let names = Set(expected.headers.map { fuzzLowerASCII($0.name) })
        for field in fields
        where fuzzLowerASCII(field.0).hasPrefix("x-fuzz") && !names.contains(fuzzLowerASCII(field.0)) {
            problem("header", "unexpected field \(field.0.fuzzLiteral)")
        }

        let type = values("Content-Type").first
        switch expected.contentType {
        case .absent:
            if let type { problem("content-type", "expected none, httpbin: \(type.fuzzLiteral)") }
        case .exactly(let value):
            if type.map({ fuzzSame($0, value) }) != true {
                problem(
                    "content-type",
                    "expected \(value.fuzzLiteral), httpbin: \(type?.fuzzLiteral ?? "none")")
            }
        case .whenBody(let value):
            if let type, !fuzzSame(type, value) {
                problem(
                    "content-type", "expected \(value.fuzzLiteral), httpbin: \(type.fuzzLiteral)")
            }
        case .absentOr(let options):
            if let type, !options.contains(where: { fuzzSame($0, type) }) {
                problem(
                    "content-type", "expected none or one of \(options), httpbin: \(type.fuzzLiteral)")
            }
        case .multipartFormData:
            if !(type?.hasPrefix("multipart/form-data; boundary=") ?? false) {
                problem(
                    "content-type",
                    "expected multipart/form-data; boundary=…, httpbin: \(type?.fuzzLiteral ?? "none")")
            }
        }

        // Framing: the exact length where the bytes are fixed by DESIGN, else a length at all.
        let length = values("Content-Length").first
        switch expected.body {
        case .raw(let bytes) where !bytes.isEmpty:
            if length != String(bytes.count) {
                problem("framing", "expected Content-Length \(bytes.count), httpbin: \(length ?? "none")")
            }
        case .form(let pairs) where !pairs.isEmpty:
            let want = formLength(pairs)
            if length != String(want) {
                problem("framing", "expected Content-Length \(want), httpbin: \(length ?? "none")")
            }
        case .multipart, .json:
            if length.flatMap({ Int($0) }) == nil {
                problem("framing", "expected a Content-Length, httpbin: \(length ?? "none")")
            }
        default:
            if let length, length != "0" {
                problem("framing", "expected no body, httpbin: Content-Length \(length)")
            }
        }
    }

    /// The length of the §6 encoding of `pairs`: unreserved bytes as one, every other byte as `%XX`.
    static func formLength(_ pairs: [FuzzPair]) -> Int {
        let encoded = { (text: String) in text.utf8.reduce(0) { $0 + (fuzzIsUnreserved($1) ? 1 : 3) } }
        return pairs.reduce(pairs.count - 1) { $0 + encoded($1.name) + 1 + encoded($1.value) }
    }

    /// The path of a URL: after the authority, up to the query (bytes, so a `?` followed by a
    /// combining mark still ends the path).
    private static func urlPath(_ url: String) -> String {
        var bytes = Array(url.utf8)[...]
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) {
            bytes = bytes[(colon + 3)...]
        }
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return "" }
        bytes = bytes[slash...]
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            bytes = bytes[..<end]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
