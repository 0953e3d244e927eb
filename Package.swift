// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "NetLayer",
    // Duration and ContinuousClock (timeouts, rate limits) need iOS 16 / macOS 13 / tvOS 16 / watchOS 9.
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "NetLayer", targets: ["NetLayer"])
    ],
    targets: [
        .target(name: "NetLayer"),
        // Fixtures/ is read from the source tree by path (#filePath), not bundled.
        .testTarget(name: "NetLayerTests", dependencies: ["NetLayer"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
