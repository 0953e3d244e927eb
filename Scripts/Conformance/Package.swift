// swift-tools-version:6.0
// Wire-conformance check of NetLayer against a real httpbin (see ../httpbin-conformance.sh).
import Foundation
import PackageDescription

/// SwiftPM names a path dependency after its directory, which depends on where the repository
/// was cloned; derive it instead of hard-coding it.
let libraryDirectory = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL
let libraryIdentity = libraryDirectory.lastPathComponent.lowercased()

let package = Package(
    name: "Conformance",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The library under test, by path.
        .package(path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "httpbin-conformance",
            dependencies: [.product(name: "NetLayer", package: libraryIdentity)]
        )
    ],
    swiftLanguageModes: [.v6]
)
