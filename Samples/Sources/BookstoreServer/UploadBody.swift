import Hummingbird

/// Reads request bodies a chunk at a time, as they arrive, so an upload of any size never sits in
/// the server's memory whole (Hummingbird's `collect(upTo:)` would hold it, and refuses more than
/// `maxUploadSize`, 2 MiB by default).
enum UploadBody {
    /// The largest upload the service accepts: 32 MiB.
    static let maxBytes: Int64 = 32 << 20

    /// Hands each chunk of the body to `consume` and returns the byte count; 413 past `maxBytes`,
    /// refused from `Content-Length` before anything is read when the client announced one.
    static func read(_ request: Request, _ consume: (ByteBuffer) throws -> Void) async throws -> Int64 {
        if let announced = request.headers[.contentLength].flatMap({ Int64($0) }), announced > maxBytes {
            throw tooLarge
        }
        var total: Int64 = 0
        for try await chunk in request.body {
            total += Int64(chunk.readableBytes)
            if total > maxBytes { throw tooLarge }
            try consume(chunk)
        }
        return total
    }

    static var tooLarge: APIError {
        APIError(
            status: .contentTooLarge, code: "content_too_large",
            message: "uploads are limited to \(maxBytes >> 20) MiB")
    }
}

/// `PUT /v1/uploads/:upload/parts/:part`: one part of a file sent in pieces (as S3's UploadPart).
/// The raw body is read as it arrives; the answer is its size and checksum (also as the `ETag`),
/// so the client can check each part before it moves on.
struct UploadRoutes {
    func register(on group: RouterGroup<BasicRequestContext>) {
        group.put("uploads/:upload/parts/:part", use: part)
    }

    @Sendable func part(_ request: Request, context: BasicRequestContext) async throws -> Response {
        guard let upload = context.parameters.get("upload"), !upload.isEmpty,
            let number = context.parameters.get("part", as: Int.self), (1...10_000).contains(number)
        else {
            throw APIError.badRequest("the part number must be an integer in 1...10000")
        }
        var checksum = Checksum()
        let bytes = try await UploadBody.read(request) { checksum.update($0) }
        var response = try JSONResponse.make(
            PartReceipt(upload: upload, part: number, bytes: bytes, checksum: checksum.value))
        response.headers[.eTag] = "\"\(checksum.value)\""
        return response
    }
}
