// swift-tools-version:6.0
import PackageDescription

// NetLayer's benchmark: request preparation cost, GET+decode throughput and large transfers (peak
// RSS, MB/s) against raw URLSession, and over the AsyncHTTPClient transport against raw
// AsyncHTTPClient, measured against an in-process Hummingbird server on 127.0.0.1.
// Run from the repository root, always in release:
//   swift run --package-path Benchmarks -c release netlayer-bench
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "netlayer-bench", targets: ["netlayer-bench"]),
        // Only so that `swift build` builds ordo-one/malloc-interposer's libMallocInterposerSwift.so
        // next to netlayer-bench, which preloads it into the event-stream part's allocation child
        // (see EventStreamAllocations.swift). netlayer-bench itself must not link it: a linked
        // library that defines `malloc` replaces glibc's for the whole process.
        .library(name: "EventStreamMallocCounter", type: .dynamic, targets: ["EventStreamMallocCounter"]),
    ],
    dependencies: [
        .package(name: "NetLayer", path: ".."),
        // Issue 29's price of observation (`BENCH_THROUGHPUT_CONTENDER=tracing-noop|tracing-inmemory`).
        .package(name: "NetLayerObservability", path: "../Integrations/Observability"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        // The event-stream part: mattt/EventSource's parser as the baseline (its `Parser` only, see
        // Plugins/ExtractEventSourceParser), and a malloc counter that only the part's allocation child
        // loads (LD_PRELOAD; see EventStreamAllocations.swift).
        .package(url: "https://github.com/mattt/EventSource", exact: "1.1.1"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        // The AsyncHTTPClient part (BENCH_ONLY=ahc): NetLayer over its AsyncHTTPClient transport
        // against raw AsyncHTTPClient on the same server (see AHCBenchmark.swift).
        .package(name: "NetLayerAsyncHTTPClient", path: "../Transports/AsyncHTTPClient"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "netlayer-bench",
            dependencies: [
                .product(name: "NetLayer", package: "NetLayer"),
                .product(name: "NetLayerObservability", package: "NetLayerObservability"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NetLayerAsyncHTTPClient", package: "NetLayerAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "EventSourceParser",
            ]
        ),
        .target(
            name: "EventStreamMallocCounter",
            dependencies: [.product(name: "MallocInterposerSwift", package: "malloc-interposer")]
        ),
        .target(
            name: "EventSourceParser",
            dependencies: [
                // Not linked on Linux, where the EventSource library does not build: the plugin only
                // reads its checkout. Declared so that SwiftPM counts the package as used (otherwise
                // it warns "dependency 'eventsource' is not used by any target"); on macOS, where the
                // library builds, it is linked and unused.
                .product(name: "EventSource", package: "EventSource", condition: .when(platforms: [.macOS]))
            ],
            plugins: ["ExtractEventSourceParser"]
        ),
        .plugin(name: "ExtractEventSourceParser", capability: .buildTool()),
    ],
    swiftLanguageModes: [.v6]
)
