import Foundation

// `Process` exists on macOS and Linux only (not on iOS, tvOS, watchOS or visionOS): every test that
// starts a child process sits under the same condition.
#if os(macOS) || os(Linux)
    /// Runs `command` with `/bin/bash -c` and returns its exit status, without blocking a thread.
    func runBash(_ command: String) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
    }
#endif
