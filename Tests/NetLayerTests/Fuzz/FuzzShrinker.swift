/// Makes a failing case smaller while it keeps failing the same way: greedy, trying the biggest
/// simplifications first (drop whole groups, then single params, headers, files, then simplify
/// values and shorten texts), re-running every candidate against the server. A candidate must be
/// strictly smaller (its Swift source is shorter), refuse nothing the original did not, and fit
/// the profile.
struct FuzzShrinker: Sendable {
    var profile: FuzzProfile
    /// Re-runs allowed for one shrink.
    var budget = 600

    /// The smallest case found that still has a problem of `kind`, with its problems and the
    /// number of re-runs spent.
    func shrink(
        _ original: FuzzCase, kind: String, problems: [FuzzProblem],
        check: (FuzzCase) async -> [FuzzProblem]
    ) async -> (FuzzCase, [FuzzProblem], runs: Int) {
        var current = original
        var currentProblems = problems
        var currentSize = Self.size(original)
        let refusals = FuzzRefusal.all(in: original)
        var runs = 0
        var improved = true
        while improved && runs < budget {
            improved = false
            for candidate in Self.candidates(current) {
                let size = Self.size(candidate)
                guard size < currentSize, profile.allows(candidate),
                    FuzzRefusal.all(in: candidate).isSubset(of: refusals)
                else { continue }
                if runs >= budget { break }
                runs += 1
                let found = await check(candidate)
                if found.contains(where: { $0.kind == kind }) {
                    current = candidate
                    currentSize = size
                    currentProblems = found
                    improved = true
                    break
                }
            }
        }
        return (current, currentProblems, runs)
    }

    /// How big a case reads: the length of its Swift source.
    static func size(_ fuzzCase: FuzzCase) -> Int {
        fuzzCase.swiftSource.unicodeScalars.count
    }

    /// Smaller variants of a case, roughly biggest step first.
    static func candidates(_ fuzzCase: FuzzCase) -> [FuzzCase] {
        var result: [FuzzCase] = []
        func with(_ change: (inout FuzzCase) -> Void) {
            var copy = fuzzCase
            change(&copy)
            result.append(copy)
        }
        if !fuzzCase.params.isEmpty { with { $0.params = [] } }
        if !fuzzCase.targetParams.isEmpty { with { $0.targetParams = [] } }
        if !fuzzCase.headers.isEmpty { with { $0.headers = [] } }
        if fuzzCase.files.count > 1 { with { $0.files = [$0.files[0]] } }
        for index in fuzzCase.params.indices { with { $0.params.remove(at: index) } }
        for index in fuzzCase.targetParams.indices { with { $0.targetParams.remove(at: index) } }
        for index in fuzzCase.headers.indices { with { $0.headers.remove(at: index) } }
        for index in fuzzCase.files.indices { with { $0.files.remove(at: index) } }
        if fuzzCase.files.isEmpty && fuzzCase.encoding == .multipart { with { $0.encoding = .automatic } }
        if let body = fuzzCase.body {
            for data in shorter(body.data) { with { $0.body?.data = data } }
            if body.contentType != nil { with { $0.body?.contentType = nil } }
        }
        // Simpler call shape.
        if fuzzCase.method != "POST" && FuzzCase.bodyMethods.contains(fuzzCase.method) {
            with { $0.method = "POST" }
        }
        if fuzzCase.method == "DELETE" && fuzzCase.body == nil { with { $0.method = "GET" } }
        if fuzzCase.pathStyle != .colon { with { $0.pathStyle = .colon } }
        if fuzzCase.pathKeyWithColon { with { $0.pathKeyWithColon = false } }
        switch fuzzCase.pathValue {
        case .string(let text):
            if text != "x" { with { $0.pathValue = .string("x") } }
            for shorter in shorter(text) { with { $0.pathValue = .string(shorter) } }
        case .int, .bool:
            with { $0.pathValue = .string("x") }
        }
        // Values, keys and texts.
        for (index, entry) in fuzzCase.params.enumerated() {
            for value in simpler(entry.value) { with { $0.params[index].value = value } }
            for key in shorter(entry.key) { with { $0.params[index].key = key } }
        }
        for (index, entry) in fuzzCase.targetParams.enumerated() {
            for value in simpler(entry.value) { with { $0.targetParams[index].value = value } }
            for key in shorter(entry.key) { with { $0.targetParams[index].key = key } }
        }
        for (index, header) in fuzzCase.headers.enumerated() {
            for value in shorter(header.value) { with { $0.headers[index].value = value } }
            if header.level == .target { with { $0.headers[index].level = .call } }
            let lower = fuzzLowerASCII(header.name)
            if lower.hasPrefix("x-fuzz-") {
                let suffix = String(header.name.dropFirst("x-fuzz-".count))
                for shorter in shorter(suffix) where !shorter.isEmpty {
                    with { $0.headers[index].name = "X-Fuzz-" + shorter }
                }
            } else if lower != "content-type" {
                for shorter in shorter(header.name) { with { $0.headers[index].name = shorter } }
            }
        }
        for (index, file) in fuzzCase.files.enumerated() {
            for data in shorter(file.data) { with { $0.files[index].data = data } }
            for field in shorter(file.field) { with { $0.files[index].field = field } }
            for filename in shorter(file.filename) { with { $0.files[index].filename = filename } }
            if let type = file.contentType {
                for shorter in shorter(type) { with { $0.files[index].contentType = shorter } }
            }
        }
        return result
    }

    /// Simpler values: a container's children (and the container without each child, or with a
    /// simpler child), plainer scalars, shorter strings.
    static func simpler(_ value: FuzzValue) -> [FuzzValue] {
        switch value {
        case .null: return []
        case .bool(let flag): return flag ? [.bool(false), .null] : [.null]
        case .int(let number): return number == 0 ? [.null] : [.int(0), .null]
        case .double(let number):
            if !number.isFinite { return [] }
            return number == 0 ? [.null] : [.double(0), .int(0), .null]
        case .string(let text): return [.null] + shorter(text).map { .string($0) }
        case .array(let items):
            var result: [FuzzValue] = items.filter { !$0.isNull }
            result.append(.array([]))
            for index in items.indices { result.append(.array(items.removing(at: index))) }
            for (index, item) in items.enumerated() {
                for simpler in simpler(item) {
                    result.append(.array(items.replacing(at: index, with: simpler)))
                }
            }
            return result
        case .dictionary(let entries):
            var result: [FuzzValue] = entries.map(\.value).filter { !$0.isNull }
            result.append(.dictionary([]))
            for index in entries.indices { result.append(.dictionary(entries.removing(at: index))) }
            for (index, entry) in entries.enumerated() {
                for simpler in simpler(entry.value) {
                    var copy = entries
                    copy[index].value = simpler
                    result.append(.dictionary(copy))
                }
                for key in shorter(entry.key) {
                    var copy = entries
                    copy[index].key = key
                    result.append(.dictionary(copy))
                }
            }
            return result
        }
    }

    /// Shorter texts: empty, halves, then (for short texts) each scalar left out or made plain.
    static func shorter(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        return shorter(scalars).map {
            var s = ""
            s.unicodeScalars.append(contentsOf: $0)
            return s
        }
            + plainer(scalars)
    }

    static func shorter<Element: Equatable>(_ items: [Element]) -> [[Element]] {
        guard !items.isEmpty else { return [] }
        var result: [[Element]] = [[]]
        if items.count >= 2 {
            result.append(Array(items.prefix(items.count / 2)))
            result.append(Array(items.suffix(items.count - items.count / 2)))
        }
        if items.count >= 8 {
            let quarter = items.count / 4
            for start in stride(from: 0, to: items.count, by: quarter) {
                result.append(Array(items[..<start] + items[min(items.count, start + quarter)...]))
            }
        }
        if items.count <= 24 && items.count > 1 {
            for index in items.indices { result.append(items.removing(at: index)) }
        }
        return result
    }

    /// The text with one non-ASCII or unusual scalar replaced by `a`.
    private static func plainer(_ scalars: [Unicode.Scalar]) -> [String] {
        guard scalars.count <= 24 else { return [] }
        var result: [String] = []
        for (index, scalar) in scalars.enumerated() where !(scalar.properties.isAlphabetic && scalar.isASCII)
        {
            var copy = scalars
            copy[index] = "a"
            var text = ""
            text.unicodeScalars.append(contentsOf: copy)
            result.append(text)
        }
        return result
    }
}

extension Array {
    fileprivate func removing(at index: Int) -> [Element] {
        var copy = self
        copy.remove(at: index)
        return copy
    }

    fileprivate func replacing(at index: Int, with element: Element) -> [Element] {
        var copy = self
        copy[index] = element
        return copy
    }
}
