/// The suite's relative header values (`test-engine/lib/header-fixup.mjs`): an integer date is
/// seconds from the server's clock, and with `magic_locations` a location is relative to the
/// server's base URL. Both are read from a response's `Server-Now` and `Server-Base-Url` fields.
enum MagicValues {
    /// Fields whose integer values are seconds from the server's clock.
    static let dateFields: Set<String> = [
        "date", "expires", "last-modified", "if-modified-since", "if-unmodified-since",
    ]
    /// Fields whose values are relative to the server's base URL under `magic_locations`.
    static let locationFields: Set<String> = ["location", "content-location"]

    /// The value a header entry stands for, given the response whose clock and base URL it is
    /// relative to; the written value for anything else.
    /// - Returns: `nil` for a bare name or a `null` value.
    static func resolve(
        _ header: HeaderTemplate, relativeTo response: ObservedResponse?, in request: RequestTemplate
    ) -> String? {
        let name = header.lowercasedName
        if dateFields.contains(name), let seconds = header.value?.intValue {
            // As JavaScript's `new Date(NaN)`: no clock to count from.
            guard let now = response?.field("Server-Now").flatMap({ Int64($0) }) else {
                return "Invalid Date"
            }
            return HTTPDate.format(
                milliseconds: now, plus: Int64(seconds), rfc850: request.rfc850Fields.contains(name))
        }
        if locationFields.contains(name), request.magicLocations {
            let base = response?.field("Server-Base-Url") ?? ""
            guard let relative = header.text, !relative.isEmpty else { return base }
            return "\(base)/\(relative)"
        }
        return header.text
    }
}
