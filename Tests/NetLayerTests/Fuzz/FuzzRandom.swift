/// A seeded pseudo-random generator (SplitMix64), so a seed and a case index reproduce a case
/// exactly, on every platform and in every process.
///
/// Each case draws from its own stream, derived from the run's seed and the case's index, so cases
/// can be generated concurrently and one case can be regenerated alone.
struct FuzzRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The stream of case `index` in the run seeded with `seed`.
    init(seed: UInt64, index: Int) {
        var mixer = FuzzRandom(seed: seed ^ 0x6A09_E667_F3BC_C908)
        let base = mixer.next()
        self.init(seed: base &+ UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03)
        _ = next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range` (uniform, without modulo bias worth speaking of for small ranges).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        if width == 0 { return Int(truncatingIfNeeded: next()) }
        return range.lowerBound + Int(next() % width)
    }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// One element of a non-empty array.
    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[int(0...(elements.count - 1))]
    }

    /// An index chosen with the given relative weights.
    mutating func weighted(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        var roll = int(0...(total - 1))
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

    /// A small count: mostly low, now and then up to `max`.
    mutating func count(max: Int) -> Int {
        switch int(0...9) {
        case 0...1: return 0
        case 2...7: return int(1...Swift.min(3, max))
        default: return int(0...max)
        }
    }
}
