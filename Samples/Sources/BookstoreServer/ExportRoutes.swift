import Foundation
import Hummingbird

/// One export response, as the server saw it end.
public struct ExportTransfer: Sendable {
    /// 200, 206 or 416.
    public var status: Int
    /// The bytes of the export this response covered.
    public var range: Range<Int64>
    /// The bytes written to the connection.
    public var sent: Int64
    /// Whether every byte was written; `false` when the client went away first.
    public var completed: Bool
}

/// Bulk reads:
/// - `GET /v1/export`: the inventory as CSV, one row per copy in the warehouse (about 3.2 MB),
///   generated on the fly as it is sent, a little at a time. A strong `ETag` (the content's
///   ``Checksum``) and single byte ranges (`Range`, `If-Range`, 206, 416) make it resumable.
/// - `GET /v1/feed`: every book as NDJSON, one JSON object per line, sent line by line.
struct ExportRoutes {
    let store: BookStore
    let state: ExportState

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.get("export", use: export)
        group.get("feed", use: feed)
    }

    @Sendable func export(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let export = await state.export(of: store)
        let etag = "\"\(export.checksum)\""
        var headers: HTTPFields = [
            .contentType: "text/csv; charset=utf-8", .eTag: etag, .acceptRanges: "bytes",
            .contentDisposition: "attachment; filename=\"inventory.csv\"",
        ]
        var requestedStatus = HTTPResponse.Status.ok
        var requestedRange: Range<Int64> = 0..<export.length
        // A Range counts only when If-Range, if sent, names this very content.
        if let header = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            switch ByteRange.parse(header, length: export.length) {
            case .satisfiable(let requested):
                requestedStatus = .partialContent
                requestedRange = requested
                headers[.contentRange] =
                    "bytes \(requested.lowerBound)-\(requested.upperBound - 1)/\(export.length)"
            case .unsatisfiable:
                await state.record(ExportTransfer(status: 416, range: 0..<0, sent: 0, completed: true))
                throw APIError(
                    status: .rangeNotSatisfiable, code: "range_not_satisfiable",
                    message: "the export has \(export.length) bytes",
                    headers: [.contentRange: "bytes */\(export.length)"])
            case .ignored:
                break
            }
        }
        let (state, status, range) = (self.state, requestedStatus, requestedRange)
        let body = ResponseBody(contentLength: Int(range.count)) { writer in
            var sent: Int64 = 0
            do {
                try await export.write(range) { chunk in
                    try await writer.write(chunk)
                    sent += Int64(chunk.readableBytes)
                    // Generating the export takes a moment per chunk.
                    try await Task.sleep(for: .milliseconds(3))
                }
                try await writer.finish(nil)
                await state.record(
                    ExportTransfer(status: status.code, range: range, sent: sent, completed: true))
            } catch {
                await state.record(
                    ExportTransfer(status: status.code, range: range, sent: sent, completed: false))
                throw error
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    @Sendable func feed(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let books = await store.snapshot().books
        let body = ResponseBody { writer in
            for book in books {
                var line = ByteBuffer(bytes: try WireJSON.encoder.encode(book))
                line.writeString("\n")
                try await writer.write(line)
                try await Task.sleep(for: .milliseconds(5))  // a slow database cursor
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: body)
    }
}

/// The export's size and checksum for the current books (made once per revision), and what each
/// export response did.
actor ExportState {
    private var cached: (revision: Int, export: InventoryExport)?
    private(set) var transfers: [ExportTransfer] = []

    func export(of store: BookStore) async -> InventoryExport {
        let (revision, books) = await store.snapshot()
        if let cached, cached.revision == revision { return cached.export }
        let export = InventoryExport(books: books)
        cached = (revision, export)
        return export
    }

    func record(_ transfer: ExportTransfer) {
        transfers.append(transfer)
    }
}

/// The inventory CSV: a header, then one row per copy, the books taking turns.
struct InventoryExport: Sendable {
    static let copies = 60_000
    static let chunkSize = 64 * 1024

    /// `id,"title","author",year` of each book, made once.
    private let bookColumns: [String]
    let length: Int64
    let checksum: String

    init(books: [BookRecord]) {
        bookColumns = books.map { book in
            "\(book.id),\(Self.quoted(book.title)),\(Self.quoted(book.author)),\(book.year.map(String.init) ?? "")"
        }
        var checksum = Checksum()
        for index in 0...(bookColumns.isEmpty ? 0 : Self.copies) {
            var row = Self.row(index, bookColumns)
            row.withUTF8 { checksum.update(UnsafeRawBufferPointer($0)) }
        }
        length = checksum.count
        self.checksum = checksum.value
    }

    /// Row 0 is the header; CRLF line ends, as RFC 4180 has them.
    private static func row(_ index: Int, _ books: [String]) -> String {
        if index == 0 { return "copy,book_id,title,author,year,shelf\r\n" }
        return "\(index),\(books[(index - 1) % books.count]),\(Self.aisles[index % 26])-\(index % 97)\r\n"
    }

    private static let aisles = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".map(String.init)

    private static func quoted(_ field: String) -> String {
        "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Generates the bytes of `range` and hands them to `send` in chunks of about 64 KiB.
    func write(_ range: Range<Int64>, _ send: (ByteBuffer) async throws -> Void) async throws {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Self.chunkSize + 256)
        var position: Int64 = 0
        for index in 0...(bookColumns.isEmpty ? 0 : Self.copies) {
            if position >= range.upperBound { break }
            var row = Self.row(index, bookColumns)
            let rowRange = position..<(position + Int64(row.utf8.count))
            position = rowRange.upperBound
            let wanted = rowRange.clamped(to: range)
            if wanted.isEmpty { continue }
            row.withUTF8 { bytes in
                let from = Int(wanted.lowerBound - rowRange.lowerBound)
                let to = Int(wanted.upperBound - rowRange.lowerBound)
                buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[from..<to])))
            }
            if buffer.readableBytes >= Self.chunkSize {
                try await send(buffer)
                buffer.clear()
            }
        }
        if buffer.readableBytes > 0 { try await send(buffer) }
    }
}

/// A single `Range: bytes=…` (RFC 9110 §14.1.2). Several ranges are not supported: the whole
/// content is sent instead, as the RFC allows.
enum ByteRange {
    case satisfiable(Range<Int64>)
    case unsatisfiable
    case ignored

    static func parse(_ header: String, length: Int64) -> ByteRange {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return .ignored }
        let spec = value.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard spec.count == 2 else { return .ignored }
        let first = spec[0].trimmingCharacters(in: .whitespaces)
        let last = spec[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {  // bytes=-500: the last 500 bytes
            guard let suffix = Int64(last), suffix >= 0 else { return .ignored }
            if suffix == 0 || length == 0 { return .unsatisfiable }
            return .satisfiable(max(0, length - suffix)..<length)
        }
        guard let start = Int64(first), start >= 0 else { return .ignored }
        if start >= length { return .unsatisfiable }
        if last.isEmpty { return .satisfiable(start..<length) }
        guard let end = Int64(last), end >= start else { return .ignored }
        return .satisfiable(start..<min(end + 1, length))
    }
}
