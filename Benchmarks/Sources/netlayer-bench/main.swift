import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// netlayer-bench: request preparation cost, GET+decode throughput of NetLayer against raw
// URLSession, then transfers (peak RSS and throughput of large uploads and downloads), then
// NetLayer over AsyncHTTPClient against raw AsyncHTTPClient, then
// event-stream parsing against mattt/EventSource's parser. See Benchmarks/README.md. Always run in release:
//   swift run --package-path Benchmarks -c release netlayer-bench [--quick]
//     [--prep-only|--throughput-only|--transfers-only|--events-only|--json-only|--ahc-only|--latency-only]

// A child of the transfer memory benchmark: one transfer in a fresh process (see MemoryBenchmark).
if CommandLine.arguments.dropFirst().first == "--memory-child" {
    await MemoryBenchmark.child(Array(CommandLine.arguments.dropFirst(2)))
}
// A child of the event-stream part: mallocs per event, with the interposer preloaded.
if CommandLine.arguments.dropFirst().first == EventStreamAllocations.childFlag {
    await EventStreamAllocations.child(Array(CommandLine.arguments.dropFirst(2)))
}

// A child of the cache part: mallocs per call, with the interposer preloaded.
if CommandLine.arguments.dropFirst().first == CacheBenchmark.childFlag {
    await CacheBenchmark.child(Array(CommandLine.arguments.dropFirst(2)))
}

let config = Config.load()
print("netlayer-bench: \(config)")
print(
    "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)"
)

if let client = config.profileClient {
    // Profiling aid: one client alone, no statistics, so a profiler's totals belong to that client.
    do {
        let server = try await BenchServer.start()
        if client == "canned-inplace" {
            try await InPlaceProfile.run(
                port: server.port, rounds: config.profileRequests, tasks: config.profileConcurrency)
            exit(0)
        }
        let fetch: ThroughputBenchmark.Fetch
        let configuration = config.baselineConfiguration
        switch client {
        case "netlayer":
            let netLayer = NetLayerClient(port: server.port)
            fetch = { try await netLayer.books() }
        case "netlayer-foundation":
            let netLayer = NetLayerClient.onFoundationDefault(port: server.port)
            fetch = { try await netLayer.books() }
        case "transport":
            let transport = TransportClient(port: server.port)
            fetch = { try await transport.books() }
        case "canned":
            let canned = try CannedClient()
            fetch = { try await canned.books() }
        case "cache-hit":
            let cached = BenchAPI(port: server.port, options: ResourceOptions { $0.cache = HTTPCache() })
            let target = BooksTarget(resource: cached, path: "/books-cached")
            _ = try await target.list()
            fetch = { try await target.list() }
        case "canned-decode":
            let canned = try CannedClient()
            fetch = { try await canned.decodeOnly() }
        case let name where name.hasPrefix("delegate-"):
            let queue =
                URLSessionDelegateClient.Queue(rawValue: String(name.dropFirst("delegate-".count))) ?? .serial
            let delegated = URLSessionDelegateClient(
                port: server.port, queue: queue, configuration: configuration.make())
            fetch = { try await delegated.books() }
        default:
            let baseline = URLSessionClient(port: server.port, configuration: configuration.make())
            fetch = { try await baseline.books() }
        }
        let mode: ThroughputBenchmark.Mode =
            config.profileConcurrency > 1
            ? .concurrent(requests: config.profileRequests, tasks: config.profileConcurrency)
            : .sequential(requests: config.profileRequests)
        let (seconds, cpu) = try await ThroughputBenchmark.measure(
            mode, fetch: fetch, expected: BenchServer.books)
        print(
            "profile \(client), \(mode.title): \(Report.fixed(seconds, 2)) s, "
                + "client CPU \(Report.fixed(cpu.client / Double(config.profileRequests) * 1e6, 1)) µs/req, "
                + "wall \(Report.fixed(seconds / Double(config.profileRequests) * 1e6, 2)) µs/req")
    } catch {
        fail("profile run: \(error)")
    }
    exit(0)
}

var prep: PreparationBenchmark.Output?
if config.runPrep {
    do {
        prep = try PreparationBenchmark.run(config)
    } catch {
        fail("preparation benchmark: \(error)")
    }
    Report.preparation(prep!, config: config)
    fflush(nil)
}

let progress: @Sendable (String) -> Void = { line in
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
var server: BenchServer.Running?
if config.runThroughput || config.runTransfers || config.runLatency || config.runAHC || config.runCache {
    do {
        server = try await BenchServer.start()
    } catch {
        fail("server: \(error)")
    }
}

var sequential: ThroughputBenchmark.Output?
var concurrent: ThroughputBenchmark.Output?
if config.runThroughput, let server {
    do {
        print("")
        print(
            "server: Hummingbird on 127.0.0.1:\(server.port), GET /books = \(server.bodyBytes) bytes of JSON")
        let configuration = config.baselineConfiguration
        print(
            "URLSession baseline: "
                + (configuration == .same
                    ? "URLSessionTransport.defaultConfiguration (the configuration NetLayer's transport uses)"
                    : "URLSessionConfiguration.default (NOT NetLayer's; the goals do not apply)"))
        let baseline = URLSessionClient(port: server.port, configuration: configuration.make())
        let contender: ThroughputBenchmark.Fetch
        switch config.throughputContender {
        case "transport":
            print(
                "DIAGNOSTIC: the rows labelled NetLayer are URLSessionTransport.send called directly (no "
                    + "executor); the goals do not apply")
            let transport = TransportClient(port: server.port)
            contender = { try await transport.books() }
        case "urlsession":
            print(
                "DIAGNOSTIC: the rows labelled NetLayer are raw URLSession on NetLayer's default "
                    + "configuration; the goals do not apply")
            let plain = URLSessionClient(
                port: server.port, configuration: URLSessionTransport.defaultConfiguration)
            contender = { try await plain.books() }
        case "urlsession-fresh":
            print(
                "DIAGNOSTIC: the rows labelled NetLayer are raw URLSession on the baseline's configuration "
                    + "with a new URLRequest per call; the goals do not apply")
            let fresh = URLSessionClient(port: server.port, configuration: configuration.make())
            contender = { try await fresh.booksWithAFreshRequest() }
        case "netlayer-unlimited":
            print(
                "DIAGNOSTIC: the rows labelled NetLayer are NetLayer with maximumResponseSize: nil (URLSession's "
                    + "one-call path, no limit on a collected body); the goals do not apply")
            let netLayer = NetLayerClient.unlimited(port: server.port)
            contender = { try await netLayer.books() }
        case "netlayer-foundation":
            print(
                "DIAGNOSTIC: the rows labelled NetLayer are NetLayer on a transport with "
                    + "URLSessionConfiguration.default; the goals do not apply")
            let netLayer = NetLayerClient.onFoundationDefault(port: server.port)
            contender = { try await netLayer.books() }
        case let name where name.hasPrefix("spin-"):
            let micros = Int(name.dropFirst("spin-".count)) ?? 0
            print("DIAGNOSTIC: raw URLSession plus \(micros) µs of busy CPU per request")
            let spinning = URLSessionClient(port: server.port, configuration: configuration.make())
            contender = {
                let books = try await spinning.books()
                let end = monotonicNanos() + UInt64(micros) * 1000
                while monotonicNanos() < end {}
                return books
            }
        case let name where name.hasPrefix("delegate-"):
            let queue =
                URLSessionDelegateClient.Queue(rawValue: String(name.dropFirst("delegate-".count))) ?? .serial
            print(
                "DIAGNOSTIC: the rows labelled NetLayer are raw URLSession on a session with a redirect-refusing "
                    + "delegate, delegate queue \(queue.rawValue); the goals do not apply")
            let delegated = URLSessionDelegateClient(
                port: server.port, queue: queue, configuration: configuration.make())
            contender = { try await delegated.books() }
        case "tracing-noop", "tracing-inmemory":
            let memory = config.throughputContender == "tracing-inmemory"
            print(
                "ISSUE 29: the rows labelled URLSession are NetLayer WITHOUT an observer; the rows labelled "
                    + "NetLayer are NetLayer with NetLayerObservability's TelemetryObserver (spans and metrics) over "
                    + (memory
                        ? "swift-distributed-tracing's InMemoryTracer (every span kept)"
                        : "the no-op tracer and metrics (swift-distributed-tracing's and swift-metrics' defaults)")
                    + ". The ratio prices the observability package; the URLSession goals do not apply")
            let observed = TracedNetLayerClient(port: server.port, inMemory: memory)
            contender = { try await observed.books() }
        default:
            let netLayer = NetLayerClient(port: server.port)
            contender = { try await netLayer.books() }
        }
        // For the observability diagnostics, the baseline is NetLayer itself without an observer.
        let plainNetLayer = NetLayerClient(port: server.port)
        var baselineFetch: ThroughputBenchmark.Fetch = { try await baseline.books() }
        if config.throughputContender.hasPrefix("tracing-") {
            baselineFetch = { try await plainNetLayer.books() }
        }
        let clients: [ThroughputBenchmark.Client: ThroughputBenchmark.Fetch] = [
            .urlSession: baselineFetch,
            .netLayer: contender,
        ]
        sequential = try await ThroughputBenchmark.run(
            .sequential(requests: config.sequentialRequests), pairs: config.rounds, slices: config.slices,
            clients: clients,
            expected: BenchServer.books, progress: progress)
        print("threads: \(CPUSnapshot.threadNames().joined(separator: ", "))")
        Report.throughput(sequential!, bodyBytes: server.bodyBytes)
        fflush(nil)
        concurrent = try await ThroughputBenchmark.run(
            .concurrent(requests: config.concurrentRequests, tasks: config.concurrency), pairs: config.rounds,
            slices: config.slices, clients: clients, expected: BenchServer.books, progress: progress)
        Report.throughput(concurrent!, bodyBytes: server.bodyBytes)
    } catch {
        fail("throughput benchmark: \(error)")
    }
}

if config.runCache, let server {
    do {
        try await CacheBenchmark.run(port: server.port, blocks: config.quick ? 20 : 100, progress: progress)
    } catch {
        fail("cache benchmark: \(error)")
    }
}

if config.runLatency, let server {
    do {
        try await LatencyBenchmark.run(port: server.port, blocks: config.latencyBlocks, progress: progress)
    } catch {
        fail("latency diagnostic: \(error)")
    }
    exit(0)
}

var transferFields: [(String, String)] = []
if config.runTransfers, let server {
    fflush(nil)
    do {
        transferFields = try await Transfers.run(config, port: server.port, progress: progress)
    } catch {
        fail("transfer benchmark: \(error)")
    }
}

var ahcFields: [(String, String)] = []
if config.runAHC, let server {
    fflush(nil)
    do {
        ahcFields = try await AHCBenchmark.run(config, server: server, progress: progress)
    } catch {
        fail("AsyncHTTPClient benchmark: \(error)")
    }
}

var eventFields: [(String, String)] = []
if config.runEvents {
    fflush(nil)
    do {
        eventFields = try await EventStreamBenchmark.run(quick: config.quick, progress: progress)
    } catch {
        fail("event stream benchmark: \(error)")
    }
}

var jsonFields: [(String, String)] = []
if config.runJSON {
    fflush(nil)
    do {
        jsonFields = try JSONBenchmark.run(quick: config.quick, progress: progress)
    } catch {
        fail("JSON benchmark: \(error)")
    }
}

print("")
print(
    Report.resultLine(
        prep: prep, sequential: sequential, concurrent: concurrent, concurrency: config.concurrency,
        extra: transferFields + ahcFields + eventFields + jsonFields))
exit(0)
