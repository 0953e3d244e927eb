/// Suggests the name a caller probably meant: `rep` for a token `repo`.
enum NearMiss {
    /// The candidate closest to `name` by edit distance, when it is close enough to be a typo: at
    /// most one edit for names of up to four characters, two for longer ones. Ties go to the
    /// candidate first in byte order, so the suggestion is stable.
    static func suggestion(for name: String, among candidates: [String]) -> String? {
        let limit = name.count <= 4 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates.sorted() where candidate != name {
            let distance = editDistance(Array(name.lowercased().utf8), Array(candidate.lowercased().utf8))
            if distance <= limit, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// Levenshtein distance over bytes; names are short identifiers, so two rows suffice.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
