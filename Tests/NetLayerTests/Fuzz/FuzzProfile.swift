/// What the server on the other end can faithfully report, and so which inputs the generator and
/// the shrinker may produce. The in-process test server reports every byte; httpbin (gunicorn,
/// werkzeug, Flask) cannot tell some inputs apart, and those are left out for it, not hidden in
/// the comparison.
struct FuzzProfile: Sendable {
    /// A label for reports.
    var name: String
    /// Share of cases carrying an input DESIGN refuses.
    var refusedRate: Double
    /// Header names may contain `_` (gunicorn drops such headers, since `_` and `-` both become `_`
    /// in the WSGI environment).
    var headerNamesWithUnderscore: Bool
    /// Path-part values may contain `/` anywhere. Werkzeug's router merges `//` with a redirect, so
    /// for httpbin a `/` may only sit between two non-empty segments that are not `.` or `..`.
    var pathSlashesAnywhere: Bool
    /// Path-part values may contain LF (werkzeug's `<path:…>` route is a regex whose `.` stops at a
    /// line feed, so httpbin answers 404).
    var pathLineFeeds: Bool

    static let inProcess = FuzzProfile(
        name: "in-process test server", refusedRate: 0.15, headerNamesWithUnderscore: true,
        pathSlashesAnywhere: true, pathLineFeeds: true)

    static let httpbin = FuzzProfile(
        name: "httpbin", refusedRate: 0.1, headerNamesWithUnderscore: false, pathSlashesAnywhere: false,
        pathLineFeeds: false)

    /// Whether a case fits this profile and the fuzzer's own rules (see ``FuzzCase/isWellFormed``).
    func allows(_ fuzzCase: FuzzCase) -> Bool {
        guard fuzzCase.isWellFormed else { return false }
        if !headerNamesWithUnderscore,
            fuzzCase.headers.contains(where: { $0.name.utf8.contains(UInt8(ascii: "_")) })
        {
            return false
        }
        if !pathSlashesAnywhere, case .string(let text) = fuzzCase.pathValue,
            text.utf8.contains(UInt8(ascii: "/"))
        {
            let segments = Array(fuzzCase.expectedSegment.utf8).split(
                separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            let dots = [Array(".".utf8), Array("..".utf8)]
            if segments.contains(where: { $0.isEmpty || dots.contains(Array($0)) }) { return false }
        }
        if !pathLineFeeds && fuzzCase.expectedSegment.utf8.contains(0x0A) { return false }
        return true
    }
}

extension FuzzCase {
    static let queryMethods = ["GET", "DELETE"]
    static let bodyMethods = ["POST", "PUT", "PATCH"]

    /// The fuzzer's own rules, which keep every case one DESIGN answers unambiguously:
    /// - keys unique at every level; across levels either byte-identical or not equivalent;
    /// - a key or header overridden by the call level is finite, not refused, and not overridden by `nil`;
    /// - refusals (if any) all call for one error code;
    /// - valid header names start with `X-Fuzz` or are `Content-Type`, unique per level;
    /// - a guessed file type has an extension DESIGN's guess covers (or none);
    /// - files and bodies only with methods and encodings the placement table allows.
    var isWellFormed: Bool {
        guard fuzzUniqueKeys(targetParams.map(\.key)), fuzzUniqueKeys(params.map(\.key)),
            (targetParams + params).allSatisfy({ $0.value.hasUniqueKeys })
        else { return false }
        for target in targetParams {
            guard let call = params.first(where: { $0.key == target.key }) else { continue }
            if !fuzzSame(call.key, target.key) || call.value.isNull || target.value.containsNonFinite {
                return false
            }
        }
        guard FuzzRefusal.isUnambiguous(self) else { return false }
        for level in [FuzzLevel.target, .call] {
            let names = headers(at: level).map { fuzzLowerASCII($0.name) }
            guard Set(names).count == names.count else { return false }
        }
        for header in headers {
            let lower = fuzzLowerASCII(header.name)
            let refused =
                !fuzzIsToken(header.name) || FuzzRefusal.framingNames.contains(lower)
                || FuzzRefusal.hasControl(header.value)
            if !refused && !lower.hasPrefix("x-fuzz") && lower != "content-type" { return false }
            if refused && header.level == .target
                && headers.contains(where: { $0.level == .call && fuzzLowerASCII($0.name) == lower })
            {
                return false
            }
        }
        guard fuzzUniqueKeys(files.map(\.field)) else { return false }
        if files.contains(where: { $0.contentType == nil && FuzzExpectation.guessedType($0.filename) == nil })
        {
            return false
        }
        let queryMethod = Self.queryMethods.contains(method)
        if queryMethod && (!files.isEmpty || encoding != .automatic) { return false }
        if method == "GET" && body != nil { return false }
        if body != nil && (!files.isEmpty || encoding == .multipart) { return false }
        return Self.queryMethods.contains(method) || Self.bodyMethods.contains(method)
    }
}
