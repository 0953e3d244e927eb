// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "NetLayer",
    // Duration and ContinuousClock (timeouts, rate limits) need iOS 16 / macOS 13 / tvOS 16 / watchOS 9.
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "NetLayer", targets: ["NetLayer"]),
        // Stub transport and loopback HTTP server for testing code that uses NetLayer.
        .library(name: "NetLayerTesting", targets: ["NetLayerTesting"]),
    ],
    targets: [
        .target(name: "NetLayer"),
        .target(name: "NetLayerTesting", dependencies: ["NetLayer"]),
        // Fixtures/ is read from the source tree by path (#filePath), not bundled.
        .testTarget(
            name: "NetLayerTests", dependencies: ["NetLayer", "NetLayerTesting"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
