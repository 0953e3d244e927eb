import Foundation

// What `print`, string interpolation, `dump` and a debugger show of the public values a call
// hands out. Without these, Swift would print every stored field: an `Authorization` value, an
// `api_key` in a query, a server's escape sequences. Each text is redacted with
// `Redaction.default` (these values do not know their resource's redaction) and escaped like every
// other text NetLayer produces; `dump` shows the same text, not the fields.

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
    public var description: String {
        var parts = ["\(method) \(Redaction.default.url(url))"]
        if !headerFields.isEmpty { parts.append("headers: \(headerFields)") }
        if let body { parts.append("body: \(body.length) bytes") }
        return PrintableText.escaped(parts.joined(separator: " · "))
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["request": description]) }
}

extension ResponseHead: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `200 https://host/path · headers: …`, redacted and escaped as ``HeaderFields/description``.
    public var description: String {
        var parts = ["\(statusCode)" + (url.map { " " + Redaction.default.url($0) } ?? "")]
        let fields = headerFields
        if !fields.isEmpty { parts.append("headers: \(fields)") }
        return PrintableText.escaped(parts.joined(separator: " · "))
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["head": description]) }
}

extension Redirect: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `302 https://a/old?token=<redacted> → GET https://b/new`, redacted and escaped.
    public var description: String {
        PrintableText.escaped(
            "\(statusCode) \(Redaction.default.url(from)) → \(method) \(Redaction.default.url(to))")
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["redirect": description]) }
}

extension Response: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Response<Book>: 200 · GET https://host/books/1 · 1234 bytes · 0.042 s`. The decoded value is
    /// named by its type only: it may hold anything (a token a login returned); print it yourself
    /// when it is safe to.
    public var description: String {
        var parts = [
            "Response<\(Value.self)>: \(statusCode)",
            "\(sentRequest.method) \(Redaction.default.url(url ?? sentRequest.url))", "\(data.count) bytes",
            duration.formattedSeconds,
        ]
        if !redirects.isEmpty { parts.append("redirects: \(redirects.count)") }
        if attempts > 1 { parts.append("attempts: \(attempts)") }
        return PrintableText.escaped(parts.joined(separator: " · "))
    }

    /// ``description`` with the response head and the sent request, one per line.
    public var debugDescription: String {
        [description, "head: \(head)", "sent: \(sentRequest)"].joined(separator: "\n")
    }

    /// The texts of ``debugDescription``, so `dump` shows no secret either.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["response": description, "head": head.description, "sent": sentRequest.description])
    }
}
