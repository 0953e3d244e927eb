/// Order statistics of a set of samples.
struct Summary {
    let count: Int
    let min: Double
    let median: Double
    let p90: Double
    let max: Double
    let mean: Double

    init(_ samples: [Double]) {
        precondition(!samples.isEmpty, "no samples")
        let sorted = samples.sorted()
        count = sorted.count
        min = sorted[0]
        max = sorted[sorted.count - 1]
        median = Summary.percentile(sorted, 0.5)
        p90 = Summary.percentile(sorted, 0.9)
        mean = sorted.reduce(0, +) / Double(sorted.count)
    }

    /// Linear interpolation between closest ranks; `sorted` must be ascending.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        if sorted.count == 1 { return sorted[0] }
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] * (1 - weight) + sorted[upper] * weight
    }
}

func median(_ values: [Double]) -> Double { Summary(values).median }
