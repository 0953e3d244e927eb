import Foundation

/// What a range-serving response sends for one request (RFC 9110 §14): the whole body, one range of
/// it, or 416.
enum ByteRangeAnswer: Equatable {
    /// 200 with every byte.
    case whole
    /// 206 with the bytes at these offsets.
    case partial(Range<Int64>)
    /// 416 with `Content-Range: bytes */<length>`.
    case unsatisfiable
}

/// Range requests as RFC 9110 §13.1.5 and §14 define them, answered for a representation of
/// `length` bytes with the given validators.
enum ByteRanges {
    /// The answer to `request`: a `Range` is honoured on GET only (§14.2), and only when an
    /// `If-Range` it carries holds (§13.1.5).
    static func answer(
        to request: RecordedRequest, length: Int64, etag: String?, lastModified: Date?
    ) -> ByteRangeAnswer {
        let ranges = request.headerValues("Range")
        // Range is not a list field: two of them are as invalid as one malformed one.
        guard request.method == "GET", ranges.count == 1, let range = ranges.first else { return .whole }
        let ifRange = request.headerValues("If-Range")
        if !ifRange.isEmpty {
            guard ifRange.count == 1, ifRangeHolds(ifRange[0], etag: etag, lastModified: lastModified) else {
                return .whole
            }
        }
        return answer(toRange: range, length: length)
    }

    /// The answer to a `Range` field value (§14.1.1, §14.2). Ignored (the whole body) when the
    /// unit is not `bytes` or the value is not a valid `bytes` ranges-specifier. One range-spec:
    /// 206 when satisfiable, 416 when not. Several range-specs: 416 when none is satisfiable, else
    /// the whole body (a server may ignore `Range`; this one sends no `multipart/byteranges`). A
    /// zero-length body has no satisfiable `first-last` range, and a suffix range of it (which the
    /// RFC calls satisfiable but cannot be written in a `Content-Range`) gets the whole empty body.
    static func answer(toRange field: String, length: Int64) -> ByteRangeAnswer {
        guard let equals = field.firstIndex(of: "=") else { return .whole }
        let unit = field[..<equals].trimmingCharacters(in: .whitespaces)
        guard unit.lowercased() == "bytes" else { return .whole }
        // A list: elements separated by OWS "," OWS; empty elements are ignored (§5.6.1).
        let specs = field[field.index(after: equals)...].split(
            separator: ",", omittingEmptySubsequences: false
        )
        .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }.filter { !$0.isEmpty }
        guard !specs.isEmpty else { return .whole }
        var satisfiable: [Range<Int64>] = []
        var suffixOfEmptyBody = false
        for spec in specs {
            guard let parsed = parse(spec) else { return .whole }  // invalid: the field is ignored
            switch parsed {
            case .fromTo(let first, let last):
                if first < length { satisfiable.append(first..<(min(last, length - 1) + 1)) }
            case .from(let first):
                if first < length { satisfiable.append(first..<length) }
            case .suffix(let count):
                if count > 0 && length == 0 { suffixOfEmptyBody = true }
                if count > 0 && length > 0 { satisfiable.append(max(0, length - count)..<length) }
            }
        }
        if satisfiable.isEmpty { return suffixOfEmptyBody ? .whole : .unsatisfiable }
        return specs.count == 1 ? .partial(satisfiable[0]) : .whole
    }

    private enum RangeSpec {
        case fromTo(Int64, Int64)
        case from(Int64)
        case suffix(Int64)
    }

    /// `first-last`, `first-` or `-suffix` (digits only; a number too large for 64 bits counts as
    /// the largest one); `nil` for anything else, or a `last` before `first`.
    private static func parse(_ spec: String) -> RangeSpec? {
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty { return digits(lastText).map(RangeSpec.suffix) }
        guard let first = digits(firstText) else { return nil }
        if lastText.isEmpty { return .from(first) }
        guard let last = digits(lastText), last >= first else { return nil }
        return .fromTo(first, last)
    }

    /// 1*DIGIT as a number, saturating at `Int64.max`.
    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard (48...57).contains(byte) else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 48))
            value = overflowTimes || overflowSum ? Int64.max : sum
        }
        return value
    }

    /// §13.1.5: an entity-tag holds when it is strong and identical to `etag`, itself strong (the
    /// strong comparison of §8.8.3.2); an HTTP-date holds when it names the same second as
    /// `lastModified`. Anything else — a weak tag, no validator of that kind, an unreadable value —
    /// does not hold.
    static func ifRangeHolds(_ value: String, etag: String?, lastModified: Date?) -> Bool {
        let value = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard let etag, !etag.hasPrefix("W/"), isEntityTag(value), !value.hasPrefix("W/") else {
                return false
            }
            return value == etag
        }
        guard let lastModified, let date = HTTPDate.parse(value) else { return false }
        return date.timeIntervalSince1970 == lastModified.timeIntervalSince1970.rounded(.down)
    }

    /// `"…"` or `W/"…"` with etagc characters between the quotes (§8.8.3).
    static func isEntityTag(_ text: String) -> Bool {
        let opaque = text.hasPrefix("W/") ? text.dropFirst(2) : Substring(text)
        guard opaque.count >= 2, opaque.first == "\"", opaque.last == "\"" else { return false }
        return opaque.dropFirst().dropLast().unicodeScalars.allSatisfy { scalar in
            scalar.value == 0x21 || (0x23...0x7E).contains(scalar.value) || scalar.value >= 0x80
        }
    }
}
