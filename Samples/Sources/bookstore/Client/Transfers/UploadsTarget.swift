import Foundation
import NetLayer

/// `/uploads/:upload/parts/:part`: a large file sent in parts, as S3's multipart upload does.
final class UploadsTarget: Target, @unchecked Sendable {
    /// Sends `file` in parts of `partSize` bytes, each part streamed from its byte range of the
    /// file, and returns the server's receipts in order.
    func upload(_ file: URL, as upload: String, partSize: Int) async throws -> [UploadedPart] {
        let size = try file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0
        var receipts: [UploadedPart] = []
        for start in stride(from: 0, to: size, by: partSize) {
            let range = Int64(start)..<Int64(min(start + partSize, size))
            let receipt = try await makeExecutor(
                method: .put, pathParts: ["upload": upload, "part": receipts.count + 1],
                body: .file(file, contentType: "application/octet-stream", range: range)
            ).execute(model: UploadedPart.self)
            receipts.append(receipt)
        }
        return receipts
    }
}
