import Foundation

extension WebLink: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `<https://host/items?page=2>; rel="next"; title="…"`, one line, as a `Link` field writes
    /// it: the URL redacted (user info left out, secret query values hidden), the parameters
    /// sorted by name with the values of secret names (``Redaction/default``) hidden. A link from a
    /// call's ``Response/links`` also masks every secret that call sent, echoed anywhere in it.
    /// Controls are escaped.
    public var description: String {
        let redactor = secrets.redactor
        var parts = ["<\(redactor.url(url))>"]
        for name in parameters.keys.sorted() {
            guard let value = parameters[name] else { continue }
            let shown = redactor.redaction.isSecret(name) ? redactor.redaction.placeholder : value
            parts.append("\(redactor.mask(name))=\"\(redactor.mask(shown))\"")
        }
        if parameters["rel"] == nil, !relations.isEmpty {
            parts.append("rel=\"\(redactor.mask(relations.joined(separator: " ")))\"")
        }
        return PrintableText.escaped(parts.joined(separator: "; "))
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The ``description`` only, so `dump` shows no secret either.
    public var customMirror: Mirror { Mirror(self, children: ["link": description]) }
}
