import Foundation

/// What the service sends and receives. Keys are snake_case on the wire.
struct BookRecord: Codable, Sendable {
    var id: Int
    var title: String
    var author: String
    var year: Int?
    var cover: CoverRecord?
}

/// The body of `POST /v1/books`. Everything optional so a missing title is a 422, not a 400.
struct NewBookPayload: Decodable, Sendable {
    var title: String?
    var author: String?
    var year: Int?
}

/// One page of `GET /v1/books`.
struct BookPage: Encodable, Sendable {
    var items: [BookRecord]
    var page: Int
    var perPage: Int
    var total: Int
    var totalPages: Int
}

/// What `POST` or `PUT /v1/books/:id/cover` stored: the file's size and checksum (the bytes
/// themselves are not kept).
struct CoverRecord: Codable, Sendable {
    var bookId: Int
    var filename: String
    var contentType: String
    var bytes: Int
    /// ``Checksum`` of the file's bytes as received.
    var checksum: String
    var caption: String
}

/// The answer to `PUT /v1/uploads/:upload/parts/:part`.
struct PartReceipt: Codable, Sendable {
    var upload: String
    var part: Int
    var bytes: Int64
    var checksum: String
}

/// The one error shape every failure uses: `{"error": "not_found", "message": "…"}`.
struct ErrorBody: Encodable, Sendable {
    var error: String
    var message: String
}

enum WireJSON {
    /// snake_case keys, sorted so responses are stable.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()
}
