// swift-tools-version:6.0
import PackageDescription

// NetLayer's companion package for observability: OpenTelemetry HTTP client spans through
// swift-distributed-tracing, HTTP client metrics through swift-metrics, and NetLayer's debug output
// through swift-log. NetLayer itself keeps zero dependencies; this package brings them.
// Build and test from the repository root:
//   swift build --package-path Integrations/Observability
//   swift test --package-path Integrations/Observability
let package = Package(
    name: "NetLayerObservability",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "NetLayerObservability", targets: ["NetLayerObservability"])
    ],
    dependencies: [
        .package(name: "NetLayer", path: "../.."),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "NetLayerObservability",
            dependencies: [
                .product(name: "NetLayer", package: "NetLayer"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "NetLayerObservabilityTests",
            dependencies: [
                "NetLayerObservability",
                .product(name: "NetLayer", package: "NetLayer"),
                .product(name: "NetLayerTesting", package: "NetLayer"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
