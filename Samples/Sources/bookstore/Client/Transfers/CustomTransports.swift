import Foundation
import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers from memory: for tests and previews, no server and no sockets. It
/// reads the request body as every transport must (chunk by chunk; a file body is read from disk
/// as it goes) and streams its answer in the chunks it was given.
struct StubTransport: Transport {
    /// What the stub answers to one request.
    struct Answer: Sendable {
        var status = 200
        var headers: [(name: String, value: String)] = []
        var chunks: [Data] = []
    }

    /// Makes the answer from the request and its body's bytes.
    let answer: @Sendable (TransportRequest, Data) async throws -> Answer

    func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse {
        var received = Data()
        if let body = request.body {
            for try await chunk in body.chunks() {
                received.append(chunk)
                context.progress?.reportUpload(sent: Int64(received.count), expected: body.length)
            }
        }
        let answer = try await answer(request, received)
        let length = answer.chunks.reduce(0) { $0 + $1.count }
        let head = ResponseHead(
            statusCode: answer.status,
            headerFields: HeaderFields(received: answer.headers + [("Content-Length", "\(length)")]),
            url: request.url)
        let chunks = AsyncStream { continuation in
            for chunk in answer.chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        return TransportResponse(
            head: head, body: ResponseBody(chunks: chunks, expectedLength: Int64(length)))
    }
}

/// Stamps every request with an `X-Request-ID`, then hands it to another transport: the shape
/// of a decorator (tracing, signing, logging). The body, the progress reporter and the streamed
/// response pass through untouched.
struct RequestIDTransport: Transport {
    let wrapped: any Transport

    func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse {
        var request = request
        try request.headerFields.setValue(UUID().uuidString.lowercased(), for: "X-Request-ID")
        return try await wrapped.send(request, context: context)
    }
}

/// Runs a transport written against the first protocol — a `URLRequest` in, the whole body and an
/// `HTTPURLResponse` out — behind the current one, so it keeps working while it is ported. It reads
/// a file body whole into memory and nothing streams: port it properly before sending large files.
struct LegacyTransportAdapter: Transport {
    /// The old transport's `send(_:timeouts:)`.
    let legacy: @Sendable (URLRequest, Timeouts) async throws -> (Data, HTTPURLResponse)

    func send(_ request: TransportRequest, context: TransportContext) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.allHTTPHeaderFields = Dictionary(
            request.headerFields.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        if let body = request.body {
            var bytes = Data()
            for try await chunk in body.chunks() { bytes.append(chunk) }
            urlRequest.httpBody = bytes
        }
        let (data, response) = try await legacy(urlRequest, context.timeouts)
        var fields: [(name: String, value: String)] = []
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields.append((name, value)) }
        }
        let head = ResponseHead(
            statusCode: response.statusCode, headerFields: HeaderFields(received: fields), url: response.url)
        return TransportResponse(head: head, body: ResponseBody(data))
    }
}
