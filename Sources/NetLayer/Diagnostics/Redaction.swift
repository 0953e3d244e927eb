import Foundation

/// Which header and param names are secret, so that debug output and `curl` commands never show them.
public struct Redaction: Sendable, Hashable {
    /// Names redacted whatever their case (exact match).
    public var names: Set<String>
    /// Substrings that make any name secret (case-insensitive).
    public var fragments: [String]
    /// What is printed instead of a secret. Default: `<redacted>`.
    public var placeholder: String

    /// Creates a redaction list.
    /// - Parameters:
    ///   - names: Exact names (any case). Default: `Authorization`, `Proxy-Authorization`, `Cookie`,
    ///     `Set-Cookie`.
    ///   - fragments: Name fragments. Default: `token`, `secret`, `password`, `api-key`, `api_key`,
    ///     `apikey`.
    ///   - placeholder: The replacement text. Default: `<redacted>`.
    public init(
        names: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"],
        fragments: [String] = ["token", "secret", "password", "api-key", "api_key", "apikey"],
        placeholder: String = "<redacted>"
    ) {
        self.names = Set(names.map { $0.lowercased() })
        self.fragments = fragments.map { $0.lowercased() }
        self.placeholder = placeholder
    }

    /// Credentials headers and names containing `token`, `secret`, `password` or an API-key spelling.
    public static let `default` = Redaction()

    /// Nothing is redacted. Only for local debugging of a service with throw-away credentials.
    public static let none = Redaction(names: [], fragments: [])

    /// Whether a header or param name is secret. A form name like `user[password]` is secret too.
    public func isSecret(_ name: String) -> Bool {
        let lower = name.lowercased()
        return names.contains(lower) || fragments.contains(where: { Self.contains(lower, $0) })
    }

    /// Whether `text` contains `fragment`: bytes compared directly when both are ASCII (header
    /// and param names almost always are), else by characters. Not Foundation's `contains`, which
    /// on Linux goes through `CFString` and cost an observed call microseconds per header.
    private static func contains(_ text: String, _ fragment: String) -> Bool {
        let haystack = text.utf8
        let needle = fragment.utf8
        guard text.isASCIIBytes, needle.allSatisfy({ $0 < 0x80 }) else {
            return text.firstRange(of: fragment) != nil
        }
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count else { return false }
        var start = haystack.startIndex
        let last = haystack.index(haystack.endIndex, offsetBy: -needle.count)
        while start <= last {
            if haystack[start] == first, haystack[start...].starts(with: needle) { return true }
            start = haystack.index(after: start)
        }
        return false
    }

    /// The value, or the placeholder when the name is secret.
    func value(_ value: String, for name: String) -> String {
        isSecret(name) ? placeholder : value
    }

    /// A URL text with secret query values replaced and any user:password removed.
    func url(_ url: URL) -> String {
        let text = Redaction.stripCredentials(url)
        guard let mark = text.firstIndex(of: "?") else { return text }
        return text[..<mark] + "?" + formText(String(text[text.index(after: mark)...]))
    }

    /// Redacts the values of secret names in `name=value&…` text (a query or a form body).
    func formText(_ text: String) -> String {
        let redacted = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals]).removingPercentEncoding ?? String(pair[..<equals])
            return isSecret(name) ? "\(pair[..<equals])=\(placeholder)" : String(pair)
        }
        return redacted.joined(separator: "&")
    }

    /// Redacts secret keys (at any depth) of a JSON body; returns nil when it is not JSON.
    func json(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        var changed = false
        let cleaned = redactJSON(object, changed: &changed)
        guard changed else { return String(data: data, encoding: .utf8) }
        guard
            let out = try? JSONSerialization.data(
                withJSONObject: cleaned, options: [.sortedKeys, .fragmentsAllowed])
        else {
            return nil
        }
        return String(data: out, encoding: .utf8)
    }

    private func redactJSON(_ value: Any, changed: inout Bool) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, item) in dictionary {
                if isSecret(key) {
                    result[key] = placeholder
                    changed = true
                } else {
                    result[key] = redactJSON(item, changed: &changed)
                }
            }
            return result
        }
        if let array = value as? [Any] { return array.map { redactJSON($0, changed: &changed) } }
        return value
    }

    /// The URL's text without any `user:password@`.
    static func stripCredentials(_ url: URL) -> String {
        let text = url.absoluteString
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return text }
        components.user = nil
        components.password = nil
        return components.string ?? text
    }
}
