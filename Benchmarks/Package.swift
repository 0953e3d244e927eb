// swift-tools-version:6.0
import PackageDescription

// NetLayer's benchmark: request preparation cost, GET+decode throughput and large transfers (peak
// RSS, MB/s) against raw URLSession, measured against an in-process Hummingbird server on 127.0.0.1.
// Run from the repository root, always in release:
//   swift run --package-path Benchmarks -c release netlayer-bench
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "netlayer-bench", targets: ["netlayer-bench"])
    ],
    dependencies: [
        .package(name: "NetLayer", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
    ],
    targets: [
        .executableTarget(
            name: "netlayer-bench",
            dependencies: [
                .product(name: "NetLayer", package: "NetLayer"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
