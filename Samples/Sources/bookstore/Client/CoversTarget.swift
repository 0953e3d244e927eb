import Foundation
import NetLayer

/// `/books/:id/cover`: cover images, uploaded as `multipart/form-data` or as the body itself.
final class CoversTarget: Target, @unchecked Sendable {
    /// Uploads `file` as the part `cover` (filename and type taken from the URL) with a `caption`
    /// text field. The file is streamed from disk.
    func upload(bookID: Int, file: URL, caption: String, debug: Bool = false) async throws -> Cover {
        let call = uploadCall(bookID: bookID, file: file, caption: caption)
        return try await call.execute(model: Cover.self, debug: debug)
    }

    /// The same upload as a call not yet sent, so the caller can attach progress to it.
    func uploadCall(bookID: Int, file: URL, caption: String) -> Executor {
        makeExecutor(
            method: .post, pathParts: ["id": bookID], params: ["caption": caption],
            files: ["cover": .file(file)])
    }

    /// Replaces the cover with `file` sent as the body itself: streamed from disk with its exact
    /// `Content-Length`, typed from its extension. With a body, params go to the query.
    func replace(bookID: Int, file: URL) async throws -> Cover {
        try await makeExecutor(
            method: .put, pathParts: ["id": bookID], params: ["filename": file.lastPathComponent],
            body: .file(file)
        ).execute(model: Cover.self)
    }
}
