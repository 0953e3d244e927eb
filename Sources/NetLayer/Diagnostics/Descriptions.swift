import Foundation

// What `print`, string interpolation, `dump` and a debugger show of the public values a call
// hands out. Without these, Swift would print every stored field: an `Authorization` value, an
// `api_key` in a query, a server's escape sequences. A value a call handed out (a `Response`, its
// `head`, its `redirects`, its `links`) is redacted by that call's redactor, built when it is
// printed: its resource's redaction, and every secret the call sent masked wherever the server
// echoed it, header names included. A value made by hand is redacted by name with
// `Redaction.default`. Every text is escaped like every other text NetLayer produces (one line);
// `dump` shows the same text, not the fields.

extension HeaderFields: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Name: value · Name: value`, with the values of secret names (``Redaction/default``) shown
    /// as `<redacted>` and control characters escaped.
    public var description: String {
        PrintableText.escaped(
            fields.map { "\($0.name): \(Redaction.default.value($0.value, for: $0.name))" }
                .joined(separator: " · "))
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["fields": description]) }
}

extension TransportRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `GET https://host/path?api_key=<redacted> · headers: … · body: 12 bytes`: secret query values
    /// and header values (``Redaction/default``) and any user info left out, controls escaped.
    public var description: String { printed(by: Redactor(redaction: .default)) }

    /// The description, redacted by `redactor`.
    func printed(by redactor: Redactor) -> String {
        redactor.line(
            "\(method) \(redactor.url(url))", headerFields, then: body.map { "body: \($0.length) bytes" })
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["request": description]) }
}

extension ResponseHead: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `200 https://host/path · headers: …`, redacted and escaped as ``HeaderFields/description``;
    /// the head of a call's response also masks every secret that call sent, in names and values.
    public var description: String {
        let redactor = secrets.redactor
        return redactor.line("\(statusCode)" + (url.map { " " + redactor.url($0) } ?? ""), headerFields)
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["head": description]) }
}

extension Redirect: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `302 https://a/old?token=<redacted> → GET https://b/new`, redacted and escaped; a redirect
    /// a call followed also masks every secret that call sent.
    public var description: String {
        let redactor = secrets.redactor
        return PrintableText.escaped("\(statusCode) \(redactor.url(from)) → \(method) \(redactor.url(to))")
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["redirect": description]) }
}

extension Response: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Response<Book>: 200 · GET https://host/books/1 · 1234 bytes · 0.042 s`. The decoded value is
    /// named by its type only: it may hold anything (a token a login returned); print it yourself
    /// when it is safe to. Every secret the call sent is masked.
    public var description: String { printed(by: secrets.redactor) }

    /// The description, redacted by `redactor`.
    private func printed(by redactor: Redactor) -> String {
        var parts = [
            "Response<\(Value.self)>: \(statusCode)",
            "\(sentRequest.method) \(redactor.url(url ?? sentRequest.url))", "\(data.count) bytes",
            duration.formattedSeconds,
        ]
        if !redirects.isEmpty { parts.append("redirects: \(redirects.count)") }
        if attempts > 1 { parts.append("attempts: \(attempts)") }
        return PrintableText.escaped(parts.joined(separator: " · "))
    }

    /// ``description`` with the response head and the sent request, one per line.
    public var debugDescription: String {
        let redactor = secrets.redactor
        return [printed(by: redactor), "head: \(head)", "sent: \(sentRequest.printed(by: redactor))"]
            .joined(separator: "\n")
    }

    /// The texts of ``debugDescription``, so `dump` shows no secret either.
    public var customMirror: Mirror {
        let redactor = secrets.redactor
        return Mirror(
            self,
            children: [
                "response": printed(by: redactor), "head": head.description,
                "sent": sentRequest.printed(by: redactor),
            ])
    }
}

extension Redactor {
    /// `first · headers: … · last`, the header fields redacted, the whole escaped to one line;
    /// the headers part is left out when there are none, and so is `last` when `nil`.
    fileprivate func line(_ first: String, _ fields: HeaderFields, then last: String? = nil) -> String {
        var parts = [first]
        if !fields.isEmpty { parts.append("headers: \(headerFields(fields.fields))") }
        if let last { parts.append(last) }
        return PrintableText.escaped(parts.joined(separator: " · "))
    }
}
