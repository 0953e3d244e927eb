/// Validating stored responses (RFC 9111 §4.3): the conditional request, which stored responses a
/// 304 selects, and the header update it brings (§3.2, §4.3.4).
enum CacheValidation {
    /// The most entity-tags sent in one `If-None-Match`.
    static let maximumETags = 32

    /// The precondition fields for a request validating `stored` (the stored responses for the
    /// target, every variant, oldest first) (§4.3.1):
    /// - `If-None-Match` lists the `ETag` of every stored response that has a well-formed one, each
    ///   once, at most ``maximumETags`` (§4.3.1 "all stored responses"; cache-tests
    ///   `conditional-etag-vary-headers-mismatch`, "check"). The request's own fields, its `Vary`
    ///   selecting fields included, go with them unchanged (`conditional-etag-vary-headers`, required:
    ///   the stage's concern);
    /// - `If-Modified-Since` carries the `Last-Modified` of the stored response when exactly one is
    ///   stored and no stored response has a usable `ETag` (§4.3.1 "SHOULD send the entity tag";
    ///   an `If-Modified-Since` beside `If-None-Match` is ignored by servers, RFC 9110 §13.1.3),
    ///   copied as received and only when it is an HTTP-date. `Date` is never used.
    static func conditionalHeaders(for stored: [HeaderFields]) -> [(name: String, value: String)] {
        var tags: [String] = []
        for headers in stored {
            guard let tag = headers["ETag"].flatMap(EntityTag.init(parsing:)),
                !tags.contains(tag.text)
            else { continue }
            if tags.count == maximumETags { break }
            tags.append(tag.text)
        }
        if !tags.isEmpty { return [("If-None-Match", tags.joined(separator: ", "))] }
        if stored.count == 1, let lastModified = stored[0]["Last-Modified"],
            HTTPDate.parse(lastModified) != nil
        {
            return [("If-Modified-Since", lastModified)]
        }
        return []
    }

    /// The indices of the stored responses (oldest first) a 304 with `notModified` fields freshens
    /// (§4.3.4):
    /// - a strong `ETag` in the 304 selects every stored response with the same strong tag;
    /// - else a weak `ETag`, or a `Last-Modified`, selects the most recent stored response whose
    ///   validator matches (weak comparison of tags; `Last-Modified` compared as an instant);
    /// - else, with no validator, the single stored response when it has none either;
    /// - otherwise nothing: the 304 updates nothing, and the caller refetches.
    static func selectedForUpdate(by notModified: HeaderFields, among stored: [HeaderFields]) -> [Int] {
        let tag = notModified["ETag"].flatMap(EntityTag.init(parsing:))
        if let tag, !tag.isWeak {
            return stored.indices.filter { index in
                guard let other = stored[index]["ETag"].flatMap(EntityTag.init(parsing:)) else {
                    return false
                }
                return !other.isWeak && other.opaque == tag.opaque
            }
        }
        if let tag {
            let match = stored.indices.last { index in
                (stored[index]["ETag"].flatMap(EntityTag.init(parsing:)))?.opaque == tag.opaque
            }
            return match.map { [$0] } ?? []
        }
        if let modified = notModified["Last-Modified"].flatMap(HTTPDate.parse) {
            let match = stored.indices.last {
                stored[$0]["Last-Modified"].flatMap(HTTPDate.parse) == modified
            }
            return match.map { [$0] } ?? []
        }
        if stored.count == 1, stored[0]["ETag"] == nil, stored[0]["Last-Modified"] == nil { return [0] }
        return []
    }

    /// Whether a 200 response to HEAD may freshen a stored GET response (§4.3.5): it carries a
    /// validator (`ETag`, `Last-Modified`), each it carries equals the stored one, and its
    /// `Content-Length`, when present, equals the stored one. When `false` the caller should
    /// consider the stored response stale. When `true` it merges with ``updatedHeaders(_:with:)``.
    /// cache-tests updateHead.mjs (`head-200-*`, "check").
    static func headResponseFreshens(_ head: HeaderFields, stored: HeaderFields) -> Bool {
        let validators = ["ETag", "Last-Modified"].filter { head[$0] != nil }
        guard !validators.isEmpty else { return false }
        for name in validators + (head["Content-Length"] == nil ? [] : ["Content-Length"])
        where head[name] != stored[name] {
            return false
        }
        return true
    }

    /// Fields a 304 (or a HEAD response) never replaces in a stored response (§3.2):
    /// `Content-Length` (cache-tests `304-etag-update-response-Content-Length`, required "must
    /// not"), the hop-by-hop fields (never stored, §3.1), and the fields the stored body depends
    /// on, `Content-Encoding`, `Content-Type` and `Content-Range` (§3.2 allows keeping them; the
    /// suite only "checks" them).
    static let keptOnUpdate: Set<String> = Storability.hopByHop.union([
        "content-length", "content-encoding", "content-type", "content-range",
    ])

    /// `stored` updated with the fields of `notModified` (§3.2): each field the 304 carries (but
    /// ``keptOnUpdate`` and those its `Connection` names) replaces every stored line of that name;
    /// the 304's repeated lines are all kept, in order. Linear in the two field counts.
    static func updatedHeaders(_ stored: HeaderFields, with notModified: HeaderFields) -> HeaderFields {
        let incoming = Storability.storedHeaders(notModified)
        var replaced = Set<String>()
        for field in incoming {
            let name = field.name.lowercased()
            if !keptOnUpdate.contains(name) { replaced.insert(name) }
        }
        var result = HeaderFields()
        result.reserveCapacity(stored.count + incoming.count)
        for field in stored where !replaced.contains(field.name.lowercased()) {
            result.append(field.name, field.value)
        }
        for field in incoming where replaced.contains(field.name.lowercased()) {
            result.append(field.name, field.value)
        }
        // A `no-cache="…"` or `Connection` the 304 brought applies to the updated head too.
        return Storability.storedHeaders(result)
    }
}

/// An entity-tag (RFC 9110 §8.8.3): `"opaque"` or `W/"opaque"`.
struct EntityTag: Sendable, Hashable {
    /// Whether it is weak (`W/`).
    let isWeak: Bool
    /// The opaque-tag with its quotes.
    let opaque: String

    /// The tag as sent in `If-None-Match`.
    var text: String { isWeak ? "W/" + opaque : opaque }

    /// Parses one entity-tag; `nil` for anything else (an unquoted tag, a list, a quote inside,
    /// a control character). `W/` must be upper-case, as RFC 9110 spells it.
    init?(parsing value: String) {
        var text = Substring(value)
        while let first = text.utf8.first, FieldList.isWhitespace(first) { text = text.dropFirst() }
        while let last = text.utf8.last, FieldList.isWhitespace(last) { text = text.dropLast() }
        isWeak = text.hasPrefix("W/")
        if isWeak { text = text.dropFirst(2) }
        let bytes = text.utf8
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\""),
            bytes.dropFirst().dropLast().allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) })
        else { return nil }
        opaque = String(text)
    }
}
