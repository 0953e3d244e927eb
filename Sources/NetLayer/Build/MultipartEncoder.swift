import Foundation

/// Writes `multipart/form-data` bodies (RFC 7578): fields in key order, then files in key order.
struct MultipartEncoder: Sendable {
    /// The boundary, random per request.
    let boundary: String

    init(boundary: String = MultipartEncoder.randomBoundary()) {
        self.boundary = boundary
    }

    /// The `Content-Type` header value announcing this boundary.
    var contentType: String { "\(MediaType.multipart); boundary=\(boundary)" }

    /// A boundary of 32 random hex digits after a fixed prefix; it cannot occur in the text fields we
    /// write with any practical probability.
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = String(generator.next() as UInt64, radix: 16)
        let low = String(generator.next() as UInt64, radix: 16)
        return "NetLayer-" + String(repeating: "0", count: 16 - high.count) + high
            + String(repeating: "0", count: 16 - low.count) + low
    }

    /// The whole body: text in memory, file parts as file segments read when it is sent.
    /// - Throws: ``NetLayerError`` `.encodingFailed` when a file is not a readable regular file,
    ///   `.invalidHeader` for a part's Content-Type with control characters.
    func body(fields: [(name: String, value: String)], files: [String: FilePart]) throws(NetLayerError)
        -> RequestBody
    {
        var segments: [RequestBody.Segment] = []
        var text = Data()
        for field in fields {
            text.append(
                contentsOf:
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(field.name))\"\r\n\r\n"
                    .utf8)
            text.append(contentsOf: field.value.utf8)
            text.append(contentsOf: "\r\n".utf8)
        }
        for name in FormEncoder.sortedKeys(files) {
            guard let file = files[name] else { continue }
            // The part's Content-Type goes into a header block: the same rules as any header value.
            _ = try HeaderFields.validatedValue(
                file.contentType, name: "Content-Type of file part \"\(name)\"")
            text.append(
                contentsOf:
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(name))\"; filename=\"\(Self.escape(file.filename))\"\r\nContent-Type: \(file.contentType)\r\n\r\n"
                    .utf8)
            switch file.source {
            case .data(let data):
                text.append(data)
            case .file(let url):
                let size = try FileRead.regularFileSize(url, what: "file part \"\(name)\"")
                segments.append(.bytes(text))
                segments.append(.file(url, range: 0..<size))
                text = Data()
            }
            text.append(contentsOf: "\r\n".utf8)
        }
        text.append(contentsOf: "--\(boundary)--\r\n".utf8)
        segments.append(.bytes(text))
        return try RequestBody(segments: segments)
    }

    /// Escapes a field name or filename for its quoted-string: `"`, CR and LF become `%22`, `%0D`,
    /// `%0A` (RFC 7578 §4.2, as browsers do), and a backslash is doubled, as urllib3 and Go's
    /// `mime/multipart` do, because werkzeug, Go and Python's `email` read a quoted backslash as an
    /// escape. A literal `%22` in a name reads the same as an escaped quote to such parsers. The
    /// other control characters (NUL to 0x1F but HTAB, and DEL) are percent-encoded the same way,
    /// so no raw control byte reaches a part's header block.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: needsEscape) else { return text }
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": output += "\\\\"
            case _ where scalar.isASCII && needsEscape(UInt8(scalar.value)):
                let byte = UInt8(scalar.value)
                output += "%"
                output.unicodeScalars.append(Unicode.Scalar(PercentEncoding.hexDigit(byte >> 4)))
                output.unicodeScalars.append(Unicode.Scalar(PercentEncoding.hexDigit(byte & 0x0F)))
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// `"`, a backslash, or a control character other than HTAB.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == 0x22 || byte == 0x5C || (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
