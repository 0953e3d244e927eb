/// The `Cache-Control` field (RFC 9111 §5.2) parsed into directives, in order.
///
/// Syntax (§5.2, RFC 9110 §5.6.1): a comma list across every field line of `Cache-Control`; each
/// element is `token [ "=" ( token / quoted-string ) ]`. Names compare case-insensitively (they are
/// kept lower-cased). No whitespace is allowed around `=`: `max-age =5` and `max-age= 5` are
/// malformed (cache-tests `freshness-max-age-space-before-equals` / `-after-equals`, "check" tests).
/// A comma inside a quoted argument does not split (`extension="max-age=3600"` is one directive,
/// cache-tests `freshness-max-age-ignore-quoted`).
///
/// Hostile input is bounded: at most ``maximumDirectives`` directives are read (``isTruncated``
/// tells when there were more; the typed views treat that as "do not store"), and an argument longer
/// than ``maximumArgumentLength`` bytes makes its directive malformed. One pass, linear time.
struct CacheControl: Sendable, Hashable {
    /// The most directives read; 10,000 directives cost one scan, not 10,000 entries.
    static let maximumDirectives = 64
    /// The longest argument, in bytes, a directive may carry (a `no-cache="…"` list of field names).
    static let maximumArgumentLength = 4096

    /// One directive as received.
    struct Directive: Sendable, Hashable {
        /// The name, lower-cased (a token, so ASCII).
        let name: String
        /// The argument, unquoted when it was a quoted-string; `nil` when there was none or the
        /// directive is malformed.
        let argument: String?
        /// Whether the argument was a quoted-string.
        let isQuoted: Bool
        /// Whether something followed the name that is neither `=token` nor `="quoted"` (or the
        /// argument was too long). A malformed directive is still present: for `no-store` that is
        /// the restrictive reading; a malformed delta-seconds is ``DeltaSeconds/invalid``.
        let isMalformed: Bool
    }

    /// The directives in order (at most ``maximumDirectives``).
    let directives: [Directive]
    /// Whether there were more than ``maximumDirectives`` list elements.
    let isTruncated: Bool

    /// Parses the field lines of `Cache-Control`, in order.
    init(values: [String]) {
        let (elements, overflowed) = FieldList.elements(values, limit: Self.maximumDirectives)
        directives = elements.compactMap(Self.directive)
        isTruncated = overflowed
    }

    /// Parses every `Cache-Control` field of `headers`.
    init(_ headers: HeaderFields) { self.init(values: headers.values(for: "Cache-Control")) }

    /// One list element as a directive; `nil` when it does not start with a token (`=5`, `"x"`,
    /// a non-ASCII name), which names no directive at all.
    private static func directive(_ element: Substring) -> Directive? {
        let utf8 = element.utf8
        let nameEnd = utf8.firstIndex { !HeaderFields.isTokenByte($0) } ?? utf8.endIndex
        guard nameEnd > utf8.startIndex else { return nil }
        let name = String(Substring(utf8[utf8.startIndex..<nameEnd])).lowercased()
        guard nameEnd < utf8.endIndex else {
            return Directive(name: name, argument: nil, isQuoted: false, isMalformed: false)
        }
        let malformed = Directive(name: name, argument: nil, isQuoted: false, isMalformed: true)
        guard utf8[nameEnd] == UInt8(ascii: "=") else { return malformed }
        let rest = Substring(utf8[utf8.index(after: nameEnd)...])
        guard rest.utf8.count <= maximumArgumentLength + 2 else { return malformed }
        if rest.utf8.first == UInt8(ascii: "\"") {
            guard let text = FieldList.unquoted(rest), text.utf8.count <= maximumArgumentLength else {
                return malformed
            }
            return Directive(name: name, argument: text, isQuoted: true, isMalformed: false)
        }
        guard FieldList.isToken(rest), rest.utf8.count <= maximumArgumentLength else { return malformed }
        return Directive(name: name, argument: String(rest), isQuoted: false, isMalformed: false)
    }

    /// Whether a directive of this name (lower-case) is present, malformed or not.
    func contains(_ name: String) -> Bool { directives.contains { $0.name == name } }

    /// The delta-seconds argument of `name` (lower-case); `nil` when the directive is absent.
    ///
    /// RFC 9111 §4.2.1: a directive present more than once with different values, or with an
    /// invalid value, is ``DeltaSeconds/invalid`` (the reading that considers the response stale;
    /// the suite only "checks" the duplicated cases, `freshness-max-age-two-*`). Repeats of one
    /// value are that value. A quoted argument is accepted (§5.2: "a recipient ought to accept both
    /// forms"; cache-tests `freshness-max-age-quoted` is a "check").
    func deltaSeconds(_ name: String) -> DeltaSeconds? {
        var result: DeltaSeconds?
        for directive in directives where directive.name == name {
            let value = directive.argument.map(DeltaSeconds.init(parsing:)) ?? .invalid
            if result == nil {
                result = value
            } else if result != value {
                return .invalid
            }
        }
        return result
    }

    /// The field names a `no-cache` or `private` directive lists (§5.2.2.4, §5.2.2.7).
    /// - Returns: `nil` when the directive is absent; ``FieldNames/all`` when it is present without
    ///   an argument anywhere (the unqualified form wins over a qualified one, being stricter) or
    ///   is malformed; else the lower-cased names of every occurrence.
    func fieldNames(_ name: String) -> FieldNames? {
        var names: [String] = []
        var seen = false
        for directive in directives where directive.name == name {
            seen = true
            guard let argument = directive.argument, !directive.isMalformed else { return .all }
            let (elements, overflowed) = FieldList.elements([argument], limit: Self.maximumDirectives)
            if overflowed || elements.contains(where: { !FieldList.isToken($0) }) { return .all }
            names += elements.map { $0.lowercased() }
        }
        return seen ? .listed(names) : nil
    }

    /// Which fields a `no-cache` / `private` directive applies to.
    enum FieldNames: Sendable, Hashable {
        /// The whole response.
        case all
        /// Only these fields (lower-cased names).
        case listed([String])
    }
}

/// A delta-seconds value (RFC 9111 §1.2.2): a non-negative integer of seconds.
enum DeltaSeconds: Sendable, Hashable {
    /// The value; anything greater than 2^31 is 2^31 (§1.2.2), so it always fits.
    case seconds(Int)
    /// Not a delta-seconds: empty, negative, a fraction, letters, a single-quoted number
    /// (`'3600'`, cache-tests `freshness-max-age-single-quoted`, required).
    case invalid

    /// The largest value kept: 2^31, "if a cache receives a delta-seconds value greater than the
    /// greatest integer it can represent, or if any of its subsequent calculations overflows, the
    /// cache MUST consider the value to be 2147483648".
    static let maximum = 2_147_483_648

    /// Parses digits only; leading zeros are fine (`003600`, cache-tests
    /// `freshness-max-age-leading-zero`, required). Linear, never overflows.
    init(parsing text: String) {
        guard !text.isEmpty else {
            self = .invalid
            return
        }
        var value = 0
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39 else {
                self = .invalid
                return
            }
            value = Swift.min(Self.maximum, value * 10 + Int(byte - 0x30))
        }
        self = .seconds(value)
    }

    /// The seconds, or `nil` when invalid.
    var value: Int? {
        if case .seconds(let seconds) = self { return seconds }
        return nil
    }
}
