import EventSourceParser
import Foundation
import NetLayer

#if canImport(Glibc)
    import Glibc
#endif

/// Mallocs per event of both parsers, counted in a child process.
///
/// glibc has had no malloc hooks since 2.34, and `mallinfo2` gives bytes in use, not calls, so the
/// count needs an interposed `malloc`. ordo-one/malloc-interposer defines `malloc`, `calloc`,
/// `realloc`, `free`, `posix_memalign`… and counts each call while counting is on. It only sees the
/// calls of a process that loaded it before libc, so the parent starts itself again
/// (`--events-alloc-child`) with `LD_PRELOAD` set to the interposer's library, which SwiftPM builds
/// next to the executable. netlayer-bench does not link it (`--as-needed`, nothing imports it): the
/// other parts keep glibc's malloc untouched. The child reaches the counters with `dlsym`.
///
/// Swift's allocations all end in `malloc` (`swift_slowAlloc`), so every class instance, array,
/// string and `Data` storage is one counted call.
enum EventStreamAllocations {
    struct Count {
        var parser: EventStreamBenchmark.Parser
        var events: Int
        var mallocs: Int
        /// Strings an event owns that are not small (> 15 UTF-8 bytes): data, and type when it is not
        /// "message".
        var ownStrings: Int

        var perEvent: Double { Double(mallocs) / Double(max(1, events)) }
        var ownPerEvent: Double { Double(ownStrings) / Double(max(1, events)) }
        var beyondOwnPerEvent: Double { Double(mallocs - ownStrings) / Double(max(1, events)) }
    }

    static let childFlag = "--events-alloc-child"

    /// The parent: runs the child and reads its `EVENTS_ALLOCS` lines.
    static func measure(bytes: Int, chunkSize: Int) async throws -> [Count] {
        let (executable, library) = try interposedExecutable()
        let output = try await ChildProcess.run(
            executable, [childFlag, "bytes=\(bytes)", "chunk=\(chunkSize)"],
            environment: ["LD_PRELOAD": library])
        var counts: [Count] = []
        for line in output.split(separator: "\n") where line.hasPrefix("EVENTS_ALLOCS ") {
            var fields: [String: String] = [:]
            for item in line.split(separator: " ").dropFirst() {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            guard let parser = fields["parser"].flatMap(EventStreamBenchmark.Parser.init(rawValue:)),
                let events = fields["events"].flatMap({ Int($0) }),
                let mallocs = fields["mallocs"].flatMap({ Int($0) }),
                let own = fields["own"].flatMap({ Int($0) })
            else { throw BenchError("bad line from the allocation child: \(line)") }
            counts.append(Count(parser: parser, events: events, mallocs: mallocs, ownStrings: own))
        }
        guard counts.count == 2 else { throw BenchError("the allocation child printed: \(output)") }
        return counts
    }

    /// This executable and the interposer library built next to it, for a child to preload.
    static func interposedExecutable() throws -> (executable: String, library: String) {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let library = URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("libMallocInterposerSwift.so").path
        guard FileManager.default.fileExists(atPath: library) else {
            throw BenchError("\(library) is missing (swift build builds it with netlayer-bench)")
        }
        return (executable, library)
    }

    /// The interposer's counters, found with `dlsym` (the library is preloaded, not linked).
    struct Counter {
        typealias Switch = @convention(c) () -> Void
        typealias Stats =
            @convention(c) (
                UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>,
                UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int64>
            ) -> Void
        let enable: Switch
        let disable: Switch
        let reset: Switch
        let stats: Stats

        init() throws {
            let handle = dlopen(nil, RTLD_NOW)
            func symbol<T>(_ name: String, as type: T.Type) throws -> T {
                guard let pointer = dlsym(handle, name) else {
                    throw BenchError("\(name) not found: is libMallocInterposerSwift.so preloaded?")
                }
                return unsafeBitCast(pointer, to: type)
            }
            enable = try symbol("malloc_interposer_enable", as: Switch.self)
            disable = try symbol("malloc_interposer_disable", as: Switch.self)
            reset = try symbol("malloc_interposer_reset", as: Switch.self)
            stats = try symbol("malloc_interposer_get_stats", as: Stats.self)
        }

        var mallocs: Int { statistics.count }

        /// The bytes the counted mallocs asked for.
        var bytes: Int { statistics.bytes }

        private var statistics: (count: Int, bytes: Int) {
            var count: Int64 = 0
            var bytes: Int64 = 0
            var small: Int64 = 0
            var large: Int64 = 0
            var frees: Int64 = 0
            var freed: Int64 = 0
            stats(&count, &bytes, &small, &large, &frees, &freed)
            return (Int(count), Int(bytes))
        }

        /// Counts the mallocs of `body` (counting on only around it).
        func count(_ body: () throws -> Void) rethrows -> Int {
            reset()
            enable()
            try body()
            disable()
            return mallocs
        }
    }

    /// The child: counts each parser over the whole stream, prints one line per parser, exits.
    static func child(_ arguments: [String]) async -> Never {
        do {
            var fields: [String: String] = [:]
            for argument in arguments {
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            guard let bytes = fields["bytes"].flatMap({ Int($0) }),
                let chunkSize = fields["chunk"].flatMap({ Int($0) })
            else { throw BenchError("usage: \(childFlag) bytes=N chunk=N") }
            let counter = try Counter()
            // The interposer must be live: one malloc of our own must be seen.
            let probe = counter.count {
                let pointer = malloc(48)
                blackHole(pointer)
                free(pointer)
            }
            guard probe >= 1 else { throw BenchError("the interposer counted no malloc: is it preloaded?") }

            let fixture = EventStreamFixture.make(size: bytes)
            let chunks = fixture.chunks(of: chunkSize)
            // Each parser: a warm-up parse (runtime metadata, caches), then the counted one, with a
            // fresh parser. EventSource's counting window spans its awaits (one per chunk); the
            // process runs nothing else.
            _ = try EventStreamBenchmark.parseNetLayer(chunks)
            var netLayer = EventStreamBenchmark.Tally()
            let netLayerMallocs = try counter.count {
                netLayer = try EventStreamBenchmark.parseNetLayer(chunks)
            }
            print(
                "EVENTS_ALLOCS parser=NetLayer events=\(netLayer.events) mallocs=\(netLayerMallocs) "
                    + "own=\(netLayer.ownStrings)")

            _ = await EventStreamBenchmark.parseEventSource(chunks)
            counter.reset()
            counter.enable()
            let eventSource = await EventStreamBenchmark.parseEventSource(chunks)
            counter.disable()
            print(
                "EVENTS_ALLOCS parser=EventSource events=\(eventSource.events) mallocs=\(counter.mallocs) "
                    + "own=\(eventSource.ownStrings)")
            fflush(nil)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("events allocation child: \(error)\n".utf8))
            exit(1)
        }
    }
}
