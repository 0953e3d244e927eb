import BookstoreServer
import Foundation
import NetLayer

/// `/export`: the inventory as CSV (a few MB), with a strong `ETag` and byte ranges.
final class ExportTarget: Target, @unchecked Sendable {
    /// Downloads the export into `file`, reporting progress to `progress` on a transport thread.
    /// With `resumable`, an interrupted download keeps its partial file for the next call.
    func download(
        to file: URL, resumable: Bool = false,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
    ) async throws -> Download {
        try await makeExecutor(headers: ["Accept": "text/csv"])
            .progress(progress)
            .download(to: file, resumable: resumable)
    }

    /// Downloads the export, trying again after a network failure or a timeout; every new attempt
    /// continues from the bytes already on disk.
    func downloadRetrying(to file: URL, attempts: Int = 3) async throws -> Download {
        var attempt = 1
        while true {
            do {
                return try await download(to: file, resumable: true)
            } catch let error as NetLayerError
                where (error.code == .transport || error.code == .timedOut) && attempt < attempts
            {
                try await Task.sleep(for: .seconds(attempt))
                attempt += 1
            }
        }
    }

    /// Hashes the export as it streams by; nothing is stored.
    func checksum() async throws -> Checksum {
        var checksum = Checksum()
        for try await chunk in try await makeExecutor(headers: ["Accept": "text/csv"]).stream() {
            checksum.update(chunk)
        }
        return checksum
    }

    /// The header and the first `count` rows. Leaving the loop cancels the transfer: the rest of
    /// the export is never sent.
    func firstRows(_ count: Int) async throws -> [String] {
        var rows: [String] = []
        for try await line in try await makeExecutor(headers: ["Accept": "text/csv"]).lines() {
            rows.append(line)
            if rows.count > count { break }
        }
        return rows
    }
}
