/// How param values and names are spelled in queries, forms, multipart field names and JSON:
/// array brackets, booleans, `nil` (``ResourceOptions/paramStyle``). Where params go is
/// ``ParamPlacement``.
public struct ParamStyle: Sendable, Hashable {
    /// How array params are named.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `k[]=a&k[]=b`, the convention of Rails, PHP and most web frameworks. The default.
        case brackets
        /// `k=a&k=b`, for servers that collect repeated keys.
        case noBrackets
        /// `k[0]=a&k[1]=b`.
        case indexed
    }

    /// How booleans are written in queries, forms and multipart fields (JSON always uses `true`/`false`).
    public enum BoolEncoding: Sendable, Hashable {
        /// `true` / `false`. The default.
        case literal
        /// `1` / `0`.
        case numeric
    }

    /// What a `nil` param becomes in a JSON params body (queries and forms always drop it).
    public enum NullEncoding: Sendable, Hashable {
        /// Left out. The default, matching queries and forms.
        case drop
        /// Written as JSON `null`.
        case null
    }

    /// Array naming. Default: ``ArrayEncoding/brackets``.
    public var arrays: ArrayEncoding
    /// Boolean text. Default: ``BoolEncoding/literal``.
    public var bools: BoolEncoding
    /// `nil` in JSON. Default: ``NullEncoding/drop``.
    public var nulls: NullEncoding

    /// Creates options; every argument defaults to the library's default.
    public init(
        arrays: ArrayEncoding = .brackets, bools: BoolEncoding = .literal, nulls: NullEncoding = .drop
    ) {
        self.arrays = arrays
        self.bools = bools
        self.nulls = nulls
    }

    /// Brackets for arrays, `true`/`false`, `nil` left out: what most servers parse.
    public static let `default` = ParamStyle()
}
