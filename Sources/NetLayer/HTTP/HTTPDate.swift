import Foundation

/// HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient
/// must accept, parsed strictly from bytes (no `DateFormatter`, no locale, no allocation per call).
///
/// Strict where the cache-tests suite requires it (`freshness-expires-invalid-*`, all required): a
/// zone other than `GMT`, a two-digit year in the IMF form, a missing comma, doubled spaces, dashes
/// in the IMF form, `.` in the time, a one-digit hour are all invalid. Lenient where the suite calls
/// it optimal: day and month names and `GMT` in any case (`freshness-expires-wrong-case-*`).
/// An RFC 850 two-digit year is 19yy from 70 up, else 20yy (RFC 9110 §5.6.7 asks for "more than 50
/// years in the future is the past"; a fixed pivot keeps the function pure).
enum HTTPDate {
    /// The instant `text` names, or `nil` when it is not an HTTP-date (surrounding spaces and tabs
    /// are ignored). Weekday names are checked for spelling, not against the date.
    static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        var bytes = Array(text.utf8)
        while let last = bytes.last, isWhitespace(last) { bytes.removeLast() }
        bytes.removeFirst(bytes.prefix(while: isWhitespace).count)
        guard bytes.count >= 24 else { return nil }
        let lower = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if let comma = lower.firstIndex(of: UInt8(ascii: ",")) {
            let day = Array(lower[..<comma])
            if comma == 3, shortDays.contains(day) { return imfFixdate(lower) }
            if longDays.contains(day) { return rfc850(Array(lower[(comma + 1)...])) }
            return nil
        }
        return asctime(lower)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ b: [UInt8]) -> Date? {
        guard b.count == 29, b[4] == 0x20, b[7] == 0x20, b[11] == 0x20, b[16] == 0x20, b[25] == 0x20,
            Array(b[26...]) == Array("gmt".utf8),
            let day = number(b[5..<7]), let month = month(b[8..<11]), let year = number(b[12..<16])
        else { return nil }
        return date(year: year, month: month, day: day, time: b[17..<25])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT` (after the comma)
    private static func rfc850(_ b: [UInt8]) -> Date? {
        guard b.count == 23, b[0] == 0x20, b[3] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            b[10] == 0x20, b[19] == 0x20, Array(b[20...]) == Array("gmt".utf8),
            let day = number(b[1..<3]), let month = month(b[4..<7]), let yy = number(b[8..<10])
        else { return nil }
        return date(year: yy >= 70 ? 1900 + yy : 2000 + yy, month: month, day: day, time: b[11..<19])
    }

    /// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space)
    private static func asctime(_ b: [UInt8]) -> Date? {
        guard b.count == 24, shortDays.contains(Array(b[0..<3])), b[3] == 0x20, b[7] == 0x20,
            b[10] == 0x20, b[19] == 0x20, let month = month(b[4..<7]), let year = number(b[20..<24])
        else { return nil }
        let dayBytes = b[8] == 0x20 ? b[9..<10] : b[8..<10]
        guard let day = number(dayBytes) else { return nil }
        return date(year: year, month: month, day: day, time: b[11..<19])
    }

    /// `hh:mm:ss` and the calendar parts as seconds since 1970, checked for range (second 60 is a
    /// leap second, accepted as RFC 9110 allows it).
    private static func date(year: Int, month: Int, day: Int, time: ArraySlice<UInt8>) -> Date? {
        let t = Array(time)
        guard t.count == 8, t[2] == UInt8(ascii: ":"), t[5] == UInt8(ascii: ":"),
            let hour = number(t[0..<2]), let minute = number(t[3..<5]), let second = number(t[6..<8]),
            hour < 24, minute < 60, second <= 60, day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// Digits only, as an integer; `nil` for anything else or an empty slice.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// 1...12 for a lower-cased three-letter month name.
    private static func month(_ name: ArraySlice<UInt8>) -> Int? {
        months.firstIndex(of: Array(name)).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { Array($0.utf8) }
    private static let longDays = [
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    ]
    .map { Array($0.utf8) }
    private static let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .map { Array($0.utf8) }
}
