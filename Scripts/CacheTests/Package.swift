// swift-tools-version:6.0
// Runs the public HTTP cache test suite (http-tests/cache-tests) through NetLayer and writes the
// suite's results JSON; see ../cache-tests.sh, which starts the suite's server and scores the run.
import Foundation
import PackageDescription

/// SwiftPM names a path dependency after its directory, which depends on where the repository
/// was cloned; derive it instead of hard-coding it.
let libraryDirectory = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL
let libraryIdentity = libraryDirectory.lastPathComponent.lowercased()

let package = Package(
    name: "CacheTests",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "cache-tests-runner", targets: ["cache-tests-runner"])
    ],
    dependencies: [
        // The library under test, by path.
        .package(path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "cache-tests-runner",
            dependencies: [.product(name: "NetLayer", package: libraryIdentity)]
        )
    ],
    swiftLanguageModes: [.v6]
)
