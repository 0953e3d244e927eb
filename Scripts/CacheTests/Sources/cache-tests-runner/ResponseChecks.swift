import NetLayer

/// The checks of one response as the client received it (the suite's `checkResponse`): retries,
/// where the response came from, status, fields and body.
struct ResponseChecks {
    let request: RequestTemplate
    /// The request's number in the test, from 1.
    let number: Int
    /// The test run's id: the default body the server sends.
    let uuid: String
    let response: ObservedResponse

    /// Runs every check; the first that fails throws.
    func run() throws(TestFailure) {
        try checkRetries()
        try checkType()
        try checkStatus()
        try checkPresentFields()
        try checkMissingFields()
        try checkBody()
    }

    /// `Request-Numbers` lists every request the server saw; a number twice means the request was
    /// sent again (scored `retry`).
    private func checkRetries() throws(TestFailure) {
        guard let list = response.field("Request-Numbers") else { return }
        let numbers = list.split(separator: " ", omittingEmptySubsequences: false).map {
            JavaScriptInteger.parse(String($0))
        }
        // A JavaScript Set holds NaN once, like any number: `nil` counts as one value here too.
        try TestFailure.check(numbers.count == Set(numbers).count, setup: true, "retry")
    }

    /// `cached`: the server counted an earlier request (or a 304 without the count); `not_cached`:
    /// the server counted this one.
    private func checkType() throws(TestFailure) {
        let setup = request.isSetup(for: "expected_type")
        let counted = response.serverRequestCount
        switch request.expectedType {
        case "cached":
            if response.status == 304 && counted == nil { return }
            try TestFailure.check(
                counted.map { $0 < number } ?? false, setup: setup,
                "Response \(number) does not come from cache")
        case "not_cached":
            try TestFailure.check(counted == number, setup: setup, "Response \(number) comes from cache")
        default:
            break
        }
    }

    private func checkStatus() throws(TestFailure) {
        let status = response.status
        if request.has("expected_status") {
            guard let expected = request.fields["expected_status"], expected != .null else { return }
            guard let code = expected.intValue else { throw .malformed("expected_status", expected) }
            try TestFailure.check(
                status == code, setup: request.isSetup(for: "expected_status"),
                "Response \(number) status is \(status), not \(code)")
        } else if let configured = try request.configuredStatus() {
            try TestFailure.check(
                status == configured, setup: true, "Response \(number) status is \(status), not \(configured)"
            )
        } else if status == 999 {
            // The server expected a conditional request and did not get one.
            try TestFailure.check(
                false, setup: request.isSetup(for: "expected_type"),
                "Request \(number) should have been conditional, but it was not.")
        } else {
            try TestFailure.check(
                status == 200, setup: true, "Response \(number) status is \(status), not 200")
        }
    }

    /// `expected_response_headers`: present, equal to a value (relative values resolved against
    /// this response), equal to another field (`=`), or an integer above a bound (`>`).
    private func checkPresentFields() throws(TestFailure) {
        let setup = request.isSetup(for: "expected_response_headers")
        for header in try request.headers("expected_response_headers") {
            let name = header.name
            // A bare name or an operator entry asks for the field; `[name, value]` compares the
            // value only, so an absent field reads "null" in the message.
            if header.isBareName || header.third != nil {
                try TestFailure.check(
                    response.has(name), setup: setup, "Response \(number) \(name) header not present.")
            }
            if header.isBareName { continue }
            let value = response.field(name)
            if let operand = header.third {
                switch header.text {
                case "=":
                    let other = HeaderTemplate.text(of: operand) ?? ""
                    let expected = response.field(other)
                    try TestFailure.check(
                        value == expected, setup: setup,
                        "Response \(number) header \(name) is \(value ?? "null"), should match \(other) (\(expected ?? "null"))"
                    )
                case ">":
                    guard let bound = operand.intValue else {
                        throw .malformed("expected_response_headers", operand)
                    }
                    let number = value.flatMap(JavaScriptInteger.parse)
                    try TestFailure.check(
                        number.map { $0 > bound } ?? false, setup: setup,
                        "Response \(self.number) header \(name) is \(value ?? "null"), should be bigger than \(bound)"
                    )
                default:
                    throw .malformed("expected_response_headers", header.text ?? "?")
                }
            } else {
                let expected = MagicValues.resolve(header, relativeTo: response, in: request)
                try TestFailure.check(
                    value == expected, setup: setup,
                    "Response \(number) header \(name) is \"\(value ?? "null")\", not \"\(expected ?? "null")\""
                )
            }
        }
    }

    /// `expected_response_headers_missing`: a bare name must be absent; `[name, value]` means the
    /// field must not contain that value.
    ///
    /// The suite's client reads the `[name, value]` form from a property a fetch `Headers` object
    /// does not have, so it never fails there; this runner checks what the form says (the
    /// `headers-store-*` tests: a cache must not store hop-by-hop fields).
    private func checkMissingFields() throws(TestFailure) {
        let setup = request.isSetup(for: "expected_response_headers_missing")
        for header in try request.headers("expected_response_headers_missing") {
            let name = header.name
            let value = response.field(name)
            if header.isBareName {
                try TestFailure.check(
                    value == nil, setup: setup,
                    "Response \(number) includes unexpected header \(name): \"\(value ?? "null")\"")
            } else if let unwanted = header.text, let value, !value.isEmpty {
                try TestFailure.check(
                    !value.contains(unwanted), setup: setup,
                    "Response \(number) header \(name) still has value \"\(value)\"")
            }
        }
    }

    /// The body: unchecked with `check_body: false`; else `expected_response_text`, the configured
    /// `response_body`, or the test run's id (the server's default body), except for 204 and 304
    /// responses and HEAD requests.
    private func checkBody() throws(TestFailure) {
        if request.fields["check_body"]?.boolValue == false { return }
        let text = response.text
        if request.has("expected_response_text") {
            guard let expected = try request.string("expected_response_text") else { return }
            try TestFailure.check(
                text == expected, setup: request.isSetup(for: "expected_response_text"),
                "Response body is \"\(text)\", not \"\(expected)\"")
        } else if let configured = try request.string("response_body") {
            try TestFailure.check(
                text == configured, setup: true, "Response body is \"\(text)\", not \"\(configured)\"")
        } else if response.status != 204, response.status != 304, request.method != "HEAD" {
            try TestFailure.check(text == uuid, setup: true, "Response body is \"\(text)\", not \"\(uuid)\"")
        }
    }
}
