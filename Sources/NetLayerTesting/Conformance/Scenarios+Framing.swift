import Foundation
import NetLayer

extension TransportConformance {
    /// Request framing: a body whose length is known goes with exactly that `Content-Length`,
    /// never chunked, whether it is bytes, a file, a byte range of a file or segments.
    static let framingScenarios: [Entry] = [
        Entry(
            "framing.content-length-bytes",
            "A body of bytes in memory arrives whole, with its exact Content-Length and no Transfer-Encoding."
        ) { probe in
            let bytes = pattern(count: 100_000)
            try await probe.expectUpload(RequestBody(bytes), arrivingAs: bytes)
        },
        Entry(
            "framing.content-length-file",
            "A whole file (larger than 256 KiB) arrives whole, with its exact Content-Length and no Transfer-Encoding."
        ) { probe in
            let bytes = pattern(count: 300_000)
            try await withTemporaryFile(bytes) { file in
                try await probe.expectUpload(try RequestBody.file(file), arrivingAs: bytes)
            }
        },
        Entry(
            "framing.content-length-file-range",
            "A byte range of a file arrives exactly, with the range's length as Content-Length."
        ) { probe in
            let bytes = pattern(count: 300_000)
            try await withTemporaryFile(bytes) { file in
                let range: Range<Int64> = 1_000..<290_001
                try await probe.expectUpload(
                    try RequestBody.file(file, range: range),
                    arrivingAs: bytes.subdata(in: Int(range.lowerBound)..<Int(range.upperBound)))
            }
        },
        Entry(
            "framing.content-length-multipart",
            "A multipart body made of byte segments and a file part arrives byte for byte, with its total length as Content-Length."
        ) { probe in
            let bytes = pattern(count: 280_000)
            try await withTemporaryFile(bytes) { file in
                let boundary = "conformance-7d1c"
                let head = Data(
                    ("--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n"
                        + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"part.bin\"\r\n"
                        + "Content-Type: application/octet-stream\r\n\r\n").utf8)
                let tail = Data("\r\n--\(boundary)--\r\n".utf8)
                let range: Range<Int64> = 7..<270_007
                let body = try RequestBody(segments: [.bytes(head), .file(file, range: range), .bytes(tail)])
                var fields = HeaderFields()
                try fields.setValue("multipart/form-data; boundary=\(boundary)", for: "Content-Type")
                try await probe.expectUpload(
                    body,
                    arrivingAs: head + bytes.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
                        + tail,
                    headers: fields)
            }
        },
    ]

    /// `count` bytes of a repeating pattern that is not all one value.
    static func pattern(count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
    }

    /// Writes `bytes` to a new temporary file, runs `body` with it and removes it.
    static func withTemporaryFile(_ bytes: Data, _ body: (URL) async throws -> Void) async throws {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("netlayer-conformance-\(UUID().uuidString).bin")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await body(file)
    }
}

extension Probe {
    /// POSTs `body` and checks that the server got `expected` framed by an exact `Content-Length`.
    func expectUpload(_ body: RequestBody, arrivingAs expected: Data, headers: HeaderFields = HeaderFields())
        async throws
    {
        server.route("/upload") { request in .text("\(request.body.count)") }
        let (head, answer) = try await fetch(
            request(.post, "/upload", headers: headers, body: body), expecting: "the upload to be answered")
        try expect(head.statusCode == 200, "status 200 from the server", got: "status \(head.statusCode)")
        guard let received = server.requests(path: "/upload").first else {
            throw failure(expected: "the server to receive the request", actual: "no request arrived")
        }
        try expect(
            received.header("Transfer-Encoding") == nil, "no Transfer-Encoding for a body of known length",
            got: "Transfer-Encoding: \(received.header("Transfer-Encoding") ?? "")")
        try expect(
            received.headerValues("Content-Length") == ["\(expected.count)"],
            "one Content-Length: \(expected.count)",
            got: "Content-Length \(received.headerValues("Content-Length"))")
        try expect(
            received.body == expected, "the server to receive the \(expected.count) bytes sent",
            got: "\(received.body.count) bytes\(received.body.count == expected.count ? " that differ" : "")")
        try expect(
            String(decoding: answer, as: UTF8.self) == "\(expected.count)",
            "the answer \"\(expected.count)\"",
            got: Self.quoted(answer))
    }
}
