/// The request fields a stored response was selected by (RFC 9111 §4.1), and whether a new
/// request presents the same ones.
///
/// A stored response's `Vary` names request fields; a later request matches when, for each name,
/// both requests lack the field or both carry it with the same normalised value. Normalisation:
/// the field lines are combined into one list (RFC 9110 §5.3), and each member is trimmed of
/// whitespace, so `Foo: 1` + `Foo: 2` equals `Foo: 1, 2` equals `Foo:  1 ,2 ` (cache-tests
/// `vary-normalise-combine`, `vary-normalise-space`, "optimal"). Case and order of members count,
/// but in the `Accept-Language`, `-Encoding` and `-Charset` fields (``unorderedCaseInsensitive``);
/// `vary-normalise-lang-select` (choosing by `Content-Language`) is not attempted. `*` never
/// matches (§4.1, `vary-syntax-*`, required).
///
/// Bounded: at most ``maximumNames`` names; a longer `Vary` is ``Parsed/invalid`` and the
/// response is not stored, so 10,000 names cost one scan.
struct VaryKey: Sendable, Hashable {
    /// The most `Vary` names a stored response may have.
    static let maximumNames = 32

    /// A response's `Vary`.
    enum Parsed: Sendable, Hashable {
        /// The lower-cased field names, each once, in order (empty when there is no `Vary`).
        case names([String])
        /// `*` among the members (on any line): no request matches.
        case star
        /// A member that is not a field name (a token), or more than ``maximumNames`` members.
        case invalid
    }

    /// One selecting field: its lower-cased name and its normalised value, `nil` when the request
    /// did not carry it.
    struct Field: Sendable, Hashable {
        let name: String
        let value: String?
    }

    /// The selecting fields, in the order `Vary` names them.
    let fields: [Field]

    /// Parses every `Vary` line of a response.
    static func parse(_ responseHeaders: HeaderFields) -> Parsed {
        let (members, overflowed) = FieldList.elements(
            responseHeaders.values(for: "Vary"), limit: maximumNames)
        if members.contains("*") { return .star }
        if overflowed { return .invalid }
        var names: [String] = []
        for member in members {
            guard FieldList.isToken(member) else { return .invalid }
            let name = member.lowercased()
            if !names.contains(name) { names.append(name) }
        }
        return .names(names)
    }

    /// The key of a response to `request`; `nil` when the response's `Vary` is `*` or invalid.
    init?(responseHeaders: HeaderFields, requestHeaders: HeaderFields) {
        guard case .names(let names) = Self.parse(responseHeaders) else { return nil }
        fields = names.map { Field(name: $0, value: Self.normalisedValue(of: $0, in: requestHeaders)) }
    }

    /// A key from its fields (a store that saved one).
    init(fields: [Field]) { self.fields = fields }

    /// Whether `request` presents the same selecting fields as the stored request (§4.1). With
    /// the stored response's `contentLanguage`, a different `Accept-Language` still selects it when
    /// its language is the one the new request prefers most (§4.1 lets a cache match by what a
    /// value means; cache-tests `vary-normalise-lang-select`, optimal).
    func matches(_ requestHeaders: HeaderFields, contentLanguage: String? = nil) -> Bool {
        fields.allSatisfy { field in
            if field.value == Self.normalisedValue(of: field.name, in: requestHeaders) { return true }
            guard field.name == "accept-language", let contentLanguage else { return false }
            return Self.isMostPreferred(contentLanguage, by: requestHeaders.values(for: "Accept-Language"))
        }
    }

    /// Whether every language of `contentLanguage` has the highest (non-zero) `q` of the
    /// `Accept-Language` values `accepted` (at most 32 members read; a wildcard selects nothing).
    static func isMostPreferred(_ contentLanguage: String, by accepted: [String]) -> Bool {
        let (languages, tooMany) = FieldList.elements([contentLanguage], limit: 8)
        let (members, overflowed) = FieldList.elements(accepted, limit: 32)
        guard !languages.isEmpty, !tooMany, !overflowed else { return false }
        var weights: [String: Double] = [:]
        for member in members {
            let parts = member.split(separator: ";", omittingEmptySubsequences: false)
            let tag = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingCharacters(in: .whitespaces).lowercased()
                if pair.hasPrefix("q="), let value = Double(pair.dropFirst(2)), (0...1).contains(value) {
                    weight = value
                }
            }
            if !tag.isEmpty, tag != "*" { weights[tag] = max(weights[tag] ?? 0, weight) }
        }
        guard let top = weights.values.max(), top > 0 else { return false }
        return languages.allSatisfy { weights[$0.trimmingCharacters(in: .whitespaces).lowercased()] == top }
    }

    /// The value of `name` in `headers` as compared: all lines combined, each list member trimmed,
    /// joined by `,`; an empty string when the field is present but empty; `nil` when absent. A
    /// comma inside a quoted-string does not split.
    static func normalisedValue(of name: String, in headers: HeaderFields) -> String? {
        let values = headers.values(for: name)
        guard !values.isEmpty else { return nil }
        let (members, _) = FieldList.elements(values, limit: Int.max)
        guard unorderedCaseInsensitive.contains(name) else { return members.joined(separator: ",") }
        return members.map { member in
            String(String.UnicodeScalarView(member.unicodeScalars.filter { $0 != " " && $0 != "\t" }))
                .lowercased()
        }.sorted().joined(separator: ",")
    }

    /// Fields whose members are case-insensitive tokens with weights, so that neither their case,
    /// their order nor the whitespace inside a member changes what they select: `en, de` equals
    /// `De, EN` equals `de;q=1.0 , en` up to the spaces (cache-tests `vary-normalise-lang-order`,
    /// `-lang-case`, `-lang-space`, "optimal"). Lower-case names.
    static let unorderedCaseInsensitive: Set<String> = [
        "accept-language", "accept-encoding", "accept-charset",
    ]
}
