import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NetLayer

/// NetLayer's request value as AsyncHTTPClient's.
enum RequestConversion {
    /// `request` with its body: bytes in memory as one buffer, anything with a file as a stream
    /// read in chunks with the body's exact length (AsyncHTTPClient then sends `Content-Length`
    /// and fails the call if the stream ends early or runs long).
    /// - Parameters:
    ///   - progress: Told of every chunk the client takes.
    ///   - activity: Told of every chunk, for the idle timeout.
    static func clientRequest(
        _ request: TransportRequest, progress: ProgressReporter?, activity: Activity? = nil
    ) -> HTTPClientRequest {
        var converted = HTTPClientRequest(url: request.url.absoluteString)
        converted.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        var headers = HTTPHeaders()
        for field in request.headerFields { headers.add(name: field.name, value: field.value) }
        converted.headers = headers
        guard let body = request.body, body.length > 0 else { return converted }
        if let bytes = body.inMemoryBytes, progress == nil {
            converted.body = .bytes(ByteBuffer(data: bytes))
        } else {
            converted.body = .stream(
                BodyChunks(body: body, progress: progress, activity: activity), length: .known(body.length))
        }
        return converted
    }
}

/// A request body's chunks as byte buffers, counting what the client took.
struct BodyChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: RequestBody
    let progress: ProgressReporter?
    let activity: Activity?

    func makeAsyncIterator() -> Iterator {
        Iterator(
            chunks: body.chunks().makeAsyncIterator(), length: body.length, progress: progress,
            activity: activity)
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: RequestBody.Chunks.Iterator
        let length: Int64
        let progress: ProgressReporter?
        let activity: Activity?
        var sent: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await chunks.next() else { return nil }
            sent += Int64(chunk.count)
            activity?.touch()
            progress?.reportUpload(sent: sent, expected: length)
            return ByteBuffer(data: chunk)
        }
    }
}
