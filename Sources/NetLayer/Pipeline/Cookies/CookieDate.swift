import Foundation

/// The date of an `Expires` attribute, read by RFC 6265 §5.1.1's algorithm: tolerant of the
/// many spellings servers send (`Wed, 09 Jun 2021 10:18:14 GMT`, `Wednesday, 09-Jun-21 10:18:14
/// GMT`, `Wed Jun  9 10:18:14 2021`), always UTC, with no `DateFormatter` or locale involved.
enum CookieDate {
    /// The date `text` names, or `nil` when the algorithm fails (the attribute is then ignored).
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var bytes = Array(text.utf8)
        // An attribute value is at most 1,024 bytes (the parser drops longer ones); bound it anyway.
        if bytes.count > 1024 { bytes.removeSubrange(1024...) }
        var index = 0
        while index < bytes.count {
            while index < bytes.count, isDelimiter(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
            guard start < index else { break }
            let token = bytes[start..<index]
            if time == nil, let found = parseTime(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = parseMonth(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `n*mDIGIT ( non-digit *OCTET )`: the number, when the token starts so.
    private static func leadingNumber(_ token: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        var value = 0
        var count = 0
        var index = token.startIndex
        while index < token.endIndex, isDigit(token[index]) {
            count += 1
            if count > digits.upperBound { return nil }
            value = value * 10 + Int(token[index] - 0x30)
            index += 1
        }
        return digits.contains(count) ? value : nil
    }

    /// `hms-time ( non-digit *OCTET )`, each field one or two digits.
    private static func parseTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var fields: [Int] = []
        var index = token.startIndex
        for part in 0..<3 {
            var value = 0
            var count = 0
            while index < token.endIndex, isDigit(token[index]) {
                count += 1
                if count > 2 { return nil }
                value = value * 10 + Int(token[index] - 0x30)
                index += 1
            }
            guard count > 0 else { return nil }
            fields.append(value)
            if part < 2 {
                guard index < token.endIndex, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        return (fields[0], fields[1], fields[2])
    }

    private static let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// The month whose three-letter name begins the token, any case.
    private static func parseMonth(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token.prefix(3).map { $0 | 0x20 }
        for (offset, name) in months.enumerated() where Array(name.utf8) == prefix {
            return offset + 1
        }
        return nil
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
