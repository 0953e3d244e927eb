/// The JSON type and the depth of the value a `JSONDecoder` is decoding, read without a failed
/// decode, so ``JSONValue/init(from:)`` stays linear in depth.
///
/// A `Decoder` can only tell a value's type by failing to decode the wrong ones, and `JSONDecoder`
/// builds each such error with the whole coding path: on Linux (swift-foundation) that path is
/// rebuilt from a linked list by concatenation, time quadratic in the depth per error, so trying
/// types in turn at every level of 500 nested arrays took seconds. Reading the type instead costs a
/// few microseconds (`Mirror`), more than a failed attempt near the top: so ``JSONValue`` tries types
/// in turn above ``attemptDepth`` and reads them below.
///
/// How it is read: Foundation's `JSONDecoder` keeps the values it is decoding in `values`, a stack
/// (one entry per level plus two) whose last element is the current value, an enum whose cases are
/// named after the JSON types; `Mirror` reads that case's name and the stack's size. Any other
/// decoder, or a layout this does not recognise, gives `nil`, and ``JSONValue`` tries types in turn.
enum DecoderValueKind: String {
    case bool, number, string, array, object

    /// From this coding-path depth on, a value's type is read instead of tried: a failed attempt
    /// there costs more than reading it (measured on Linux, Swift 6.3).
    static let attemptDepth = 8

    /// The coding-path depth of the values being decoded inside a ``JSONValue`` (its children);
    /// `nil` outside one.
    @TaskLocal static var depth: Int?

    /// The type and the coding-path depth of `decoder`'s current value, or `nil` when they cannot
    /// be read.
    static func current(of decoder: any Decoder) -> (kind: DecoderValueKind?, depth: Int)? {
        let mirror = Mirror(reflecting: decoder)
        guard mirror.displayStyle == .class else { return nil }
        for child in mirror.children where child.label == "values" {
            let stack = Mirror(reflecting: child.value)
            guard stack.displayStyle == .collection else { return nil }
            let values = stack.children
            guard !values.isEmpty else { return nil }
            let last = values[values.index(values.startIndex, offsetBy: values.count - 1)].value
            return (kind(of: last), max(values.count - 2, 0))
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
