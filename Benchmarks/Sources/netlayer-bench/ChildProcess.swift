import Foundation

/// Runs this benchmark's child processes (the memory and allocation parts start the executable
/// again, so each measurement has a fresh process of its own).
enum ChildProcess {
    /// Runs `executable` off the concurrency pool (the in-process server's handlers need it) and
    /// returns its standard output.
    /// - Parameter environment: Variables added to this process's environment. Default none.
    /// - Throws: ``BenchError`` when the child exits with a non-zero status, or the launch error.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:])
        async throws -> String
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                if !environment.isEmpty {
                    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
                }
                let pipe = Pipe()
                process.standardOutput = pipe
                do {
                    try process.run()
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    let output = String(decoding: data, as: UTF8.self)
                    if process.terminationStatus != 0 {
                        throw BenchError(
                            "child \(arguments.prefix(3)) exited with \(process.terminationStatus): \(output)"
                        )
                    }
                    continuation.resume(returning: output)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
