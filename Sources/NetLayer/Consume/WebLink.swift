import Foundation

/// One link of a `Link` header (RFC 8288): a target URL, its relation types and other parameters.
///
/// ```swift
/// let page = try await repos.makeExecutor(params: ["per_page": 50]).response(model: [Repo].self)
/// if let next = page.links.first(where: { $0.has(relation: "next") })?.url { … }
/// ```
public struct WebLink: Sendable, Hashable {
    /// The target, resolved against the response's URL when it was relative.
    public let url: URL
    /// The relation types of `rel`, lower-cased (`next`, `prev`, `last`, …); a link may have several.
    public let relations: [String]
    /// Every parameter by lower-cased name, unquoted (`rel`, `title`, `type`, …); the first
    /// occurrence of a name wins, as RFC 8288 §3 asks.
    public let parameters: [String: String]
    /// The secrets of the call whose response carried it, masked when it is printed (not compared).
    var secrets = CallSecrets.none

    /// Whether `relation` is one of ``relations`` (compared case-insensitively).
    public func has(relation: String) -> Bool { relations.contains(relation.lowercased()) }
}

extension HeaderFields {
    /// The links of every `Link` field, in order; a link that cannot be parsed is left out. At most
    /// 100 link values (`<…>`) and 64 parameters per link are read, in time linear in the fields'
    /// length; any after them are ignored.
    /// - Parameter base: Resolves relative targets. Default `nil`: relative targets are left out.
    public func links(relativeTo base: URL? = nil) -> [WebLink] {
        var budget = LinkHeaderParser.maximumLinks
        var links: [WebLink] = []
        for value in values(for: "Link") where budget > 0 {
            links += LinkHeaderParser.parse(value, base: base, budget: &budget)
        }
        return links
    }
}

extension Response {
    /// The links of the response's `Link` fields (RFC 8288), relative targets resolved against
    /// ``url``: pagination (`next`, `last`), alternates, and so on. Parsed on first use and kept
    /// (copies of the response share them); see ``HeaderFields/links(relativeTo:)`` for the limit.
    public var links: [WebLink] {
        parsedLinks.withLock { cached in
            if let cached { return cached }
            let links = headerFields.links(relativeTo: url).printed(with: secrets)
            cached = links
            return links
        }
    }

    /// The target of the first link with `relation` (for example `"next"`), if any.
    public func link(_ relation: String) -> URL? {
        links.first { $0.has(relation: relation) }?.url
    }
}

/// `<uri>; rel="next"; title="x", <uri2>; rel=last` (RFC 8288 §3).
enum LinkHeaderParser {
    /// How many link values (`<…>`, kept or not) one response's `Link` fields are read for.
    static let maximumLinks = 100
    /// How many parameters of one link are read; the rest of that link is skipped.
    static let maximumParameters = 64

    /// The links of one field value, reading at most `budget` link values (and lowering it by those
    /// read). Works on the UTF-8 bytes (every delimiter is ASCII) and never looks back: linear in the
    /// value's length.
    static func parse(_ value: String, base: URL?, budget: inout Int) -> [WebLink] {
        let bytes = Array(value.utf8)
        var links: [WebLink] = []
        var index = 0
        func skip(_ isSkipped: (UInt8) -> Bool) {
            while index < bytes.count, isSkipped(bytes[index]) { index += 1 }
        }
        /// The index of the first byte from `index` on that `matches`, or the end.
        func first(_ matches: (UInt8) -> Bool) -> Int {
            var end = index
            while end < bytes.count, !matches(bytes[end]) { end += 1 }
            return end
        }
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        while budget > 0 {
            skip { isBlank($0) || $0 == UInt8(ascii: ",") }
            if index == bytes.count { return links }
            guard bytes[index] == UInt8(ascii: "<") else {
                // Not a link: skip to the next one.
                index = first { $0 == UInt8(ascii: ",") }
                continue
            }
            // No '>' up to the end means no later '<' can close either: stop (rescanning to the
            // end for each '<' made an unclosed `<a,<a,<a,…` quadratic).
            let close = first { $0 == UInt8(ascii: ">") }
            if close == bytes.count { return links }
            budget -= 1
            let target = text(index + 1..<close)
            index = close + 1
            var parameters: [String: String] = [:]
            for _ in 0..<maximumParameters {
                skip(isBlank)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ";") else { break }
                index += 1
                skip(isBlank)
                let nameEnd = first {
                    $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ",")
                        || isBlank($0)
                }
                let name = text(index..<nameEnd).lowercased()
                index = nameEnd
                skip(isBlank)
                var parameter = ""
                if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                    index += 1
                    skip(isBlank)
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                        index += 1
                        parameter = quoted(bytes, from: &index)
                    } else {
                        let end = first { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ",") }
                        parameter = text(index..<end).trimmingCharacters(in: .whitespaces)
                        index = end
                    }
                }
                if !name.isEmpty, parameters[name] == nil { parameters[name] = parameter }
            }
            if let url = URL(string: target, relativeTo: base)?.absoluteURL, url.scheme != nil {
                let relations = (parameters["rel"] ?? "").lowercased().split(whereSeparator: {
                    $0 == " " || $0 == "\t"
                })
                .map(String.init)
                links.append(WebLink(url: url, relations: relations, parameters: parameters))
            }
            // Skip to the next link, past anything this parser did not understand.
            index = first { $0 == UInt8(ascii: ",") }
        }
        return links
    }

    /// A quoted-string's content (backslash escapes removed), from just after its opening quote;
    /// leaves `index` after the closing quote (or at the end).
    private static func quoted(_ bytes: [UInt8], from index: inout Int) -> String {
        var result: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\\") {
                if index < bytes.count {
                    result.append(bytes[index])
                    index += 1
                }
            } else if byte == UInt8(ascii: "\"") {
                break
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
