/// HTTP dates as the suite writes them (`test-engine/lib/utils.mjs`, `httpDate`): the IMF-fixdate
/// of JavaScript's `toGMTString()`, or the obsolete RFC 850 form when a test asks for it.
enum HTTPDate {
    private static let days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The date `seconds` after `milliseconds` since the epoch, to the whole second below.
    /// - Parameters:
    ///   - milliseconds: An instant in milliseconds since 1970 (the server's `Server-Now`).
    ///   - seconds: Seconds to add; negative for the past.
    ///   - rfc850: `Sunday, 06-Nov-94 08:49:37 GMT` instead of `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(milliseconds: Int64, plus seconds: Int64, rfc850: Bool = false) -> String {
        let (total, overflow) = milliseconds.addingReportingOverflow(
            seconds.multipliedReportingOverflow(by: 1000).partialValue)
        guard !overflow else { return "Invalid Date" }
        let epochSeconds = floorDivide(total, 1000)
        let dayNumber = floorDivide(epochSeconds, 86_400)
        let secondOfDay = epochSeconds - dayNumber * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: dayNumber)
        // 1970-01-01 was a Thursday (index 4 from Sunday).
        let weekday = Int(((dayNumber % 7) + 7 + 4) % 7)
        let time = [secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60].map(twoDigits).joined(
            separator: ":")
        let monthName = months[Int(month) - 1]
        if rfc850 {
            let shortYear = twoDigits(((year % 100) + 100) % 100)
            return "\(days[weekday]), \(twoDigits(day))-\(monthName)-\(shortYear) \(time) GMT"
        }
        return "\(days[weekday].prefix(3)), \(twoDigits(day)) \(monthName) \(year) \(time) GMT"
    }

    /// Division rounding towards negative infinity.
    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// A number with at least two digits.
    private static func twoDigits(_ value: Int64) -> String {
        value < 10 && value >= 0 ? "0\(value)" : String(value)
    }

    /// Year, month (1–12) and day (1–31) of a day counted from 1970-01-01 (proleptic Gregorian;
    /// Howard Hinnant's `civil_from_days`).
    private static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
