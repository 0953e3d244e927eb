import Foundation

/// Something that knows one call's secrets and builds its ``Redactor`` when a text is printed.
protocol RedactorSource: AnyObject, Sendable {
    /// The call's redactor, built anew on each use (only printing asks for it).
    var redactor: Redactor { get }
}

/// A redactor built already (an error's).
final class BuiltRedactor: RedactorSource {
    let redactor: Redactor
    init(_ redactor: Redactor) { self.redactor = redactor }
}

/// The secrets of the call a value came from (a ``Response``, its ``ResponseHead``, a
/// ``Redirect``, a ``WebLink``), so that printing the value masks what the call sent, echoed
/// anywhere. A value made by hand has none and is redacted by name with ``Redaction/default``.
///
/// Nothing is worked out until the value is printed: the call hands over a reference, and the
/// redactor is built from it by the description. Every two are equal, so a value's equality and
/// hash are those of its public fields alone.
struct CallSecrets: Sendable, Hashable {
    private let source: (any RedactorSource)?

    /// No call behind the value.
    static let none = CallSecrets(source: nil)

    private init(source: (any RedactorSource)?) { self.source = source }

    /// The secrets of a call, read when printed.
    init(_ source: some RedactorSource) { self.source = source }

    /// A call's redactor, already built.
    init(_ redactor: Redactor) { self.source = BuiltRedactor(redactor) }

    /// The call's redactor, or one redacting by ``Redaction/default`` names only.
    var redactor: Redactor { source?.redactor ?? Redactor(redaction: .default) }

    static func == (lhs: CallSecrets, rhs: CallSecrets) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

extension SharedPreparedRequest: RedactorSource {
    /// The redactor of the request as sent (see ``PreparedRequest/sentHeaderBlocks``).
    var redactor: Redactor {
        Redactor(value, pathParts: pathParts, redaction: resource.options.redaction)
    }
}

/// A value a call hands out that masks that call's secrets when printed (see ``CallSecrets``).
protocol PrintedWithSecrets {
    /// The secrets of the call the value came from.
    var secrets: CallSecrets { get set }
}

extension PrintedWithSecrets {
    /// This value, printed with `secrets`.
    func printed(with secrets: CallSecrets) -> Self {
        var copy = self
        copy.secrets = secrets
        return copy
    }
}

extension Array where Element: PrintedWithSecrets {
    /// These values, printed with `secrets`.
    func printed(with secrets: CallSecrets) -> [Element] {
        isEmpty ? self : map { $0.printed(with: secrets) }
    }
}

extension ResponseHead: PrintedWithSecrets {}
extension WebLink: PrintedWithSecrets {}
extension Redirect: PrintedWithSecrets {}
