import Foundation

/// A stored response's freshness lifetime and current age (RFC 9111 §4.2.1–§4.2.3), from its
/// status, its header fields and the two instants the cache recorded. Pure: `now` is an argument.
struct Freshness: Sendable, Hashable {
    /// Where the lifetime came from.
    enum Source: Sendable, Hashable {
        /// `max-age` (§5.2.2.1).
        case maxAge
        /// `Expires` − `Date` (§5.3).
        case expires
        /// 10% of `Date` − `Last-Modified` (§4.2.2).
        case heuristic
        /// Invalid freshness information: a bad or conflicting `max-age`, an `Expires` that is not
        /// an HTTP-date or appears twice with different values. The response is stale (§4.2.1).
        case invalid
        /// No explicit freshness and no heuristic allowed or possible: stale on arrival.
        case none
    }

    /// The longest heuristic lifetime: one day. RFC 9111 sets no cap; a day is what common
    /// browsers use or less (the suite's `heuristic-delta-*` go up to 10% of a day, "check" tests).
    static let heuristicCap: TimeInterval = 86_400
    /// The share of `Date` − `Last-Modified` a heuristic lifetime is (§4.2.2 "typical setting").
    static let heuristicFraction = 0.1

    /// The freshness lifetime in seconds (never negative).
    let lifetime: TimeInterval
    /// Where ``lifetime`` came from.
    let source: Source

    /// The lifetime of a response (§4.2.1), as a private cache computes it: `s-maxage` is ignored.
    /// - Parameters:
    ///   - status: the response's status code; heuristic freshness needs one that is heuristically
    ///     cacheable (RFC 9110 §15.1) or `public` (cache-tests `heuristic-599-*`).
    ///   - headers: the response's header fields as stored.
    ///   - responseTime: when the response was received: the `Date` when it has none or an invalid
    ///     one (§4.2.1 "the recipient's time of receipt").
    init(status: Int, headers: HeaderFields, responseTime: Date) {
        let directives = ResponseCacheDirectives(headers)
        if let maxAge = directives.maxAge {
            // An invalid or conflicting max-age makes the response stale, even beside a valid Expires
            // (cache-tests `freshness-max-age-negative`, required).
            if let seconds = maxAge.value {
                self.init(lifetime: TimeInterval(seconds), source: .maxAge)
            } else {
                self.init(lifetime: 0, source: .invalid)
            }
            return
        }
        let date = Self.dateValue(headers) ?? responseTime
        let expiresValues = headers.values(for: "Expires")
        if let first = expiresValues.first {
            // Repeated lines with different values: invalid (cache-tests
            // `freshness-expires-invalid-multiple-lines`, required). `Expires: 0`: already expired.
            guard expiresValues.allSatisfy({ $0 == first }), let expires = HTTPDate.parse(first) else {
                self.init(lifetime: 0, source: .invalid)
                return
            }
            self.init(lifetime: max(0, expires.timeIntervalSince(date)), source: .expires)
            return
        }
        if Storability.isHeuristicallyCacheable(status) || directives.isPublic,
            let lastModifiedText = headers["Last-Modified"],
            let lastModified = HTTPDate.parse(lastModifiedText)
        {
            let interval = date.timeIntervalSince(lastModified)
            if interval > 0 {
                self.init(
                    lifetime: min(Self.heuristicCap, interval * Self.heuristicFraction), source: .heuristic)
                return
            }
        }
        self.init(lifetime: 0, source: .none)
    }

    /// A lifetime from its parts (tests, and a store that saved one).
    init(lifetime: TimeInterval, source: Source) {
        self.lifetime = max(0, lifetime)
        self.source = source
    }

    /// The first `Date` field as an instant; `nil` when absent or not an HTTP-date.
    static func dateValue(_ headers: HeaderFields) -> Date? {
        headers["Date"].flatMap(HTTPDate.parse)
    }

    /// The `Age` field's value (§5.1) in seconds: the first member of the list across all `Age`
    /// lines (cache-tests `age-parse-suffix` / `-prefix` / `-twoline`, required), digits only, capped
    /// at 2^31 (`age-parse-large`). A value that is not a non-negative integer (`abc`, `-7200`,
    /// `7200.0`) is ignored, as 0 (`age-parse-nonnumeric`, `-negative`, `-float`, required). A
    /// parameter after `;` is dropped and the number before it kept (`age-parse-parameter`, "check").
    static func ageValue(_ headers: HeaderFields) -> Int {
        let (elements, _) = FieldList.elements(headers.values(for: "Age"), limit: 1)
        guard let first = elements.first else { return 0 }
        let number =
            first.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? first
        return DeltaSeconds(parsing: String(number).trimmed).value ?? 0
    }

    /// The current age of a stored response in seconds (§4.2.3):
    ///
    ///     apparent_age          = max(0, response_time - date_value)
    ///     corrected_age_value   = age_value + (response_time - request_time)
    ///     corrected_initial_age = max(apparent_age, corrected_age_value)
    ///     current_age           = corrected_initial_age + (now - response_time)
    ///
    /// A `Date` absent or invalid counts as `responseTime`; a clock that went backwards (`now`
    /// before `responseTime`, `responseTime` before `requestTime`) adds nothing, never subtracts.
    static func currentAge(headers: HeaderFields, requestTime: Date, responseTime: Date, now: Date)
        -> TimeInterval
    {
        let date = dateValue(headers) ?? responseTime
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = TimeInterval(ageValue(headers)) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmed: String {
        var bytes = Substring(self).utf8[...]
        while let first = bytes.first, FieldList.isWhitespace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, FieldList.isWhitespace(last) { bytes = bytes.dropLast() }
        return String(Substring(bytes))
    }
}
