import Foundation

/// Hides one request's secrets in every text NetLayer prints about it: debug lines, `curl`
/// commands, error messages and previews.
///
/// Two mechanisms work together:
/// - by name: the values of headers, params, JSON keys and path parts whose names the resource's
///   ``Redaction`` lists are replaced by its placeholder where they are printed;
/// - by value: every value sent under such a name is a known secret, and is masked wherever it
///   appears in printed text, in any of the spellings it travels in (as is, percent-encoded,
///   JSON-escaped). A server that echoes a key back ("Incorrect API key provided: sk-…") cannot
///   make it appear in a log. Values shorter than ``minimumMaskedLength`` are only hidden by name,
///   since masking them everywhere would blank out ordinary text.
///
/// The secrets are the values as sent: the prepared headers and every header block that went on
/// the wire after the interceptors and the authenticator (a refreshed token after a replay too).
/// A `Basic` credential also yields its decoded `user:password` and the password alone, and every
/// secret is matched whatever its case, so an upper-cased echo is masked too. Texts a server
/// chose are masked wherever they are printed, header names included.
struct Redactor: Sendable {
    let redaction: Redaction
    /// Known secret texts, longest first, so a secret containing another is masked whole.
    private(set) var secrets: [String] = []
    /// Percent-encoded values of path parts whose token name is secret; masked as whole segments.
    private(set) var secretSegments: Set<String> = []

    /// Shorter secrets are hidden by name only.
    static let minimumMaskedLength = 4

    init(redaction: Redaction) {
        self.redaction = redaction
    }

    /// The secrets of a prepared request: values under secret header, param and path-part names,
    /// and secret fields of a form or JSON body given as data.
    init(_ prepared: PreparedRequest, pathParts: [String: any ParamConvertible], redaction: Redaction) {
        self.redaction = redaction
        guard redaction.isActive else { return }
        var found: [String] = []
        for headers in [prepared.headers] + prepared.sentHeaderBlocks {
            for field in headers.fields where redaction.isSecret(field.name) {
                found += Self.credentialForms(field.value)
                if field.name.caseInsensitiveEquals("Cookie") { found += Self.cookieValues(field.value) }
            }
        }
        for pair in FormEncoder(options: .default).pairs(prepared.params) where redaction.isSecret(pair.name)
        {
            found.append(pair.value)
        }
        for (key, value) in pathParts {
            let name = key.hasPrefix(":") ? String(key.dropFirst()) : key
            guard redaction.isSecret(name), let text = value.paramValue.scalarText(bools: .literal) else {
                continue
            }
            found.append(text)
            var encoded: [UInt8] = []
            PercentEncoding.append(text, allowing: PercentEncoding.pathSegment, to: &encoded)
            secretSegments.insert(String(decoding: encoded, as: UTF8.self))
        }
        if let body = prepared.body, prepared.placement == .query,
            let type = prepared.headers["Content-Type"]
        {
            if MediaType.isForm(type) {
                for (name, value) in FormText.pairs(String(decoding: body, as: UTF8.self))
                where redaction.isSecret(name) {
                    found.append(value)
                }
            } else if MediaType.isJSON(type) {
                found += redaction.secretJSONValues(body)
            }
        }
        add(found)
    }

    /// A secret header value and the parts of it a server may echo: `Bearer sk-…` and `sk-…`;
    /// `Basic dXNlcjpwYXNz`, `dXNlcjpwYXNz`, the decoded `user:pass` and the password `pass`.
    static func credentialForms(_ value: String) -> [String] {
        var forms = [value]
        guard let space = value.firstIndex(of: " ") else { return forms }
        let credential = String(value[value.index(after: space)...]).trimmingTrailingSpaces()
        forms.append(credential)
        guard String(value[..<space]).caseInsensitiveEquals("Basic"),
            let data = Data(base64Encoded: credential, options: .ignoreUnknownCharacters),
            let decoded = String(data: data, encoding: .utf8)
        else { return forms }
        forms.append(decoded)
        if let colon = decoded.firstIndex(of: ":") {
            forms.append(String(decoded[decoded.index(after: colon)...]))
        }
        return forms
    }

    /// The value of each `name=value` pair of a `Cookie` field (`sid=abc; theme=dark`): a server
    /// that echoes one cookie's value unmasks it no more than a whole header's.
    static func cookieValues(_ value: String) -> [String] {
        value.split(separator: ";").compactMap { pair in
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            return String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        }
    }

    /// Adds secret values and the spellings they travel in: percent-encoded as in a query or form
    /// and as in a path segment, JSON-escaped with and without escaped slashes, and as printed once
    /// its control characters are escaped (text escaped before it is masked still hides it).
    private mutating func add(_ values: [String]) {
        var all = Set(secrets)
        for value in values where value.count >= Self.minimumMaskedLength {
            all.insert(value)
            for allowed in [PercentEncoding.unreserved, PercentEncoding.pathSegment] {
                var encoded: [UInt8] = []
                PercentEncoding.append(value, allowing: allowed, to: &encoded)
                all.insert(String(decoding: encoded, as: UTF8.self))
            }
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
            all.insert(escaped)
            all.insert(escaped.replacingOccurrences(of: "/", with: "\\/"))
            all.insert(PrintableText.escaped(value))
        }
        secrets = all.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// `text` with every known secret replaced by the placeholder, in any case (a server that
    /// upper-cases a token it echoes does not unmask it).
    func mask(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var result = text
        // One search per secret (a case-insensitive search finds the exact spelling too); only a
        // secret that is there costs more.
        for secret in secrets where result.range(of: secret, options: .caseInsensitive) != nil {
            result = result.replacingOccurrences(of: secret, with: redaction.placeholder)
            result = result.replacingOccurrences(
                of: secret, with: redaction.placeholder, options: .caseInsensitive)
        }
        return result
    }

    /// A URL as printed: no user info, secret query values and secret path parts redacted, known
    /// secrets masked.
    func url(_ url: URL) -> String {
        var text = redaction.url(url)
        if !secretSegments.isEmpty {
            let queryStart = text.firstIndex(of: "?") ?? text.endIndex
            let schemeEnd = text.range(of: "://")?.upperBound ?? text.startIndex
            let pathStart = text[schemeEnd..<queryStart].firstIndex(of: "/") ?? queryStart
            let segments = text[pathStart..<queryStart].split(
                separator: "/", omittingEmptySubsequences: false
            )
            .map { secretSegments.contains(String($0)) ? redaction.placeholder : String($0) }
            text = String(text[..<pathStart]) + segments.joined(separator: "/") + text[queryStart...]
        }
        return mask(text)
    }

    /// A header value as printed.
    func headerValue(_ value: String, for name: String) -> String {
        redaction.isSecret(name) ? redaction.placeholder : mask(value)
    }

    /// A header field as printed, `Name: value`: the value redacted by name and masked, and the
    /// name masked too (a server may echo a secret as a header's name).
    func headerField(name: String, value: String) -> String {
        "\(mask(name)): \(headerValue(value, for: name))"
    }

    /// Header fields as printed, `Name: value · Name: value`.
    func headerFields(_ fields: [HeaderField]) -> String {
        fields.map { headerField(name: $0.name, value: $0.value) }.joined(separator: " · ")
    }
}

extension Redaction {
    /// Whether anything is redacted at all.
    var isActive: Bool { !names.isEmpty || !fragments.isEmpty }

    /// String and number values under secret keys (at any depth) of a JSON body.
    func secretJSONValues(_ data: Data) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return []
        }
        var found: [String] = []
        func walk(_ value: Any, secret: Bool) {
            if let dictionary = value as? [String: Any] {
                for (key, item) in dictionary { walk(item, secret: secret || isSecret(key)) }
            } else if let array = value as? [Any] {
                for item in array { walk(item, secret: secret) }
            } else if secret, let text = value as? String {
                found.append(text)
            } else if secret, let number = value as? NSNumber {
                found.append(number.stringValue)
            }
        }
        walk(object, secret: false)
        return found
    }
}

/// `name=value&…` text split into decoded pairs (a query or a form body).
enum FormText {
    static func pairs(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode: (Substring) -> String = { part in
                let plain = part.replacingOccurrences(of: "+", with: " ")
                return plain.removingPercentEncoding ?? plain
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}
