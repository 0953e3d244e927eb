import NetLayer

/// One header entry of the definitions.
///
/// The suite writes them as a bare name (`"warning"`: the field must be present, or absent), as
/// `[name, value]`, as `[name, value, stored]` in `response_headers` (`stored: false` marks a field
/// the client must not compare), or as `[name, operator, operand]` in `expected_response_headers`
/// (`=`: equals another field; `>`: an integer greater than the operand).
struct HeaderTemplate: Sendable {
    /// The field name as written.
    let name: String
    /// The value as written: a string, an integer (seconds from the server's clock, for date
    /// fields), or an array of strings; `nil` for a bare name.
    let value: JSONValue?
    /// The third element, when the entry has three.
    let third: JSONValue?

    /// Reads an entry; `nil` when it is neither a string nor an array that starts with a string.
    init?(json: JSONValue) {
        if let name = json.stringValue {
            self.name = name
            value = nil
            third = nil
            return
        }
        guard let elements = json.arrayValue, let name = elements.first?.stringValue else { return nil }
        self.name = name
        value = elements.count > 1 ? elements[1] : nil
        third = elements.count > 2 ? elements[2] : nil
    }

    /// The lowercased name.
    var lowercasedName: String { name.lowercased() }

    /// Whether the entry is a bare name (presence or absence only).
    var isBareName: Bool { value == nil }

    /// The value as text: strings as they are, arrays joined with `, ` (as a fetch client reads
    /// repeated fields), numbers in decimal; `nil` for `null` or a bare name.
    var text: String? { value.flatMap(Self.text(of:)) }

    /// A JSON value as header text (see ``text``).
    static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        case .array(let elements): return elements.compactMap(text(of:)).joined(separator: ", ")
        case .null, .object: return nil
        }
    }
}
