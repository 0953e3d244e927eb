/// The JSON type of the value a `JSONDecoder` is decoding, read without a failed decode.
///
/// A `Decoder` can only tell a value's type by failing to decode the wrong ones, and
/// `JSONDecoder` builds each such error with the whole coding path (on Linux in time quadratic in
/// the depth). So ``JSONValue/init(from:)`` first asks this: Foundation's `JSONDecoder` keeps the
/// value it is decoding as an enum whose cases are named after the JSON types (`values`, a stack
/// whose last element is current, or `json` in older Apple releases), and `Mirror` reads that
/// case's name. Any other decoder, or a layout this does not recognise, gives `nil`, and
/// ``JSONValue`` falls back to trying the types in turn.
enum DecoderValueKind: String {
    case bool, number, string, array, object

    /// The type of `decoder`'s current value, or `nil` when it cannot be read.
    static func current(of decoder: any Decoder) -> DecoderValueKind? {
        let mirror = Mirror(reflecting: decoder)
        guard mirror.displayStyle == .class else { return nil }
        for child in mirror.children {
            switch child.label {
            case "values":
                let stack = Mirror(reflecting: child.value).children
                guard !stack.isEmpty else { return nil }
                return kind(of: stack[stack.index(stack.startIndex, offsetBy: stack.count - 1)].value)
            case "json":
                return kind(of: child.value)
            default:
                continue
            }
        }
        return nil
    }

    /// The case name of a JSON value enum (cases with a payload only: `null` is found by
    /// `decodeNil()` first).
    private static func kind(of value: Any) -> DecoderValueKind? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum, let label = mirror.children.first?.label else { return nil }
        return DecoderValueKind(rawValue: label)
    }
}
