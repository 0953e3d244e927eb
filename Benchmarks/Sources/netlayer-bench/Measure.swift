import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Monotonic time in nanoseconds (`clock_gettime(CLOCK_MONOTONIC)`, a vDSO call of ~20 ns on Linux).
@inline(__always)
func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@_optimize(none)
func blackHole<T>(_ value: T) {}

/// CPU time of this process, split into the in-process server's share and the rest (the client).
///
/// The total comes from `getrusage(RUSAGE_SELF)` (user + system). The server runs on SwiftNIO event
/// loop threads, whose names start with `NIO-`; their CPU time is read per thread (see
/// ``threadCPUSeconds(namePrefix:)``).
/// Client = total - server: URLSession's curl/dispatch threads, the Swift concurrency pool and the
/// decoding work.
struct CPUSnapshot {
    var total: Double
    var server: Double

    static func now() -> CPUSnapshot {
        CPUSnapshot(total: processCPUSeconds(), server: threadCPUSeconds(namePrefix: "NIO-"))
    }

    static func - (lhs: CPUSnapshot, rhs: CPUSnapshot) -> CPUSnapshot {
        CPUSnapshot(total: lhs.total - rhs.total, server: lhs.server - rhs.server)
    }

    static func + (lhs: CPUSnapshot, rhs: CPUSnapshot) -> CPUSnapshot {
        CPUSnapshot(total: lhs.total + rhs.total, server: lhs.server + rhs.server)
    }

    var client: Double { total - server }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Summed CPU time of the threads whose name starts with `namePrefix` (Linux only; 0 elsewhere).
    ///
    /// Each thread's time is read with `clock_gettime` on its per-thread CPU clock (the id glibc's
    /// `pthread_getcpuclockid` builds from a thread id), so it is exact to the nanosecond rather than
    /// rounded to the 10 ms ticks of `/proc/self/task/*/stat`.
    static func threadCPUSeconds(namePrefix: String) -> Double {
        #if os(Linux)
            guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else {
                return 0
            }
            var nanos: UInt64 = 0
            for tidText in tids {
                guard let tid = Int32(tidText),
                    let name = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                    name.hasPrefix(namePrefix)
                else { continue }
                // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) from the kernel's posix-timers.h.
                let clock = clockid_t((~tid) << 3 | 2 | 4)
                var spec = timespec()
                guard clock_gettime(clock, &spec) == 0 else { continue }
                nanos += UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
            }
            return Double(nanos) / 1e9
        #else
            return 0
        #endif
    }

    /// Names of this process's threads, for the report's header.
    static func threadNames() -> [String] {
        #if os(Linux)
            let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tids.compactMap { tid in
                (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }.sorted()
        #else
            return []
        #endif
    }
}
