/// A request exactly as a server received it: the request line, the header fields in order (values
/// trimmed, as RFC 9112 parsing does), the body bytes.
struct FuzzWireRequest: Sendable {
    let method: String
    /// The request-target, still percent-encoded.
    let target: String
    let headers: [FuzzPair]
    let body: [UInt8]
    /// Header names lower-cased, in the order of `headers`.
    private let lowerNames: [String]

    init(method: String, target: String, headers: [FuzzPair], body: [UInt8]) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        lowerNames = headers.map { fuzzLowerASCII($0.name) }
    }

    /// Values of every field named `name` (case-insensitive), in order.
    func header(_ name: String) -> [String] {
        fields(name).map(\.value)
    }

    /// Every field named `name` (case-insensitive), in order, names as sent.
    func fields(_ name: String) -> [FuzzPair] {
        let lower = fuzzLowerASCII(name)
        return zip(lowerNames, headers).filter { $0.0 == lower }.map(\.1)
    }

    /// Every field whose lower-cased name starts with `prefix`.
    func fields(withLowercasePrefix prefix: String) -> [FuzzPair] {
        zip(lowerNames, headers).filter { $0.0.hasPrefix(prefix) }.map(\.1)
    }
}

/// Compares what a server received with what DESIGN says it should read.
enum FuzzWireCheck {
    /// All problems of one case: its outcome, then (for an accepted case) the one request it sent.
    /// `path` is the path before the template segment, e.g. `/fuzz/<tag>/`.
    static func check(
        _ fuzzCase: FuzzCase, outcome: FuzzOutcome, received: [FuzzWireRequest], path: String
    ) -> [FuzzProblem] {
        var problems = outcome.problems(for: fuzzCase)
        if let refusal = FuzzRefusal.all(in: fuzzCase).sorted(by: { $0.rawValue < $1.rawValue }).first {
            if !received.isEmpty {
                problems.append(
                    FuzzProblem(
                        "refused input (\(refusal.rawValue)): request sent",
                        "the server received \(received.count) request(s): "
                            + received.map(show).joined(separator: " | ")
                    ))
            }
            return problems
        }
        guard received.count == 1, let request = received.first else {
            if case .returned = outcome {
                problems.append(
                    FuzzProblem(
                        "request count", "expected exactly 1 request, the server received \(received.count)"))
            }
            return problems
        }
        return problems + compare(request, with: FuzzExpectation(fuzzCase), path: path)
    }

    /// The request, one line, for reports.
    static func show(_ request: FuzzWireRequest) -> String {
        "\(request.method) \(request.target) {"
            + request.headers.map { "\($0.name): \($0.value.fuzzLiteral)" }.joined(separator: ", ")
            + "} body \(fuzzShow(request.body))"
    }

    static func compare(_ request: FuzzWireRequest, with expected: FuzzExpectation, path: String)
        -> [FuzzProblem]
    {
        var problems: [FuzzProblem] = []
        func problem(_ kind: String, _ detail: String) {
            problems.append(FuzzProblem(kind, detail + " — received: " + show(request)))
        }
        if request.method != expected.method { problem("method", "expected \(expected.method)") }

        // §3: one segment, only unreserved, sub-delims, ':' and '@' literal, decoding to the value.
        let targetBytes = Array(request.target.utf8)
        let question = targetBytes.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = Array(targetBytes[..<(question ?? targetBytes.count)])
        let rawQuery = question.map { Array(targetBytes[($0 + 1)...]) } ?? []
        if !rawPath.starts(with: path.utf8) {
            problem("path", "the path does not start with \(path.fuzzLiteral)")
        } else {
            let segment = rawPath.dropFirst(path.utf8.count)
            if let violation = segmentViolation(segment) {
                problem("path segment encoding", violation)
            } else if let decoded = fuzzUTF8(FuzzFormParser.decode(segment, plusIsSpace: false)),
                fuzzSame(decoded, expected.segment)
            {
                // as expected
            } else {
                problem(
                    "path segment value",
                    "expected the segment to decode to \(expected.segment.fuzzLiteral)")
            }
        }

        // §5/§6: the query.
        if let violation = FuzzFormParser.designViolation(rawQuery) { problem("query encoding", violation) }
        switch FuzzFormParser.parse(rawQuery) {
        case .success(let pairs):
            if !fuzzSamePairs(pairs, expected.query) {
                problem("query pairs", "expected \(fuzzShow(expected.query)), parsed \(fuzzShow(pairs))")
            }
        case .failure(let error): problem("query pairs", error.description)
        }

        // §17 framing: an exact Content-Length, no chunking.
        let lengths = request.header("Content-Length")
        if !request.header("Transfer-Encoding").isEmpty {
            problem("framing", "Transfer-Encoding sent; DESIGN wants an exact Content-Length")
        }
        if request.body.isEmpty {
            if !(lengths.isEmpty || lengths == ["0"]) {
                problem("framing", "Content-Length \(lengths) without a body")
            }
        } else if lengths != [String(request.body.count)] {
            problem("framing", "Content-Length \(lengths) for a body of \(request.body.count) bytes")
        }

        compareBody(request, expected, problem: problem)
        compareHeaders(request, expected, problem: problem)
        return problems
    }

    /// The body and its Content-Type.
    private static func compareBody(
        _ request: FuzzWireRequest, _ expected: FuzzExpectation, problem: (String, String) -> Void
    ) {
        let types = request.header("Content-Type")
        let type = types.first
        if types.count > 1 { problem("content-type", "\(types.count) Content-Type fields") }
        switch expected.contentType {
        case .absent:
            if type != nil { problem("content-type", "expected no Content-Type") }
        case .exactly(let value):
            if type.map({ fuzzSame($0, value) }) != true {
                problem("content-type", "expected \(value.fuzzLiteral)")
            }
        case .whenBody(let value):
            let ok = type.map { fuzzSame($0, value) } ?? request.body.isEmpty
            if !ok { problem("content-type", "expected \(value.fuzzLiteral)") }
        case .absentOr(let values):
            if let type, !values.contains(where: { fuzzSame($0, type) }) {
                problem("content-type", "expected none or one of \(values)")
            }
        case .multipartFormData:
            break  // checked with the boundary below
        }

        switch expected.body {
        case .none:
            if !request.body.isEmpty { problem("body on a query call", "expected no body") }
        case .raw(let bytes):
            if request.body != bytes { problem("raw body", "expected the caller's bytes \(fuzzShow(bytes))") }
        case .form(let pairs):
            if let violation = FuzzFormParser.designViolation(request.body) {
                problem("form encoding", violation)
            }
            switch FuzzFormParser.parse(request.body) {
            case .success(let parsed):
                if !fuzzSamePairs(parsed, pairs) {
                    problem("form pairs", "expected \(fuzzShow(pairs)), parsed \(fuzzShow(parsed))")
                }
            case .failure(let error): problem("form pairs", error.description)
            }
        case .json(let object):
            if request.body.isEmpty, case .object(let members) = object, members.isEmpty { break }
            do {
                let parsed = try FuzzJSON.parse(request.body)
                if !object.same(as: parsed) {
                    problem("json body", "expected \(object.text), parsed \(parsed.text)")
                }
            } catch {
                problem("json body", "expected \(object.text): \(error.description)")
            }
        case .multipart(let parts):
            switch FuzzMultipartParser.boundary(fromContentType: type ?? "") {
            case .failure(let error): problem("content-type", error.description)
            case .success(let boundary):
                switch FuzzMultipartParser.parse(request.body, boundary: boundary) {
                case .failure(let error): problem("multipart syntax", error.description)
                case .success(let parsed): compareParts(parsed, parts, problem: problem)
                }
            }
        }
    }

    private static func compareParts(
        _ parsed: [FuzzMultipartParser.Part], _ expected: [FuzzExpectedPart],
        problem: (String, String) -> Void
    ) {
        guard parsed.count == expected.count else {
            problem("multipart parts", "expected \(expected.count) parts, parsed \(parsed.count)")
            return
        }
        for (index, (part, want)) in zip(parsed, expected).enumerated() {
            let label =
                "part \(index + 1) (\(want.filename == nil ? "field" : "file") \(want.name.fuzzLiteral))"
            let names = part.parameter("name")
            let filenames = part.parameter("filename")
            if names.count != 1 || !fuzzSame(names[0], want.name) {
                problem(
                    "multipart name", "\(label): the name parameter reads \(names.map(\.fuzzLiteral))")
            }
            if let filename = want.filename {
                if filenames.count != 1 || !fuzzSame(filenames[0], filename) {
                    problem(
                        "multipart filename",
                        "\(label): expected filename \(filename.fuzzLiteral), "
                            + "read \(filenames.map(\.fuzzLiteral))"
                    )
                }
            } else if !filenames.isEmpty {
                problem("multipart filename", "\(label): a field part carries filename \(filenames)")
            }
            if part.disposition.count != (want.filename == nil ? 1 : 2) {
                problem("multipart disposition", "\(label): parameters \(fuzzShow(part.disposition))")
            }
            let types = part.header("Content-Type")
            if let type = want.contentType {
                if types.count != 1 || !fuzzSame(types[0], type) {
                    problem(
                        "multipart part type",
                        "\(label): expected Content-Type \(type.fuzzLiteral), read \(types)")
                }
            } else if !types.isEmpty {
                problem("multipart part type", "\(label): a field part carries Content-Type \(types)")
            }
            if part.headers.count != (want.filename == nil ? 1 : 2) {
                problem("multipart part headers", "\(label): headers \(fuzzShow(part.headers))")
            }
            if part.body != want.data {
                problem(
                    "multipart content",
                    "\(label): expected \(fuzzShow(want.data)), read \(fuzzShow(part.body))")
            }
        }
    }

    /// §4: each caller header once, value trimmed (never dropped), the winning level's spelling.
    private static func compareHeaders(
        _ request: FuzzWireRequest, _ expected: FuzzExpectation, problem: (String, String) -> Void
    ) {
        for header in expected.headers {
            let matching = request.fields(header.name)
            guard matching.count == 1, let field = matching.first else {
                problem(
                    "header",
                    "expected one \(header.name.fuzzLiteral) field = \(header.value.fuzzLiteral), "
                        + "got \(matching.count)"
                )
                continue
            }
            if !fuzzSame(field.name, header.name) {
                problem(
                    "header name spelling",
                    "expected \(header.name.fuzzLiteral), sent \(field.name.fuzzLiteral)")
            }
            if !fuzzSame(field.value, header.value) {
                problem(
                    "header value",
                    "\(header.name.fuzzLiteral): expected \(header.value.fuzzLiteral)")
            }
        }
        let expectedNames = Set(expected.headers.map { fuzzLowerASCII($0.name) })
        for field in request.fields(withLowercasePrefix: "x-fuzz") {
            if !expectedNames.contains(fuzzLowerASCII(field.name)) {
                problem("header", "unexpected field \(field.name.fuzzLiteral)")
            }
        }
    }

    /// A raw path segment breaking DESIGN §3's literal set, or nil.
    static func segmentViolation(_ segment: ArraySlice<UInt8>) -> String? {
        let allowed = Array("!$&'()*+,;=:@".utf8)
        var index = segment.startIndex
        while index < segment.endIndex {
            let byte = segment[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < segment.endIndex, let high = fuzzHexValue(segment[index + 1]),
                    let low = fuzzHexValue(segment[index + 2])
                else { return "a '%' not followed by two hex digits in \(fuzzShow(segment))" }
                let decoded = high << 4 | low
                if fuzzIsUnreserved(decoded) || allowed.contains(decoded) {
                    return
                        "\(fuzzShow([decoded])) percent-encoded in segment \(fuzzShow(segment)) (it stays literal)"
                }
                index += 3
            } else if fuzzIsUnreserved(byte) || allowed.contains(byte) {
                index += 1
            } else {
                return "\(fuzzShow([byte])) sent literally in segment \(fuzzShow(segment))"
            }
        }
        return nil
    }
}
