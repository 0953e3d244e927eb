import Foundation
import Hummingbird

/// A book's cover:
/// - `POST /v1/books/:id/cover`: a `multipart/form-data` body with a file part `cover` and an
///   optional text field `caption`;
/// - `PUT /v1/books/:id/cover?filename=…`: the image itself as the body (`image/*`).
///
/// Both read the body as it arrives (a multipart body is parsed chunk by chunk) and keep only the
/// file's size and checksum, so a cover of any size up to ``UploadBody/maxBytes`` costs no more
/// memory than one chunk. Answers 201 with what was stored.
struct CoverRoutes {
    let store: BookStore

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("books/:id/cover", use: upload)
        group.put("books/:id/cover", use: replace)
    }

    @Sendable func upload(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try BookRoutes.bookID(context)
        guard let type = request.headers[.contentType], let boundary = Self.boundary(ofContentType: type)
        else {
            throw APIError.unsupportedMediaType("send the cover as multipart/form-data with a boundary")
        }
        guard await store.book(id) != nil else { throw APIError.notFound("no book with id \(id)") }
        let reader = MultipartReader(boundary: boundary)
        _ = try await UploadBody.read(request) { try reader.feed($0) }
        let parts = try reader.finish()
        guard let file = parts.first(where: { $0.name == "cover" }), let filename = file.filename else {
            throw APIError.unprocessable("a file part named \"cover\" is required")
        }
        let caption = parts.first(where: { $0.name == "caption" }).map {
            String(decoding: $0.text, as: UTF8.self)
        }
        return try await store(
            CoverRecord(
                bookId: id, filename: filename, contentType: file.contentType ?? "application/octet-stream",
                bytes: Int(file.checksum.count), checksum: file.checksum.value, caption: caption ?? ""))
    }

    @Sendable func replace(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try BookRoutes.bookID(context)
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("image/") else {
            throw APIError.unsupportedMediaType("send the cover as an image/* body")
        }
        guard await store.book(id) != nil else { throw APIError.notFound("no book with id \(id)") }
        var checksum = Checksum()
        let bytes = try await UploadBody.read(request) { checksum.update($0) }
        let filename = request.uri.queryParameters["filename"].map(String.init) ?? "cover"
        return try await store(
            CoverRecord(
                bookId: id, filename: filename, contentType: type, bytes: Int(bytes),
                checksum: checksum.value, caption: ""))
    }

    private func store(_ cover: CoverRecord) async throws -> Response {
        guard await store.setCover(cover) != nil else {
            throw APIError.notFound("no book with id \(cover.bookId)")
        }
        return try JSONResponse.make(cover, status: .created)
    }

    /// One part of the body, with the fields of its `Content-Disposition` read out. A file part's
    /// bytes are only counted and hashed; a text field keeps up to 4 KiB.
    struct Part {
        var headers: [String: String] = [:]
        var checksum = Checksum()
        var text: [UInt8] = []
        /// Whether the part has a filename (set as the headers arrive, so the body's many small
        /// pieces need not parse them again).
        var isFile = false

        static let maxTextBytes = 4096

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

    /// Parses a `multipart/form-data` body (RFC 7578, RFC 2046 §5.1) fed a chunk at a time: each
    /// part's body is handed on in pieces as it arrives, so no more than one chunk and a delimiter
    /// are held. Used by one request handler only.
    final class MultipartReader {
        private enum State {
            case preamble, afterDelimiter, headers, body, done
        }

        /// `--boundary`, which opens the body.
        private let dashBoundary: [UInt8]
        /// `CRLF--boundary`, which ends every part.
        private let delimiter: [UInt8]
        private var pending: [UInt8] = []
        private var state = State.preamble
        private var parts: [Part] = []
        private var current = Part()

        static let maxHeaderBytes = 16 * 1024

        init(boundary: String) {
            dashBoundary = Array("--\(boundary)".utf8)
            delimiter = Array("\r\n--\(boundary)".utf8)
        }

        func feed(_ chunk: ByteBuffer) throws {
            pending.append(contentsOf: chunk.readableBytesView)
            while try step() {}
        }

        /// The parts; 400 when the body ended before its closing delimiter.
        func finish() throws -> [Part] {
            guard state == .done else { throw APIError.badRequest("the multipart body is incomplete") }
            return parts
        }

        /// Takes one step; `false` when more bytes are needed.
        private func step() throws -> Bool {
            switch state {
            case .preamble:
                if pending.count >= dashBoundary.count, pending.starts(with: dashBoundary) {
                    pending.removeFirst(dashBoundary.count)
                } else if let start = Self.find(delimiter, in: pending) {
                    pending.removeFirst(start + delimiter.count)
                } else {
                    // A preamble, or too few bytes to tell: keep what could begin the delimiter.
                    if pending.count >= delimiter.count {
                        pending.removeFirst(pending.count - delimiter.count)
                    }
                    return false
                }
                state = .afterDelimiter
            case .afterDelimiter:
                guard pending.count >= 2 else { return false }
                if pending.starts(with: Self.dashDash) {
                    state = .done
                } else if pending.starts(with: Self.crlf) {
                    pending.removeFirst(2)
                    state = .headers
                } else {
                    throw Self.malformed
                }
            case .headers:
                let end: Int
                if pending.starts(with: Self.crlf) {
                    end = 0  // a part without header fields
                } else if let found = Self.find(Self.crlf + Self.crlf, in: pending) {
                    end = found + 2
                } else {
                    if pending.count > Self.maxHeaderBytes { throw Self.malformed }
                    return false
                }
                current = Part()
                for line in String(decoding: pending[..<end], as: UTF8.self).split(separator: "\r\n") {
                    guard let colon = line.firstIndex(of: ":") else { throw Self.malformed }
                    current.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                        .trimmingCharacters(in: .whitespaces)
                }
                current.isFile = current.filename != nil
                pending.removeFirst(end + 2)
                state = .body
            case .body:
                if let end = Self.find(delimiter, in: pending) {
                    try deliver(end)
                    pending.removeFirst(delimiter.count)
                    parts.append(current)
                    state = .afterDelimiter
                } else {
                    // Everything but what could begin the delimiter belongs to the part.
                    try deliver(max(0, pending.count - (delimiter.count - 1)))
                    return false
                }
            case .done:
                pending.removeAll()  // the epilogue is ignored
                return false
            }
            return true
        }

        /// Hands the first `count` pending bytes to the current part and drops them.
        private func deliver(_ count: Int) throws {
            guard count > 0 else { return }
            pending.withUnsafeBytes {
                current.checksum.update(UnsafeRawBufferPointer(rebasing: $0[..<count]))
            }
            if !current.isFile {
                guard current.text.count + count <= Part.maxTextBytes else {
                    throw APIError.unprocessable("text fields are limited to \(Part.maxTextBytes) bytes")
                }
                current.text += pending[..<count]
            }
            pending.removeFirst(count)
        }

        private static let crlf: [UInt8] = [13, 10]
        private static let dashDash: [UInt8] = [45, 45]
        private static let malformed = APIError.badRequest("the multipart body is malformed")

        /// Where `needle` first occurs in `haystack`: `memchr` for its first byte, then `memcmp`,
        /// so the search runs at C speed even in a debug build.
        static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard let first = needle.first, haystack.count >= needle.count else { return nil }
            return haystack.withUnsafeBytes { hay in
                needle.withUnsafeBytes { pattern in
                    guard let base = hay.baseAddress else { return nil }
                    var offset = 0
                    let last = hay.count - pattern.count
                    while offset <= last {
                        guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else {
                            return nil
                        }
                        let index = base.distance(to: UnsafeRawPointer(hit))
                        if memcmp(base + index, pattern.baseAddress!, pattern.count) == 0 { return index }
                        offset = index + 1
                    }
                    return nil
                }
            }
        }
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
