import Foundation

extension LoopbackResponse {
    /// The validators a range-serving response sends (``ranged(_:for:contentType:validators:cutAfter:)``,
    /// ``rangedFile(_:for:contentType:validators:cutAfter:)``), which an `If-Range` is compared with.
    public enum RangeValidators: Sendable, Hashable {
        /// Made from the content: for bytes, a strong `ETag` from their length and FNV-1a hash (the
        /// same bytes always get the same tag) and no `Last-Modified`; for a file, a strong `ETag`
        /// from its size and modification time, and its modification time as `Last-Modified`.
        case derived
        /// Exactly these; a `nil` one is not sent.
        /// - Parameters:
        ///   - etag: The `ETag` field value, quotes included: `"\"v1\""`, or `"W/\"v1\""` for a weak
        ///     one (which no `If-Range` matches, as RFC 9110 §13.1.5 says).
        ///   - lastModified: Sent as an IMF-fixdate, to the second.
        case given(etag: String?, lastModified: Date?)
    }

    /// Serves `data` honouring range requests (RFC 9110 §14), for testing resumed and partial
    /// downloads against a real socket.
    ///
    /// - `GET` with one `Range: bytes=a-b`, `bytes=a-` or `bytes=-n` → 206 with those bytes and
    ///   `Content-Range: bytes a-b/<length>` (a `b` past the end counts as the last byte);
    ///   a range starting at or past the end (or `bytes=-0`) → 416 with `Content-Range: bytes */<length>`
    ///   and no body. Several ranges → the whole body with 200 (this server never sends
    ///   `multipart/byteranges`), or 416 when none of them is satisfiable. A `Range` that is not
    ///   `bytes`, or malformed, is ignored (200). Any other method gets the whole body (HEAD the head
    ///   only, with the full `Content-Length`).
    /// - `If-Range` (checked only with a `Range`): an entity-tag must equal the `ETag` sent, both
    ///   strong; an HTTP-date (IMF-fixdate, RFC 850 or asctime) must name the second of the
    ///   `Last-Modified` sent. Otherwise the whole body is sent with 200.
    /// - 200 and 206 carry `Content-Type`, `Accept-Ranges: bytes` and the validators.
    ///
    /// The body is sent as a ``streamedBody`` in pieces of 256 KiB; set its ``StreamedBody/pause``
    /// or ``StreamedBody/progress`` on the result to pace or watch it.
    ///
    /// ```swift
    /// server.route("/files/report.bin") { request in
    ///     .ranged(report, for: request, cutAfter: request.header("Range") == nil ? 40_000 : nil)
    /// }
    /// ```
    /// - Parameters:
    ///   - data: The whole representation.
    ///   - request: The request being answered (its method, `Range` and `If-Range`).
    ///   - contentType: Default `application/octet-stream`.
    ///   - validators: Default ``RangeValidators/derived``.
    ///   - cutAfter: Send only this many bytes of this response's body, then close the connection
    ///     (the head says `Connection: close`; the client sees the connection lost mid-body); negative counts as 0. Default `nil`: send
    ///     everything.
    public static func ranged(
        _ data: Data, for request: RecordedRequest, contentType: String = "application/octet-stream",
        validators: RangeValidators = .derived, cutAfter: Int64? = nil
    ) -> LoopbackResponse {
        let length = Int64(data.count)
        let etag: String?
        let lastModified: Date?
        switch validators {
        case .derived: (etag, lastModified) = (derivedTag(of: data), nil)
        case .given(let given, let date): (etag, lastModified) = (given, date)
        }
        return ranged(
            length: length, for: request, contentType: contentType, etag: etag, lastModified: lastModified,
            cutAfter: cutAfter
        ) { range in
            let start = data.startIndex + Int(range.lowerBound)
            return data.subdata(in: start..<(start + Int(range.upperBound - range.lowerBound)))
        }
    }

    /// Serves the file at `file` honouring range requests, exactly as
    /// ``ranged(_:for:contentType:validators:cutAfter:)`` serves bytes, reading it in pieces while
    /// they are written (the file is never held whole, and is opened per piece, so nothing stays
    /// open). Its size and modification time are read when this is called; a file that shrinks
    /// while it is sent ends the response early with the connection closed.
    /// - Parameters:
    ///   - file: A file URL of a regular file.
    ///   - request: The request being answered (its method, `Range` and `If-Range`).
    ///   - contentType: Default `application/octet-stream`.
    ///   - validators: Default ``RangeValidators/derived``: from the file's size and modification
    ///     time.
    ///   - cutAfter: Send only this many bytes of this response's body, then close the connection (the head says `Connection: close`);
    ///     negative counts as 0. Default `nil`: send everything.
    /// - Returns: The response, or 500 with a `text/plain` reason when `file` is not a readable
    ///   regular file.
    public static func rangedFile(
        _ file: URL, for request: RecordedRequest, contentType: String = "application/octet-stream",
        validators: RangeValidators = .derived, cutAfter: Int64? = nil
    ) -> LoopbackResponse {
        guard file.isFileURL else { return .text("cannot serve \(file): not a file URL", status: 500) }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        } catch {
            return .text("cannot serve \(file.path): \(error.localizedDescription)", status: 500)
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.int64Value, size >= 0
        else { return .text("cannot serve \(file.path): not a regular file", status: 500) }
        let etag: String?
        let lastModified: Date?
        switch validators {
        case .derived:
            let modified = attributes[.modificationDate] as? Date
            let microseconds =
                Int64(exactly: ((modified?.timeIntervalSince1970 ?? 0) * 1e6).rounded(.down)) ?? 0
            etag = "\"\(String(size, radix: 16))-\(String(UInt64(bitPattern: microseconds), radix: 16))\""
            lastModified = modified
        case .given(let given, let date): (etag, lastModified) = (given, date)
        }
        return ranged(
            length: size, for: request, contentType: contentType, etag: etag, lastModified: lastModified,
            cutAfter: cutAfter
        ) { range in readPiece(of: file, range) }
    }

    /// The response for a representation of `length` bytes whose bytes `read` makes.
    private static func ranged(
        length: Int64, for request: RecordedRequest, contentType: String, etag: String?, lastModified: Date?,
        cutAfter: Int64?, read: @escaping @Sendable (Range<Int64>) -> Data
    ) -> LoopbackResponse {
        var response = LoopbackResponse(headers: [("Accept-Ranges", "bytes")])
        let range: Range<Int64>
        switch ByteRanges.answer(to: request, length: length, etag: etag, lastModified: lastModified) {
        case .unsatisfiable:
            response.status = 416
            response.addHeader("Content-Range", "bytes */\(length)")
            return response
        case .whole:
            range = 0..<length
        case .partial(let partial):
            range = partial
            response.status = 206
            response.addHeader(
                "Content-Range", "bytes \(partial.lowerBound)-\(partial.upperBound - 1)/\(length)")
        }
        response.addHeader("Content-Type", contentType)
        if let etag { response.addHeader("ETag", etag) }
        if let lastModified { response.addHeader("Last-Modified", HTTPDate.format(lastModified)) }
        let start = range.lowerBound
        var body = StreamedBody(length: range.upperBound - range.lowerBound) { piece in
            read((start + piece.lowerBound)..<(start + piece.upperBound))
        }
        body.interruptAfter = cutAfter.map { max(0, $0) }
        // A response that will be cut says so (`Connection: close`), so the client cannot take the
        // connection for its next request while the server is closing it (seen as a reset of the
        // resumed request under load).
        if cutAfter != nil { response.closeConnection = true }
        response.streamedBody = body
        return response
    }

    /// The bytes of `file` at `range`; fewer when the file is shorter or cannot be read (the writer
    /// then closes the connection).
    private static func readPiece(of file: URL, _ range: Range<Int64>) -> Data {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return Data() }
        defer { try? handle.close() }
        let count = Int(range.upperBound - range.lowerBound)
        var data = Data()
        do {
            try handle.seek(toOffset: UInt64(range.lowerBound))
            while data.count < count {
                guard let piece = try handle.read(upToCount: count - data.count), !piece.isEmpty else {
                    break
                }
                data.append(piece)
            }
        } catch {
            return data
        }
        return data
    }

    /// `"<length hex>-<FNV-1a 64, 16 hex digits>"`.
    private static func derivedTag(of data: Data) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        data.withUnsafeBytes { bytes in
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return "\"\(String(data.count, radix: 16))-\(String(repeating: "0", count: 16 - hex.count) + hex)\""
    }
}
