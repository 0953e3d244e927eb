import Foundation

// `Book` itself is declared in QuickStart.swift (the README snippet) and reused here.

/// One page of `GET /books`. The server writes snake_case keys (`per_page`); the resource's decoder
/// converts them.
struct Page<Item: Decodable & Sendable>: Decodable, Sendable {
    let items: [Item]
    let page: Int
    let perPage: Int
    let total: Int
    let totalPages: Int
}

/// The body of `POST /books`.
struct NewBook: Encodable, Sendable {
    let title: String
    let author: String
    let year: Int?
}

/// What the server stored for an uploaded cover: the file's size and checksum as received.
struct Cover: Decodable, Sendable {
    let bookId: Int
    let filename: String
    let contentType: String
    let bytes: Int
    let checksum: String
    let caption: String
}

/// The server's receipt for one part of a file sent in parts.
struct UploadedPart: Decodable, Sendable {
    let upload: String
    let part: Int
    let bytes: Int64
    let checksum: String
}

/// The body of every error response: `{"error": "not_found", "message": "no book with id 13"}`.
struct APIErrorBody: Decodable, Sendable {
    let error: String
    let message: String
}
