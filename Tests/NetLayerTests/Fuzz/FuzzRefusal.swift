import NetLayer

/// The inputs DESIGN refuses before anything is sent, and the error code each must throw.
enum FuzzRefusal: String, Sendable, CaseIterable {
    /// §4: a header value with a control character other than HTAB.
    case headerValueControl = "header value with a control character"
    /// §4: a header name that is not an RFC 9110 token (empty included).
    case headerNameNotToken = "header name that is not a token"
    /// §17: a framing header set by the caller.
    case framingHeader = "framing header set by the caller"
    /// §17: a multipart part's Content-Type is a header value too ("nothing a caller passes
    /// reaches … a multipart part header unchecked").
    case partTypeControl = "file part Content-Type with a control character"
    /// §3: an empty, `.` or `..` path-part value.
    case pathPartDots = "empty, '.' or '..' path part"
    /// A `nan` or infinite `Double` anywhere in the params.
    case nonFiniteNumber = "non-finite number in params"

    /// The `NetLayerError` code the call must throw.
    var code: NetLayerError.Code {
        switch self {
        case .headerValueControl, .headerNameNotToken, .framingHeader, .partTypeControl: .invalidHeader
        case .pathPartDots: .invalidPathPart
        case .nonFiniteNumber: .encodingFailed
        }
    }

    static let framingNames: Set<String> = [
        "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "host",
    ]

    /// Every refused input in `fuzzCase`.
    static func all(in fuzzCase: FuzzCase) -> Set<FuzzRefusal> {
        var found = Set<FuzzRefusal>()
        for header in fuzzCase.headers {
            if !fuzzIsToken(header.name) { found.insert(.headerNameNotToken) }
            if framingNames.contains(fuzzLowerASCII(header.name)) { found.insert(.framingHeader) }
            if hasControl(header.value) { found.insert(.headerValueControl) }
        }
        if fuzzCase.files.contains(where: { $0.contentType.map(hasControl) ?? false }) {
            found.insert(.partTypeControl)
        }
        if case .string(let text) = fuzzCase.pathValue, text.isEmpty || text == "." || text == ".." {
            found.insert(.pathPartDots)
        }
        if (fuzzCase.targetParams + fuzzCase.params).contains(where: { $0.value.containsNonFinite }) {
            found.insert(.nonFiniteNumber)
        }
        return found
    }

    /// The code a case must throw: nil when DESIGN accepts it. Cases mixing refusals with different
    /// codes are never generated (DESIGN does not say which check comes first).
    static func expectedCode(_ fuzzCase: FuzzCase) -> NetLayerError.Code? {
        all(in: fuzzCase).first?.code
    }

    /// Whether the case's refusals all call for the same code.
    static func isUnambiguous(_ fuzzCase: FuzzCase) -> Bool {
        Set(all(in: fuzzCase).map { $0.code.description }).count <= 1
    }

    /// CR, LF, NUL, 0x01–0x1F except HTAB, and DEL.
    static func hasControl(_ text: String) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
