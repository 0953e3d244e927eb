import Foundation
import NetLayerAsyncHTTPClient

/// Peak resident memory of one transfer, each in a fresh process.
///
/// The parent (which runs the server) starts this executable again per transfer kind and client,
/// with `--memory-child` and `key=value` arguments. The child makes its client, sends one empty
/// request (`GET /empty`), reads its baseline (``PeakMemory``), resets the peak, runs the transfer,
/// reads the peak again, and prints one `MEMORY key=value …` line that the parent collects. The
/// server's memory is the parent's, so the child's figures are the client's alone.
enum MemoryBenchmark {
    struct Result {
        let kind: TransferKind
        let client: ThroughputBenchmark.Client
        /// `VmHWM` after the empty request.
        let baselinePeak: Int64
        /// `VmRSS` right after the peak was reset (the reset's level); `nil` when it could not be.
        let resetLevel: Int64?
        /// `VmHWM` after the transfer.
        let peak: Int64
        let bytes: Int64
        let seconds: Double

        /// The growth the goal limits: peak over the reset level, or over the baseline peak when the
        /// peak could not be reset.
        var growth: Int64 { peak - (resetLevel ?? baselinePeak) }
        var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
    }

    /// The HTTP stack under both clients of a child: URLSession (raw, and NetLayer's default
    /// transport), or AsyncHTTPClient (raw, and NetLayer over `AsyncHTTPClientTransport`; the AHC part).
    enum Stack: String {
        case urlSession = "urlsession"
        case asyncHTTPClient = "ahc"
    }

    /// Runs every kind with both clients, one child process each, the baseline (raw) client first.
    /// - Parameter stack: Default URLSession; `.asyncHTTPClient` puts raw AsyncHTTPClient in the
    ///   baseline's slot and NetLayer over AsyncHTTPClient in NetLayer's.
    static func run(
        kinds: [TransferKind], port: Int, files: TransferFiles, baseline: TransferBaseline,
        stack: Stack = .urlSession, connections: Int = 8, progress: (String) -> Void
    ) async throws -> [Result] {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var results: [Result] = []
        for kind in kinds {
            for client in ThroughputBenchmark.Client.allCases {
                let arguments = [
                    "--memory-child", "kind=\(kind.rawValue)", "client=\(client.rawValue)", "port=\(port)",
                    "directory=\(files.directory.path)", "bytes=\(files.bytes)",
                    "source=\(files.source.path)",
                    "multipart=\(files.multipart.path)", "multipart-length=\(files.multipartLength)",
                    "content-type=\(files.multipartContentType)",
                    "baseline=\(baseline.rawValue)", "stack=\(stack.rawValue)", "connections=\(connections)",
                ]
                let output = try await ChildProcess.run(executable, arguments)
                guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("MEMORY ") }) else {
                    throw BenchError(
                        "the \(kind.rawValue)/\(client.rawValue) child printed no MEMORY line: \(output)")
                }
                let fields = keyValues(line.dropFirst("MEMORY ".count).split(separator: " ").map(String.init))
                func int(_ key: String) throws -> Int64 {
                    guard let value = fields[key].flatMap({ Int64($0) }) else {
                        throw BenchError("MEMORY line without \(key): \(line)")
                    }
                    return value
                }
                let result = Result(
                    kind: kind, client: client, baselinePeak: try int("baseline_peak"),
                    resetLevel: fields["reset"] == "1" ? try int("reset_level") : nil, peak: try int("peak"),
                    bytes: try int("bytes"), seconds: Double(fields["seconds"] ?? "") ?? .nan)
                results.append(result)
                progress(
                    "  memory \(kind.rawValue) \(stack == .urlSession ? "" : "\(stack.rawValue) ")\(client.rawValue): +\(Report.fixed(Double(result.growth) / 1e6, 1)) MB "
                        + "over \(Report.fixed(Double(result.resetLevel ?? result.baselinePeak) / 1e6, 1)) MB"
                )
            }
        }
        return results
    }

    static func keyValues(_ arguments: [String]) -> [String: String] {
        var fields: [String: String] = [:]
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "=") else { continue }
            fields[String(argument[..<equals])] = String(argument[argument.index(after: equals)...])
        }
        return fields
    }

    /// The child: one empty request, baseline, reset, the transfer, peak; prints the MEMORY line and
    /// exits.
    static func child(_ arguments: [String]) async -> Never {
        do {
            // The clients are released when `measure` returns, so NetLayer's transport removes its
            // spool directory before the process exits.
            print(try await measure(keyValues(arguments)))
            fflush(nil)
            exit(0)
        } catch {
            fail("memory child \(arguments): \(error)")
        }
    }

    private static func measure(_ fields: [String: String]) async throws -> String {
        guard let kind = fields["kind"].flatMap(TransferKind.init(rawValue:)),
            let client = fields["client"].flatMap(ThroughputBenchmark.Client.init(rawValue:)),
            let port = fields["port"].flatMap({ Int($0) }), let directory = fields["directory"],
            let bytes = fields["bytes"].flatMap({ Int64($0) }), let source = fields["source"],
            let multipart = fields["multipart"], let contentType = fields["content-type"],
            let multipartLength = fields["multipart-length"].flatMap({ Int64($0) })
        else { throw BenchError("bad child arguments \(fields)") }
        let files = TransferFiles(
            directory: URL(fileURLWithPath: directory), bytes: bytes, source: URL(fileURLWithPath: source),
            multipart: URL(fileURLWithPath: multipart), multipartContentType: contentType,
            multipartLength: multipartLength)
        let destination = files.downloadDestination("memory-\(client.rawValue)")
        defer { try? FileManager.default.removeItem(at: destination) }

        let transfer: () async throws -> Int64
        // AsyncHTTPClient's clients are shut down after the peak is read (not timed, not measured).
        var shutdown: () async throws -> Void = {}
        let stack = fields["stack"].flatMap(Stack.init(rawValue:)) ?? .urlSession
        let connections = fields["connections"].flatMap { Int($0) } ?? 8
        switch (client, stack) {
        case (.netLayer, .asyncHTTPClient):
            let transport = AsyncHTTPClientTransport(
                configuration: .init { $0.maximumConnectionsPerHost = connections })
            let netLayer = NetLayerTransferClient(port: port, transport: transport)
            try await netLayer.empty.get()
            transfer = { try await netLayer.transfer(kind, files: files, destination: destination) }
            shutdown = { try await transport.shutdown() }
        case (.urlSession, .asyncHTTPClient):
            let raw = RawAHCTransferClient(port: port, connections: connections)
            try await raw.empty()
            transfer = { try await raw.transfer(kind, files: files, destination: destination) }
            shutdown = { try await raw.shutdown() }
        case (.netLayer, .urlSession):
            let netLayer = NetLayerTransferClient(port: port)
            try await netLayer.empty.get()
            transfer = { try await netLayer.transfer(kind, files: files, destination: destination) }
        case (.urlSession, .urlSession):
            let raw = URLSessionTransferClient(
                port: port, baseline: fields["baseline"].flatMap(TransferBaseline.init(rawValue:)) ?? .plain)
            try await raw.empty()
            transfer = {
                defer { raw.invalidate() }
                return try await raw.transfer(kind, files: files, destination: destination)
            }
        }
        let baseline = try PeakMemory.read()
        let reset = PeakMemory.resetPeak()
        let level = try PeakMemory.read()
        let start = monotonicNanos()
        let moved = try await transfer()
        let seconds = Double(monotonicNanos() - start) / 1e9
        let end = try PeakMemory.read()
        try await shutdown()
        if kind == .download { try TransferFiles.verifyDownload(destination, bytes: bytes) }
        return "MEMORY kind=\(kind.rawValue) client=\(client.rawValue) baseline_peak=\(baseline.peak) "
            + "baseline_rss=\(baseline.current) reset=\(reset ? 1 : 0) reset_level=\(level.current) "
            + "peak=\(end.peak) rss_after=\(end.current) bytes=\(moved) seconds=\(seconds)"
    }
}
