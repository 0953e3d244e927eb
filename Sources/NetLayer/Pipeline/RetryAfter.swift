import Foundation

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
enum RetryAfter {
    /// The wait a `Retry-After` value asks for, from `now`; `nil` when it is absent or malformed.
    /// A date in the past is zero; a value beyond ``Timeouts/maximum`` is clamped to it.
    static func delay(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let cap = Timeouts.maximum.components.seconds
            var seconds: Int64 = 0
            for byte in value.utf8 { seconds = min(cap, seconds * 10 + Int64(byte - 0x30)) }
            return .seconds(seconds)
        }
        guard let date = httpDate(value) else { return nil }
        let seconds = max(0, min(date.timeIntervalSince(now), Timeouts.maximum.seconds))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept
    /// (``HTTPDate``, the one HTTP-date parser).
    static func httpDate(_ text: String) -> Date? { HTTPDate.parse(text) }
}
