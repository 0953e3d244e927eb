import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NetLayer

/// AsyncHTTPClient's response as NetLayer's.
enum ResponseConversion {
    /// The head of `response`: every field as received, repeated ones kept in order.
    static func head(_ response: HTTPClientResponse, url: URL) -> ResponseHead {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(response.headers.count)
        for (name, value) in response.headers { fields.append((name, value)) }
        var head = ResponseHead(
            statusCode: Int(response.status.code), headerFields: HeaderFields(received: fields), url: url)
        head.httpVersion = version(response.version)
        return head
    }

    /// The response with its body read from the client as the consumer reads it.
    static func response(
        _ response: HTTPClientResponse, request: TransportRequest, progress: ProgressReporter?
    ) -> TransportResponse {
        let head = head(response, url: request.url)
        let expected = expectedLength(response.headers, method: request.method, status: head.statusCode)
        let body = ResponseBody(
            chunks: ClientBodyChunks(
                body: response.body, expected: expected, url: request.url, progress: progress),
            expectedLength: expected)
        return TransportResponse(head: head, body: body)
    }

    /// The announced length, when the body arrives as announced: not for a body the client
    /// decodes (its `Content-Length` counts the encoded bytes), and zero where none may come.
    static func expectedLength(_ headers: HTTPHeaders, method: NetLayer.HTTPMethod, status: Int) -> Int64? {
        if method == .head || status == 204 || status == 304 || (100..<200).contains(status) { return 0 }
        let encoding = headers.first(name: "Content-Encoding")?.lowercased() ?? "identity"
        guard encoding == "identity", let text = headers.first(name: "Content-Length"),
            let length = Int64(text.trimmingCharacters(in: .whitespaces)), length >= 0
        else { return nil }
        return length
    }

    /// OpenTelemetry's `network.protocol.version` spelling.
    static func version(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 0): "1.0"
        case (1, 1): "1.1"
        case (2, _): "2"
        case (3, _): "3"
        default: "\(version.major).\(version.minor)"
        }
    }
}

/// The client's body chunks as `Data`, read by the body's consumer: AsyncHTTPClient reads from the
/// socket only as far as its small buffer allows, so a consumer that lags stops the reads.
struct ClientBodyChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let body: HTTPClientResponse.Body
    let expected: Int64?
    let url: URL
    let progress: ProgressReporter?

    func makeAsyncIterator() -> Iterator {
        Iterator(base: body.makeAsyncIterator(), expected: expected, url: url, progress: progress)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let expected: Int64?
        let url: URL
        let progress: ProgressReporter?
        var received: Int64 = 0

        mutating func next() async throws -> Data? {
            let buffer: ByteBuffer?
            do {
                buffer = try await base.next()
            } catch {
                throw ErrorMapping.map(error, url: url)
            }
            guard let buffer else { return nil }
            received += Int64(buffer.readableBytes)
            progress?.reportDownload(received: received, expected: expected)
            return Data(buffer: buffer, byteTransferStrategy: .automatic)
        }
    }
}
