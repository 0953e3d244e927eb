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
    /// The links of every `Link` field, in order; a link that cannot be parsed is left out.
    /// - Parameter base: Resolves relative targets. Default `nil`: relative targets are left out.
    public func links(relativeTo base: URL? = nil) -> [WebLink] {
        values(for: "Link").flatMap { LinkHeaderParser.parse($0, base: base) }
    }
}

extension Response {
    /// The links of the response's `Link` fields (RFC 8288), relative targets resolved against
    /// ``url``: pagination (`next`, `last`), alternates, and so on.
    public var links: [WebLink] { headerFields.links(relativeTo: url).printed(with: secrets) }

    /// The target of the first link with `relation` (for example `"next"`), if any.
    public func link(_ relation: String) -> URL? {
        links.first { $0.has(relation: relation) }?.url
    }
}

/// `<uri>; rel="next"; title="x", <uri2>; rel=last` (RFC 8288 §3).
enum LinkHeaderParser {
    static func parse(_ value: String, base: URL?) -> [WebLink] {
        var links: [WebLink] = []
        var scanner = Substring(value)
        while true {
            scanner = scanner.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if scanner.isEmpty { return links }
            guard scanner.first == "<", let close = scanner.firstIndex(of: ">") else {
                // Not a link: skip to the next one.
                guard let comma = scanner.firstIndex(of: ",") else { return links }
                scanner = scanner[comma...]
                continue
            }
            let target = String(scanner[scanner.index(after: scanner.startIndex)..<close])
            scanner = scanner[scanner.index(after: close)...]
            var parameters: [String: String] = [:]
            while true {
                scanner = scanner.drop { $0 == " " || $0 == "\t" }
                guard scanner.first == ";" else { break }
                scanner = scanner.dropFirst().drop { $0 == " " || $0 == "\t" }
                let nameEnd = scanner.firstIndex { "=;, \t".contains($0) } ?? scanner.endIndex
                let name = scanner[..<nameEnd].lowercased()
                scanner = scanner[nameEnd...].drop { $0 == " " || $0 == "\t" }
                var parameter = ""
                if scanner.first == "=" {
                    scanner = scanner.dropFirst().drop { $0 == " " || $0 == "\t" }
                    if scanner.first == "\"" {
                        (parameter, scanner) = quoted(scanner.dropFirst())
                    } else {
                        let end = scanner.firstIndex { $0 == ";" || $0 == "," } ?? scanner.endIndex
                        parameter = scanner[..<end].trimmingCharacters(in: .whitespaces)
                        scanner = scanner[end...]
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
            guard let comma = scanner.firstIndex(of: ",") else { return links }
            scanner = scanner[comma...]
        }
    }

    /// A quoted-string's content (backslash escapes removed) and the text after its closing quote.
    private static func quoted(_ text: Substring) -> (String, Substring) {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\\" {
                index = text.index(after: index)
                if index < text.endIndex { result.append(text[index]) }
            } else if character == "\"" {
                return (result, text[text.index(after: index)...])
            } else {
                result.append(character)
            }
            if index < text.endIndex { index = text.index(after: index) }
        }
        return (result, text[text.endIndex...])
    }
}
