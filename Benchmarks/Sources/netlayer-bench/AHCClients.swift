import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFileSystem
import NIOFoundationCompat
import NetLayer

// The raw AsyncHTTPClient clients of the AHC part (AHCBenchmark.swift). NetLayer's side is the
// existing NetLayerClient and NetLayerTransferClient with an `AsyncHTTPClientTransport`.

/// Raw AsyncHTTPClient's settings: those `AsyncHTTPClientTransport(configuration:)` gives its own
/// client by default (see Transports/AsyncHTTPClient, `Configuration.clientConfiguration()`), so
/// both clients pool, time out and decompress alike and a ratio prices NetLayer's own work.
enum RawAHC {
    /// - Parameter connections: `concurrentHTTP1ConnectionsPerHostSoftLimit`, the transport's
    ///   `maximumConnectionsPerHost` (default 8).
    static func configuration(connections: Int) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: .makeClientConfiguration(),
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(60)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.httpVersion = .automatic
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
        configuration.connectionPool.idleTimeout = .seconds(60)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// A client on the process's shared event loop group, as the transport makes its own.
    static func makeClient(connections: Int) -> HTTPClient {
        HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: configuration(connections: connections))
    }
}

/// Baseline of the AHC part's GET+decode: raw AsyncHTTPClient. One client made once, one request
/// made once, one decoder: `execute(request, deadline: .distantFuture)`, a 2xx check,
/// `collect(upTo:)` of NetLayer's default response limit (64 MiB), `JSONDecoder.decode`.
final class RawAHCClient: Sendable {
    let client: HTTPClient
    let request: HTTPClientRequest
    let decoder = JSONDecoder()

    init(port: Int, connections: Int) {
        client = RawAHC.makeClient(connections: connections)
        request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/books")
    }

    func books() async throws -> [Book] {
        let response = try await client.execute(request, deadline: .distantFuture)
        guard (200..<300).contains(response.status.code) else {
            throw BenchError("AsyncHTTPClient: unexpected status \(response.status)")
        }
        let body = try await response.body.collect(upTo: ResourceOptions.defaultMaximumResponseSize)
        return try decoder.decode([Book].self, from: body)
    }

    func shutdown() async throws { try await client.shutdown() }
}

/// Raw AsyncHTTPClient's side of the AHC part's transfers: the least an AsyncHTTPClient caller
/// writes to move the same bytes.
///
/// - Uploads: `HTTPClientRequest.Body.stream` of the file's `readChunks` (SwiftNIO's file system,
///   which reads on NIO's thread pool straight into `ByteBuffer`s) in 256 KiB chunks (NetLayer's
///   `RequestBody.defaultChunkSize`), with `.known(length)`; the multipart upload streams the
///   multipart body that ``TransferFiles`` built once on disk.
/// - Download: `execute`, then every buffer of `response.body` written to a `FileHandle` as it
///   arrives (no `fsync`), as the URLSession baseline's delegate does.
final class RawAHCTransferClient: Sendable {
    let client: HTTPClient
    let base: String

    init(port: Int, connections: Int) {
        client = RawAHC.makeClient(connections: connections)
        base = "http://127.0.0.1:\(port)"
    }

    func shutdown() async throws { try await client.shutdown() }

    /// `GET /empty`.
    func empty() async throws {
        let response = try await client.execute(
            HTTPClientRequest(url: "\(base)/empty"), deadline: .distantFuture)
        _ = try await response.body.collect(upTo: 1 << 20)
    }

    /// Moves `files.bytes` bytes as `kind` (a download into `destination`); returns the bytes the
    /// server counted (uploads, checked) or the client wrote (download; the caller checks the file).
    func transfer(_ kind: TransferKind, files: TransferFiles, destination: URL) async throws -> Int64 {
        switch kind {
        case .multipart:
            return try await upload(
                files.multipart, length: files.multipartLength, contentType: files.multipartContentType)
        case .file:
            return try await upload(
                files.source, length: files.bytes, contentType: "application/octet-stream")
        case .download:
            return try await download(files.bytes, to: destination)
        }
    }

    private func upload(_ file: URL, length: Int64, contentType: String) async throws -> Int64 {
        let (response, text) = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(file.path)) {
            handle in
            var request = HTTPClientRequest(url: "\(base)/sink")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .stream(
                handle.readChunks(in: 0..<length, chunkLength: .bytes(Int64(RequestBody.defaultChunkSize))),
                length: .known(length))
            let response = try await client.execute(request, deadline: .distantFuture)
            return (response, String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
        guard response.status == .ok, let count = Int64(text), count == length else {
            throw BenchError(
                "raw AsyncHTTPClient upload: \(response.status), the sink answered \(text), not \(length)")
        }
        return count
    }

    private func download(_ bytes: Int64, to destination: URL) async throws -> Int64 {
        let response = try await client.execute(
            HTTPClientRequest(url: "\(base)/bytes/\(bytes)"), deadline: .distantFuture)
        guard response.status == .ok else {
            throw BenchError("raw AsyncHTTPClient download: unexpected status \(response.status)")
        }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw BenchError("cannot create \(destination.path)")
        }
        let handle = try FileHandle(forWritingTo: destination)
        defer { try? handle.close() }
        var written: Int64 = 0
        for try await buffer in response.body {
            try handle.write(contentsOf: buffer.readableBytesView)
            written += Int64(buffer.readableBytes)
        }
        return written
    }
}
