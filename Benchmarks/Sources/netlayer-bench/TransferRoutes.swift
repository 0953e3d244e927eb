import Foundation
import Hummingbird
import NIOCore

/// The transfer benchmark's routes on ``BenchServer``. Neither route ever holds a whole body:
///
/// - `GET /empty`: an empty 200, the "empty request" that gives a process's memory baseline.
/// - `POST /sink`: reads the request body chunk by chunk, discards it, and answers the byte count
///   as text, so a client can check that every byte arrived.
/// - `GET /bytes/:count`: streams `count` bytes with `Content-Length`, generated on the fly by
///   writing one shared 256 KiB chunk of ``pattern`` again and again.
enum TransferRoutes {
    static let chunkSize = 256 * 1024

    /// The bytes of the download: byte `i` is `pattern(i)`.
    @inline(__always)
    static func pattern(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }

    /// One chunk of the pattern; the chunk size is a multiple of 256 × 256, so every chunk is the same.
    static let chunk: ByteBuffer = ByteBuffer(bytes: (0..<chunkSize).map(pattern))

    static func add(to router: Router<BasicRequestContext>) {
        router.get("/empty") { _, _ -> Response in
            Response(status: .ok, body: ResponseBody())
        }
        router.post("/sink") { request, _ -> String in
            var total = 0
            for try await buffer in request.body { total += buffer.readableBytes }
            return String(total)
        }
        router.get("/bytes/:count") { _, context -> Response in
            guard let count = context.parameters.get("count", as: Int.self), count >= 0 else {
                throw HTTPError(.badRequest)
            }
            let chunk = Self.chunk
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: count) { writer in
                    var left = count
                    while left > 0 {
                        let length = min(left, chunk.readableBytes)
                        try await writer.write(chunk.getSlice(at: chunk.readerIndex, length: length)!)
                        left -= length
                    }
                    try await writer.finish(nil)
                })
        }
    }
}
