import Foundation
import NetLayer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-line progress bar for one direction of a transfer. On a terminal it is redrawn in place
/// (`\r`); otherwise (a CI log, a pipe) it prints a line at each quarter, so logs stay readable.
///
/// Unchecked Sendable: every field is guarded by `lock`; `show` may be called from any thread
/// (a progress closure runs on a transport thread).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let direction: TransferProgress.Direction
    private let redraws = isatty(STDOUT_FILENO) == 1
    private let lock = NSLock()
    private var drawnPercent = -1
    private var printedPercent = -1
    private var lineOpen = false
    private var stats = (events: 0, monotonic: true, finished: false, lastBytes: Int64(0))

    init(_ label: String, direction: TransferProgress.Direction) {
        self.label = label
        self.direction = direction
    }

    /// Events seen, whether their byte counts never went down, and whether the final one came.
    var summary: (events: Int, monotonic: Bool, finished: Bool) {
        lock.withLock { (stats.events, stats.monotonic, stats.finished) }
    }

    func show(_ event: TransferProgress) {
        guard event.direction == direction else { return }
        lock.withLock {
            guard !stats.finished else { return }
            stats.events += 1
            stats.monotonic = stats.monotonic && event.completedBytes >= stats.lastBytes
            stats.lastBytes = event.completedBytes
            stats.finished = event.isFinished
            let percent = Int((event.fraction ?? 0) * 100)
            let amount =
                "\(Self.mebibytes(event.completedBytes)) of \(event.expectedBytes.map(Self.mebibytes) ?? "?") MiB"
            if redraws {
                guard percent != drawnPercent || event.isFinished else { return }
                drawnPercent = percent
                let filled = percent * 30 / 100
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
                let number = String(percent)
                let padded = String(repeating: " ", count: max(0, 3 - number.count)) + number
                print("\r   \(label) \(bar) \(padded)%  \(amount)", terminator: event.isFinished ? "\n" : "")
                lineOpen = !event.isFinished
                fflush(nil)
            } else if percent >= (printedPercent / 25 + 1) * 25 || (event.isFinished && printedPercent < 100)
            {
                printedPercent = percent
                print("   \(label) \(percent)% (\(amount))")
            }
        }
    }

    /// Ends a line left open by a transfer that failed.
    func end() {
        lock.withLock {
            if lineOpen { print("") }
            lineOpen = false
        }
    }

    private static func mebibytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }
}
