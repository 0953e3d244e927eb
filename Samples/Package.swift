// swift-tools-version:6.0
import PackageDescription

// The runnable NetLayer sample: an embedded Hummingbird bookstore API and a NetLayer client that
// walks through it. Run from the repository root with `swift run --package-path Samples bookstore`.
let package = Package(
    name: "Samples",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bookstore", targets: ["bookstore"])
    ],
    dependencies: [
        .package(name: "NetLayer", path: ".."),
        // The second transport: `bookstore --transport async-http-client` runs the story over it.
        .package(name: "NetLayerAsyncHTTPClient", path: "../Transports/AsyncHTTPClient"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        // The service the client talks to: a small JSON API on 127.0.0.1, port chosen by the system.
        .target(
            name: "BookstoreServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The user story: a NetLayer client written the way an app would write it.
        .executableTarget(
            name: "bookstore",
            dependencies: [
                "BookstoreServer",
                .product(name: "NetLayer", package: "NetLayer"),
                .product(name: "NetLayerAsyncHTTPClient", package: "NetLayerAsyncHTTPClient"),
                // Docs/Transports.md's recipe that shares an app's HTTPClient.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // Docs/Integration.md's server recipe: a Hummingbird route that calls NetLayer.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
