import Foundation

@testable import NetLayer

/// Shared fixtures of the caching suites: header fields as received, and fixed instants.
enum CachingFixture {
    /// Fields in order, repeated names kept.
    static func fields(_ pairs: (String, String)...) -> HeaderFields {
        HeaderFields(received: pairs.map { (name: $0.0, value: $0.1) })
    }

    /// 2023-11-14 22:13:20 UTC, the instant every test counts from.
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// `t0` plus `seconds`.
    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    /// `date` as an IMF-fixdate.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
