import Foundation

/// This process's resident memory from `/proc/self/status` (Linux only).
///
/// `VmHWM` is the peak resident set size, `VmRSS` the current one. Writing `5` to
/// `/proc/self/clear_refs` (Linux ≥ 4.0) resets the peak to the current size, so a peak read later
/// belongs to what ran in between.
enum PeakMemory {
    struct Reading {
        /// Peak resident bytes (`VmHWM`).
        let peak: Int64
        /// Resident bytes now (`VmRSS`).
        let current: Int64
    }

    static func read() throws -> Reading {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            throw BenchError("cannot read /proc/self/status (peak RSS is measured on Linux only)")
        }
        func kilobytes(_ field: String) -> Int64? {
            for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
                return Int64(
                    line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                        ?? "")
            }
            return nil
        }
        guard let peak = kilobytes("VmHWM"), let current = kilobytes("VmRSS") else {
            throw BenchError("no VmHWM/VmRSS in /proc/self/status")
        }
        return Reading(peak: peak * 1024, current: current * 1024)
    }

    /// Resets the peak to the current size.
    /// - Returns: Whether it worked: the write succeeded and the peak read right after is within
    ///   1 MiB of the current size (it was not before, or the reset is a no-op we cannot tell from
    ///   success, which only loses precision).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do { try handle.write(contentsOf: Data("5".utf8)) } catch { return false }
        guard let after = try? read() else { return false }
        return after.peak <= after.current + (1 << 20)
    }
}
