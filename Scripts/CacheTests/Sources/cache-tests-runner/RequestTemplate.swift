import NetLayer

/// One request of a test as the definitions give it: what the client sends, what the server is
/// configured to answer, and what the client then checks.
///
/// The fields are kept as JSON: the same object configures the server (`PUT /config/ID`), and each
/// accessor reads one field, throwing a ``TestFailure`` when it has an unexpected shape so that the
/// test is reported as failed with that reason instead of stopping the run.
struct RequestTemplate: Sendable {
    /// The request's fields, as in the definitions.
    let fields: [String: JSONValue]

    /// Whether the definitions give this field (even as `null`).
    func has(_ field: String) -> Bool { fields[field] != nil }

    /// The request as sent to the server's configuration: the definitions' fields plus the test's
    /// `name` and `id`, as the suite's client adds them.
    func configuration(for test: SuiteTest) -> JSONValue {
        var configured = fields
        configured["name"] = .string(test.name)
        configured["id"] = .string(test.id)
        return .object(configured)
    }

    /// Whether a failed check of `member` is a failure of the test's setup rather than of the cache
    /// (`setup: true`, or `member` listed in `setup_tests`).
    func isSetup(for member: String) -> Bool {
        if fields["setup"]?.boolValue == true { return true }
        return fields["setup_tests"]?.arrayValue?.contains(.string(member)) ?? false
    }

    /// `cached`, `not_cached`, `etag_validated`, `lm_validated`, or `nil`.
    var expectedType: String? { fields["expected_type"]?.stringValue }

    /// Whether the client waits 3 seconds after this request's response.
    var pausesAfter: Bool { fields["pause_after"]?.boolValue == true }

    /// The request method; GET when none is given.
    var method: String { fields["request_method"]?.stringValue ?? "GET" }

    /// The request body, if any.
    var body: String? { fields["request_body"]?.stringValue }

    /// The Fetch cache mode the suite's browser client would use (`no-cache`, …), if any.
    var fetchCacheMode: String? { fields["cache"]?.stringValue }

    /// The Fetch redirect mode (`manual`, …); `follow` when none is given.
    var redirectMode: String { fields["redirect"]?.stringValue ?? "follow" }

    /// Whether `Location` and `Content-Location` values are relative to the server's base URL.
    var magicLocations: Bool { fields["magic_locations"]?.boolValue == true }

    /// Whether an integer `If-Modified-Since` request field is relative to the previous response.
    var magicIMS: Bool { fields["magic_ims"]?.boolValue == true }

    /// Date fields this request writes in the obsolete RFC 850 format, lowercased.
    var rfc850Fields: Set<String> {
        Set(fields["rfc850date"]?.arrayValue?.compactMap { $0.stringValue?.lowercased() } ?? [])
    }

    /// A string field, or `nil` when absent or `null`.
    /// - Throws: ``TestFailure`` when the field has another type.
    func string(_ field: String) throws(TestFailure) -> String? {
        switch fields[field] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw .malformed(field, other)
        }
    }

    /// A list of header templates (`request_headers`, `expected_response_headers`, …), empty when
    /// absent.
    /// - Throws: ``TestFailure`` when the field is not an array of header entries.
    func headers(_ field: String) throws(TestFailure) -> [HeaderTemplate] {
        guard let value = fields[field], value != .null else { return [] }
        guard let entries = value.arrayValue else { throw .malformed(field, value) }
        var templates: [HeaderTemplate] = []
        for entry in entries {
            guard let template = HeaderTemplate(json: entry) else { throw .malformed(field, entry) }
            templates.append(template)
        }
        return templates
    }

    /// `response_status[0]`, when given.
    /// - Throws: ``TestFailure`` when the field is not `[code, reason]`.
    func configuredStatus() throws(TestFailure) -> Int? {
        guard let value = fields["response_status"], value != .null else { return nil }
        guard let code = value[0]?.intValue else { throw .malformed("response_status", value) }
        return code
    }
}
