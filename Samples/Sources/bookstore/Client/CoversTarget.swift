import Foundation
import NetLayer

/// `/books/:id/cover`: cover images, uploaded as `multipart/form-data`.
final class CoversTarget: Target, @unchecked Sendable {
    /// Uploads `file` as the part `cover` (filename and type taken from the URL) with a `caption`
    /// text field. The file is streamed from disk.
    func upload(bookID: Int, file: URL, caption: String, debug: Bool = false) async throws -> Cover {
        try await makeExecutor(
            method: .post, pathParts: ["id": bookID], params: ["caption": caption],
            files: ["cover": .file(file)]
        )
        .execute(model: Cover.self, debug: debug)
    }
}
