import Foundation

/// What `If-Range` may carry for a resumed download (RFC 9110 §13.1.5): a strong entity tag, or,
/// when the response has no entity tag at all, a `Last-Modified` date proven strong by a `Date` at
/// least 60 seconds later (§8.8.2.2). Anything else gives nothing to resume from: a resume under a
/// weak validator could stitch two versions of the file together.
enum ResumeValidator {
    /// The validator `head` allows a later `If-Range` to carry; `nil` when it has none that is strong.
    static func of(_ head: ResponseHead) -> String? {
        if let etag = head.headerFields["ETag"] {
            return isStrongETag(etag) ? etag : nil
        }
        guard let lastModified = head.headerFields["Last-Modified"],
            let modified = RetryAfter.httpDate(lastModified),
            let dateText = head.headerFields["Date"], let date = RetryAfter.httpDate(dateText),
            date.timeIntervalSince(modified) >= 60
        else { return nil }
        return lastModified
    }

    /// Whether a validator read back from a resume record may be sent: a strong entity tag or an
    /// HTTP-date (one written by an earlier version without the `Date` check is trusted as it is).
    static func isUsable(_ validator: String) -> Bool {
        isStrongETag(validator) || RetryAfter.httpDate(validator) != nil
    }

    /// `"…"` with no quote inside: an entity tag without the weakness prefix `W/`.
    static func isStrongETag(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        return bytes.count >= 2 && bytes.first == UInt8(ascii: "\"") && bytes.last == UInt8(ascii: "\"")
            && !bytes.dropFirst().dropLast().contains(UInt8(ascii: "\""))
    }
}

/// `Content-Range: bytes 100-199/200` (RFC 9110 §14.4): a satisfied byte range, `complete` `nil`
/// for `*` (length unknown). Numbers are ASCII digits only; one that overflows `Int64` rejects
/// the whole field.
struct ContentRange: Equatable {
    let first: Int64
    let last: Int64
    let complete: Int64?

    /// Parses `value`; `nil` when it is absent or not `bytes first-last/complete`.
    init?(_ value: String?) {
        guard let value else { return nil }
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let halves = text.dropFirst(6).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1])
        else { return nil }
        if halves[1] == "*" {
            complete = nil
        } else {
            guard let complete = Self.number(halves[1]) else { return nil }
            self.complete = complete
        }
        self.first = first
        self.last = last
    }

    /// The size of the file once this range is appended to a file of `first` bytes: `last + 1`.
    /// A ``Contradiction`` when the range contradicts itself or `contentLength` (the response's
    /// `Content-Length`, when it has one), or stops short of the end of the file.
    func fileSize(contentLength: String?) -> Result<Int64, Contradiction> {
        guard last >= first else { return .failure(Contradiction("ends before it starts")) }
        let (size, overflow) = last.addingReportingOverflow(1)
        guard !overflow else { return .failure(Contradiction("ends beyond any file size")) }
        if let complete {
            guard complete > last else {
                return .failure(
                    Contradiction("ends at byte \(last), past the end of a \(complete)-byte file"))
            }
            guard complete == size else {
                return .failure(Contradiction("stops at byte \(last) of a \(complete)-byte file"))
            }
        }
        if let contentLength {
            // `size - first` cannot overflow: 0 ≤ first ≤ last < size.
            guard let length = Self.number(Substring(contentLength.trimmingCharacters(in: .whitespaces))),
                length == size - first
            else { return .failure(Contradiction("does not match the Content-Length")) }
        }
        return .success(size)
    }

    /// Why a `Content-Range` cannot be the rest of the file.
    struct Contradiction: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// ASCII digits as an `Int64`; `nil` when empty, anything else, or too large.
    static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowed && !carried else { return nil }
            value = sum
        }
        return value
    }
}
