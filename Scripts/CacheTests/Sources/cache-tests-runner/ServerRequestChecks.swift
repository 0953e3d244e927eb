import NetLayer

/// The checks of what the server received against what the test expected (the suite's
/// `checkServerRequests`): which requests reached it, validators, request fields, methods, and
/// whether the client saw the response fields the server sent.
struct ServerRequestChecks {
    let requests: [RequestTemplate]
    /// The client's responses, one per request.
    let responses: [ObservedResponse]
    /// What the server recorded, in arrival order.
    let received: [ServerRequest]

    /// Runs every check; the first that fails throws.
    func run() throws(TestFailure) {
        var serverIndex = 0
        for (index, request) in requests.enumerated() {
            let number = index + 1
            let typeSetup = request.isSetup(for: "expected_type")
            // A response from the cache never reached the server: it takes no place in its list.
            if request.expectedType == "cached" { continue }
            let seen = received.indices.contains(serverIndex) ? received[serverIndex] : nil
            serverIndex += 1
            if request.expectedType == "not_cached" {
                try TestFailure.check(
                    seen?.requestNumber == number, setup: typeSetup,
                    "Response \(number) comes from cache (\(seen?.requestNumber.map(String.init) ?? "none") on server)"
                )
            }
            let validators: [String] =
                switch request.expectedType {
                case "etag_validated": ["if-none-match"]
                case "lm_validated": ["if-modified-since"]
                default: []
                }
            for validator in validators {
                guard let seen else {
                    throw TestFailure(
                        kind: typeSetup ? "Setup" : "Assertion",
                        message: "request \(number) wasn't sent to server")
                }
                try TestFailure.check(
                    seen.requestFields[validator] != nil, setup: typeSetup,
                    "request \(number) doesn't have \(validator) header")
            }
            try checkRequestFields(request, seen: seen, number: number)
            if let seen, index < responses.count {
                try checkResponseFields(sent: seen, received: responses[index], number: number)
            }
            if let method = try request.string("expected_method") {
                try TestFailure.check(
                    seen?.method == method, setup: request.isSetup(for: "expected_method"),
                    "Request \(number) had method \(seen?.method ?? "none"), not \(method)")
            }
        }
    }

    /// `expected_request_headers` and `expected_request_headers_missing`.
    private func checkRequestFields(_ request: RequestTemplate, seen: ServerRequest?, number: Int)
        throws(TestFailure)
    {
        let expected = try request.headers("expected_request_headers")
        let unexpected = try request.headers("expected_request_headers_missing")
        if expected.isEmpty && unexpected.isEmpty { return }
        guard let seen else {
            throw TestFailure(kind: "Assertion", message: "Request \(number) was not seen by the server")
        }
        let presentSetup = request.isSetup(for: "expected_request_headers")
        for header in expected {
            let value = seen.requestField(header.lowercasedName)
            if header.isBareName {
                try TestFailure.check(
                    value != nil, setup: presentSetup, "Request \(number) \(header.name) header not present.")
            } else {
                try TestFailure.check(
                    value == header.text, setup: presentSetup,
                    "Request \(number) header \(header.name) is \"\(value ?? "undefined")\", not \"\(header.text ?? "null")\""
                )
            }
        }
        let missingSetup = request.isSetup(for: "expected_request_headers_missing")
        for header in unexpected {
            let value = seen.requestField(header.lowercasedName)
            if header.isBareName {
                try TestFailure.check(
                    value == nil, setup: missingSetup, "Request \(number) \(header.name) header present.")
            } else {
                try TestFailure.check(
                    value != header.text, setup: missingSetup,
                    "Request \(number) header \(header.name) is \"\(value ?? "undefined")\"")
            }
        }
    }

    /// Every response field the server marked as kept must reach the client unchanged.
    private func checkResponseFields(sent: ServerRequest, received: ObservedResponse, number: Int)
        throws(TestFailure)
    {
        for (name, value) in sent.responseFields {
            if Profile.uncheckedResponseFields.contains(name.lowercased()) { continue }
            let expected = HeaderTemplate.text(of: value)
            let actual = received.field(name)
            try TestFailure.check(
                actual == expected, setup: false,
                "Response \(number) header \(name) is \"\(actual ?? "null")\", not \"\(expected ?? "null")\"")
        }
    }
}
