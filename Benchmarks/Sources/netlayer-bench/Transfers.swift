import Foundation

/// The transfer part (issue 6): makes the files, measures peak RSS per transfer in fresh processes,
/// then throughput in ABBA pairs, prints both tables, removes the files.
enum Transfers {
    /// Runs the part against `port` and returns its `RESULT` fields.
    static func run(_ config: Config, port: Int, progress: @escaping (String) -> Void) async throws -> [(
        String, String
    )] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netlayer-bench-\(UUID().uuidString.prefix(8))", isDirectory: true)
        let netLayer = NetLayerTransferClient(port: port)
        let raw = URLSessionTransferClient(port: port, baseline: config.transferBaseline)
        defer {
            raw.invalidate()
            try? FileManager.default.removeItem(at: directory)
        }
        progress("transfers: writing \(config.transferBytes)-byte files to \(directory.path)")
        let files = try TransferFiles.make(
            bytes: config.transferBytes, in: directory, multipartBody: netLayer.multipartBody)
        let warmUp = try TransferFiles.make(
            bytes: min(config.transferBytes, 4 << 20), in: directory, multipartBody: netLayer.multipartBody)
        print("")
        print(
            "transfers: source \(files.bytes) bytes, multipart body \(files.multipartLength) bytes "
                + "(\(files.multipartLength - files.bytes) of head and tail), in \(directory.path); "
                + "writing the multipart body (1 MiB copies) took \(Report.fixed(files.multipartCopySeconds, 2)) s"
        )
        print(
            config.transferBaseline == .delegate
                ? "URLSession baseline: DIAGNOSTIC (BENCH_TRANSFER_BASELINE=delegate): uploads as delegate-driven "
                    + "tasks on a session with a delegate, downloads end with fsync; the goals do not apply"
                : config.transferBaseline == .downloadtask
                    ? "URLSession baseline: DIAGNOSTIC (BENCH_TRANSFER_BASELINE=downloadtask): downloads as "
                        + "downloadTask(with:) on a session with a delegate; the goals do not apply"
                    : "URLSession baseline: upload(for:fromFile:) on a plain session; download by a delegate "
                        + "writing each chunk to a FileHandle (no fsync)")
        fflush(nil)

        var memory: [MemoryBenchmark.Result] = []
        if config.transferMemory {
            memory = try await MemoryBenchmark.run(
                kinds: config.transferKinds, port: port, files: files,
                baseline: config.transferBaseline, progress: progress)
            Report.memory(memory, bytes: files.bytes)
            fflush(nil)
        }

        var throughput: [TransferBenchmark.Output] = []
        if config.transferThroughput {
            let clients: [ThroughputBenchmark.Client: TransferBenchmark.Transfer] = [
                .urlSession: { kind, files, destination in
                    try await raw.transfer(kind, files: files, destination: destination)
                },
                .netLayer: { kind, files, destination in
                    try await netLayer.transfer(kind, files: files, destination: destination)
                },
            ]
            for kind in config.transferKinds {
                throughput.append(
                    try await TransferBenchmark.run(
                        kind: kind, pairs: config.transferRounds, files: files, warmUp: warmUp,
                        clients: clients,
                        prefault: config.transferPrefault ? config.transferBytes + (64 << 20) : nil,
                        progress: progress))
                if kind == .download, raw.lastDownloadChunks > 0 {
                    print(
                        "URLSession delivered the last download in \(raw.lastDownloadChunks) chunks of "
                            + "\(files.bytes / Int64(raw.lastDownloadChunks)) bytes on average")
                }
            }
            Report.transfers(throughput, bytes: files.bytes)
        }
        return Report.transferFields(memory: memory, throughput: throughput)
    }
}
