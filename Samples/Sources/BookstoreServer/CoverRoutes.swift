import Foundation
import Hummingbird
import MultipartKit

/// `POST /v1/books/:id/cover`: a `multipart/form-data` body with a file part `cover` and an optional
/// text field `caption`. Answers 201 with what was stored.
struct CoverRoutes {
    let store: BookStore

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("books/:id/cover", use: upload)
    }

    @Sendable func upload(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try BookRoutes.bookID(context)
        guard let type = request.headers[.contentType], let boundary = Self.boundary(ofContentType: type)
        else {
            throw APIError.unsupportedMediaType("send the cover as multipart/form-data with a boundary")
        }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let parts = try Self.parse(body, boundary: boundary)
        guard let file = parts.first(where: { $0.name == "cover" }), let filename = file.filename else {
            throw APIError.unprocessable("a file part named \"cover\" is required")
        }
        let caption = parts.first(where: { $0.name == "caption" }).map {
            String(decoding: $0.body, as: UTF8.self)
        }
        let cover = CoverRecord(
            bookId: id, filename: filename, contentType: file.contentType ?? "application/octet-stream",
            bytes: file.body.count, caption: caption ?? "")
        guard await store.setCover(cover) != nil else { throw APIError.notFound("no book with id \(id)") }
        return try JSONResponse.make(cover, status: .created)
    }

    /// One part of the body, with the fields of its `Content-Disposition` read out.
    struct Part {
        var headers: [String: String] = [:]
        var body: [UInt8] = []

        var name: String? { dispositionParameter("name") }
        var filename: String? { dispositionParameter("filename") }
        var contentType: String? { headers["content-type"] }

        /// `form-data; name="cover"; filename="cover.png"` → the unquoted value, with the
        /// `%22` / `%0D` / `%0A` escapes of RFC 7578 undone.
        private func dispositionParameter(_ key: String) -> String? {
            guard let disposition = headers["content-disposition"] else { return nil }
            for item in disposition.split(separator: ";") {
                let pair = item.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == key else {
                    continue
                }
                var value = pair[1].trimmingCharacters(in: .whitespaces)
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                return value.replacingOccurrences(of: "%22", with: "\"")
                    .replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n")
            }
            return nil
        }
    }

    static func parse(_ body: ByteBuffer, boundary: String) throws -> [Part] {
        let parser = MultipartParser(boundary: boundary)
        var parts: [Part] = []
        var current = Part()
        parser.onHeader = { name, value in current.headers[name.lowercased()] = value }
        parser.onBody = { chunk in current.body += chunk.readableBytesView }
        parser.onPartComplete = {
            parts.append(current)
            current = Part()
        }
        do {
            try parser.execute(body)
        } catch {
            throw APIError.badRequest("the multipart body is malformed")
        }
        return parts
    }

    /// The `boundary` parameter of a `multipart/form-data` Content-Type.
    static func boundary(ofContentType type: String) -> String? {
        let items = type.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard items.first?.lowercased() == "multipart/form-data" else { return nil }
        for item in items.dropFirst() where item.lowercased().hasPrefix("boundary=") {
            var value = String(item.dropFirst("boundary=".count))
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty ? nil : value
        }
        return nil
    }
}
