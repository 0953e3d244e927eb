// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "NetLayer",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "NetLayer", targets: ["NetLayer"])
    ],
    targets: [
        .target(name: "NetLayer"),
        .testTarget(name: "NetLayerTests", dependencies: ["NetLayer"]),
    ],
    swiftLanguageModes: [.v6]
)
