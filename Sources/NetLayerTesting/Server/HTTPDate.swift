import Foundation

/// HTTP-dates (RFC 9110 §5.6.7), written and read with integer arithmetic on the proleptic
/// Gregorian calendar in UTC (no formatter, no locale, no C library).
enum HTTPDate {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames = [
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    ]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// `date` as an IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`, its fraction of a second dropped.
    static func format(_ date: Date) -> String {
        let seconds = wholeSeconds(date)
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let civil = civilDate(days: days)
        let weekday = Int((days + 4).floorModulo(7))  // 1970-01-01 was a Thursday
        let time = [secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60].map(twoDigits)
        return "\(dayNames[weekday]), \(twoDigits(civil.day)) \(monthNames[civil.month - 1]) "
            + "\(fourDigits(civil.year)) \(time.joined(separator: ":")) GMT"
    }

    /// The instant an HTTP-date names: an IMF-fixdate, the obsolete RFC 850 form
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`, a two-digit year read as the latest year not more than 50
    /// years ahead of `now`) or asctime (`Sun Nov  6 08:49:37 1994`); `nil` for anything else.
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if words.count == 6, words[5] == "GMT", words[0].hasSuffix(","),
            dayNames.contains(String(words[0].dropLast())), words[1].count == 2, words[3].count == 4
        {
            return date(day: words[1], month: words[2], year: words[3], time: words[4])
        }
        if words.count == 4, words[3] == "GMT", words[0].hasSuffix(","),
            longDayNames.contains(String(words[0].dropLast()))
        {
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let short = Int(parts[2]) else {
                return nil
            }
            let currentYear = civilDate(days: wholeSeconds(now).floorDivided(by: 86_400)).year
            var year = currentYear - currentYear % 100 + Int64(short)
            if year > currentYear + 50 { year -= 100 }
            return date(day: parts[0], month: parts[1], year: String(year), time: words[2])
        }
        if words.count == 5, dayNames.contains(words[0]), (1...2).contains(words[2].count),
            words[4].count == 4
        {
            return date(day: words[2], month: words[1], year: words[4], time: words[3])
        }
        return nil
    }

    /// The date of the given fields, each checked (digits only, a real day of that month, a time of
    /// day up to `23:59:60`).
    private static func date(day: String, month: String, year: String, time: String) -> Date? {
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let monthIndex = monthNames.firstIndex(of: month), let day = number(day),
            let year = number(year), clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
            hour < 24, minute < 60, second <= 60, day >= 1, day <= daysIn(month: monthIndex + 1, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func number(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.count <= 4, text.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return nil
        }
        return Int64(text)
    }

    /// Seconds since 1970 rounded down, within what a four-digit year can hold (a NaN date counts
    /// as 1970).
    private static func wholeSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard !seconds.isNaN else { return 0 }
        // 0001-01-01 to 9999-12-31, so every field keeps its width.
        return Int64(min(max(seconds, -62_135_596_800), 253_402_300_799))
    }

    private static func daysIn(month: Int, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int64, month: Int, day: Int64) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted.floorDivided(by: 400)
        let yearOfEra = shifted - era * 400
        let monthFromMarch = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civilDate(days: Int64) -> (year: Int64, month: Int, day: Int64) {
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = Int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func fourDigits(_ value: Int64) -> String {
        String(repeating: "0", count: max(0, 4 - String(value).count)) + String(value)
    }
}

extension Int64 {
    /// The quotient rounded toward negative infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder of ``floorDivided(by:)``, never negative for a positive divisor.
    fileprivate func floorModulo(_ divisor: Int64) -> Int64 {
        self - floorDivided(by: divisor) * divisor
    }
}
