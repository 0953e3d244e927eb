import Foundation
import NetLayer

/// NetLayer's side of the transfer benchmark, written as an app would: a `Resource` subclass and
/// one `Target` subclass per route, each call made anew (default `URLSessionTransport`; the AHC part
/// passes an `AsyncHTTPClientTransport`).
final class NetLayerTransferClient: Sendable {
    final class API: Resource, @unchecked Sendable {
        init(port: Int, transport: (any Transport)?) {
            super.init(protocol: .http, domain: "127.0.0.1:\(port)", transport: transport)
        }
    }

    final class SinkTarget: Target, @unchecked Sendable {
        /// The multipart call: a text field and a file part.
        func multipartExecutor(_ file: URL) -> Executor {
            makeExecutor(method: .post, params: ["note": "netlayer-bench"], files: ["f": .file(file)])
        }

        func uploadMultipart(_ file: URL) async throws -> Int64 {
            try Self.count(try await multipartExecutor(file).execute(model: String.self))
        }

        func uploadFile(_ file: URL) async throws -> Int64 {
            try Self.count(
                try await makeExecutor(method: .post, body: .file(file)).execute(model: String.self))
        }

        static func count(_ text: String) throws -> Int64 {
            guard let count = Int64(text) else { throw BenchError("the sink answered \(text)") }
            return count
        }
    }

    final class BytesTarget: Target, @unchecked Sendable {
        func download(_ bytes: Int64, to destination: URL) async throws -> Int64 {
            try await makeExecutor(method: .get, subpath: ":count", pathParts: ["count": bytes])
                .download(to: destination).bytesWritten
        }
    }

    final class EmptyTarget: Target, @unchecked Sendable {
        func get() async throws { try await makeExecutor(method: .get).execute() }
    }

    let api: API
    let sink: SinkTarget
    let bytes: BytesTarget
    let empty: EmptyTarget

    /// - Parameter transport: Default: the resource's own (`URLSessionTransport()`).
    init(port: Int, transport: (any Transport)? = nil) {
        api = API(port: port, transport: transport)
        sink = SinkTarget(resource: api, path: "/sink")
        bytes = BytesTarget(resource: api, path: "/bytes")
        empty = EmptyTarget(resource: api, path: "/empty")
    }

    /// The multipart body NetLayer sends for `file`: content type and segments (head, file, tail),
    /// for the raw URLSession client's copy on disk.
    func multipartBody(_ file: URL) throws -> (contentType: String, segments: [RequestBody.Segment]) {
        let request = try sink.multipartExecutor(file).transportRequest
        guard let contentType = request.headerFields["Content-Type"], let body = request.body else {
            throw BenchError("NetLayer built no multipart body")
        }
        return (contentType, body.segments)
    }

    /// Moves `files.bytes` bytes as `kind` (a download into `destination`); returns the bytes the
    /// server counted (uploads, checked) or wrote (download; the caller checks the file).
    func transfer(_ kind: TransferKind, files: TransferFiles, destination: URL) async throws -> Int64 {
        switch kind {
        case .multipart:
            let count = try await sink.uploadMultipart(files.source)
            guard count == files.multipartLength else {
                throw BenchError(
                    "NetLayer multipart: the server counted \(count), not \(files.multipartLength)")
            }
            return count
        case .file:
            let count = try await sink.uploadFile(files.source)
            guard count == files.bytes else {
                throw BenchError("NetLayer file upload: the server counted \(count), not \(files.bytes)")
            }
            return count
        case .download:
            return try await bytes.download(files.bytes, to: destination)
        }
    }
}
