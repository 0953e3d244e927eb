import Foundation
import NetLayer

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 28's goals (`--cache-only`, `BENCH_ONLY=cache`; part of a full run): a fresh cache hit
/// against a loopback round trip for the same small JSON, and what a hit allocates.
///
/// Every call is a whole NetLayer call: one to `/books` on a resource without a cache, one to
/// `/books-cached` (the same ~1 KB body with `Cache-Control: max-age=86400`) on a resource whose
/// ``HTTPCache`` stored it once — in memory, and on disk. Two groups alternate in blocks of 25
/// sequential calls (``LatencyBenchmark/timeInBlocks(_:blocks:label:check:progress:)``):
/// - the body as bytes (`execute()`): round trip, memory hit, disk hit;
/// - the body decoded as `[Book]` (`execute(model:)`): round trip, memory hit, and `JSONDecoder`
///   alone on the same bytes — the part of either call no cache can save.
///
/// The table shows quartiles per call and ratios of medians. Goal: a hit ≤ 1/20 of the round trip.
/// Then a child process with a counting `malloc` preloaded (as ``EventStreamAllocations``) counts
/// the mallocs and bytes of 500 calls of each kind. Goal: a hit allocates no more than a network
/// response of the same body.
enum CacheBenchmark {
    static func run(port: Int, blocks: Int, progress: (String) -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netlayer-bench-cache-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (network, memory, disk) = try await clients(port: port, directory: directory)
        // The server's bytes (an encoder's key order may differ from one encoding to the next).
        let expected = try await network.bookList.makeExecutor().execute()
        try LatencyBenchmark.check(JSONDecoder().decode([Book].self, from: expected))

        let byteClients: [(name: String, fetch: @Sendable () async throws -> Data)] = [
            ("round trip", { try await network.bookList.makeExecutor().execute() }),
            ("memory hit", { try await cachedBooks(memory).makeExecutor().execute() }),
            ("disk hit", { try await cachedBooks(disk).makeExecutor().execute() }),
        ]
        let bytes = try await LatencyBenchmark.timeInBlocks(
            byteClients, blocks: blocks, label: "cache bytes",
            check: { data in
                guard data == expected else { throw BenchError("a call answered other bytes") }
            }, progress: progress)
        let decoder = JSONDecoder()
        let decodeClients: [(name: String, fetch: ThroughputBenchmark.Fetch)] = [
            ("round trip", { try await network.bookList.list() }),
            ("memory hit", { try await cachedBooks(memory).list() }),
            ("decode alone", { try decoder.decode([Book].self, from: expected) }),
        ]
        let decoded = try await LatencyBenchmark.timeInBlocks(
            decodeClients, blocks: blocks, label: "cache decode", progress: progress)
        for api in [memory, disk] {
            let hit = try await cachedBooks(api).makeExecutor().response()
            guard hit.cacheStatus?.isHit == true else { throw BenchError("the last call was not a hit") }
        }

        print("")
        print("== Cache hit vs loopback round trip (issue 28), \(blocks * 25) sequential calls each ==")
        let byteMedians = table("GET, body as bytes", byteClients.map(\.name), bytes)
        let decodeMedians = table("GET + decode [Book]", decodeClients.map(\.name), decoded)
        let memoryRatio = byteMedians[1] / byteMedians[0]
        let diskRatio = byteMedians[2] / byteMedians[0]
        let decodedRatio = decodeMedians[1] / decodeMedians[0]
        let floor = decodeMedians[2] / decodeMedians[0]
        print(
            "ratio memory hit / round trip, bytes: \(fraction(memoryRatio)); decoded: \(fraction(decodedRatio)) "
                + "(decoding alone is \(fraction(floor)) of the round trip); disk hit, bytes: \(fraction(diskRatio))"
        )
        print(
            "goal ≤ 0.05 (1/20): bytes \(memoryRatio <= 0.05 ? "MET" : "NOT MET"), decoded \(decodedRatio <= 0.05 ? "MET" : "NOT MET")"
        )
        print(
            "RESULT cache_hit_us=\(Report.fixed(byteMedians[1], 1)) round_trip_us=\(Report.fixed(byteMedians[0], 1)) "
                + "cache_ratio=\(Report.fixed(memoryRatio, 4)) disk_hit_us=\(Report.fixed(byteMedians[2], 1)) "
                + "cache_decoded_ratio=\(Report.fixed(decodedRatio, 4)) decode_us=\(Report.fixed(decodeMedians[2], 1))"
        )
        fflush(nil)

        let counts = try await allocations(port: port)
        print("")
        print(
            "== Allocations per call, GET /books body as bytes, 500 calls each (a child with a counting malloc) =="
        )
        print("call            mallocs     bytes")
        for count in counts {
            print(
                count.name.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + Report.fixed(count.mallocs, 1).leftPadded(to: 9)
                    + Report.fixed(count.bytes, 0).leftPadded(to: 10))
        }
        if let trip = counts.first(where: { $0.name == "round trip" }),
            let hit = counts.first(where: { $0.name == "memory hit" })
        {
            print(
                "goal: a hit allocates no more than a network response: \(hit.mallocs <= trip.mallocs && hit.bytes <= trip.bytes ? "MET" : "NOT MET")"
            )
            print(
                "RESULT cache_hit_mallocs=\(Report.fixed(hit.mallocs, 1)) round_trip_mallocs=\(Report.fixed(trip.mallocs, 1))"
            )
        }
    }

    /// The three resources: without a cache, with one in memory, with one on disk in `directory`;
    /// both caches hold `/books-cached` once this returns.
    static func clients(port: Int, directory: URL) async throws -> (BenchAPI, BenchAPI, BenchAPI) {
        let network = BenchAPI(port: port)
        let memory = BenchAPI(port: port, options: ResourceOptions { $0.cache = HTTPCache() })
        let diskCache = try await HTTPCache(directory: directory)
        let disk = BenchAPI(port: port, options: ResourceOptions { $0.cache = diskCache })
        for api in [memory, disk] { try await storeOnce(api) }
        return (network, memory, disk)
    }

    static func cachedBooks(_ api: BenchAPI) -> BooksTarget {
        BooksTarget(resource: api, path: "/books-cached")
    }

    /// The first call, which must store the body.
    static func storeOnce(_ api: BenchAPI) async throws {
        let stored = try await cachedBooks(api).makeExecutor().response()
        guard stored.cacheStatus?.isStored == true else {
            throw BenchError(
                "/books-cached was not stored: \(stored.cacheStatus?.description ?? "no cache status")")
        }
    }

    static func fraction(_ ratio: Double) -> String {
        "\(Report.fixed(ratio, 3)) (1/\(Report.fixed(1 / ratio, 0)))"
    }

    /// Prints each client's quartiles; returns the medians.
    static func table(_ title: String, _ names: [String], _ micros: [[Double]]) -> [Double] {
        print("\(title)\nclient          p25 µs    p50 µs    p75 µs")
        var medians: [Double] = []
        for (name, values) in zip(names, micros) {
            let sorted = values.sorted()
            let quartile = { (q: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
            medians.append(quartile(0.5))
            print(
                name.padding(toLength: 14, withPad: " ", startingAt: 0)
                    + [quartile(0.25), quartile(0.5), quartile(0.75)].map {
                        Report.fixed($0, 1).leftPadded(to: 10)
                    }.joined())
        }
        return medians
    }

    // MARK: Allocations

    struct AllocationCount {
        var name: String
        var mallocs: Double
        var bytes: Double
    }

    static let childFlag = "--cache-alloc-child"

    /// The parent: runs the child against the server on `port` and reads its lines.
    static func allocations(port: Int) async throws -> [AllocationCount] {
        let (executable, library) = try EventStreamAllocations.interposedExecutable()
        let output = try await ChildProcess.run(
            executable, [childFlag, "port=\(port)"], environment: ["LD_PRELOAD": library])
        var counts: [AllocationCount] = []
        for line in output.split(separator: "\n") where line.hasPrefix("CACHE_ALLOCS ") {
            let parts = line.split(separator: " ").dropFirst().map(String.init)
            guard parts.count == 3, let mallocs = Double(parts[1]), let bytes = Double(parts[2]) else {
                throw BenchError("bad line from the allocation child: \(line)")
            }
            counts.append(
                AllocationCount(
                    name: parts[0].replacingOccurrences(of: "_", with: " "), mallocs: mallocs, bytes: bytes))
        }
        guard counts.count == 3 else { throw BenchError("the allocation child printed: \(output)") }
        return counts
    }

    /// The child: 100 warm-up calls of each kind, then 500 counted ones (counting on around each
    /// call only, so the loop's own work is not counted), one line per kind, then exits. Counting is
    /// process-wide: a round trip's count includes the transport's threads.
    static func child(_ arguments: [String]) async -> Never {
        do {
            guard
                let port = arguments.first(where: { $0.hasPrefix("port=") }).flatMap({ Int($0.dropFirst(5)) })
            else { throw BenchError("usage: \(childFlag) port=N") }
            let counter = try EventStreamAllocations.Counter()
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("netlayer-bench-cache-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let (network, memory, disk) = try await clients(port: port, directory: directory)
            let kinds: [(String, @Sendable () async throws -> Data)] = [
                ("round_trip", { try await network.bookList.makeExecutor().execute() }),
                ("memory_hit", { try await cachedBooks(memory).makeExecutor().execute() }),
                ("disk_hit", { try await cachedBooks(disk).makeExecutor().execute() }),
            ]
            let calls = 500
            for (name, fetch) in kinds {
                for _ in 0..<100 { _ = try await fetch() }
                var mallocs = 0
                var bytes = 0
                for _ in 0..<calls {
                    counter.reset()
                    counter.enable()
                    let data = try await fetch()
                    counter.disable()
                    blackHole(data)
                    mallocs += counter.mallocs
                    bytes += counter.bytes
                }
                print(
                    "CACHE_ALLOCS \(name) \(Double(mallocs) / Double(calls)) \(Double(bytes) / Double(calls))"
                )
            }
            fflush(nil)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("cache allocation child: \(error)\n".utf8))
            exit(1)
        }
    }
}

extension String {
    /// Right-aligned in `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
