import Foundation
import Hummingbird
import Logging
import NIOCore

/// The model both clients decode.
struct Book: Codable, Sendable, Equatable {
    let id: Int
    let title: String
    let author: String
    let year: Int
    let isbn: String
    let available: Bool
}

/// An in-process Hummingbird 2 server on 127.0.0.1 with a port chosen by the system. `GET /books`
/// answers a fixed JSON list of 10 books (about 1 KB), encoded once up front so the server's
/// per-request work is the same for every client. The transfer benchmark's routes are added too
/// (see ``TransferRoutes``).
enum BenchServer {
    static let books: [Book] = (1...10).map { index in
        Book(
            id: index, title: "Benchmark Book Number \(index)", author: "Author \(index) Lastname",
            year: 1950 + index * 7, isbn: "978-0-\(100_000 + index * 1_234)-\(index % 10)",
            available: index % 3 != 0)
    }

    struct Running {
        let port: Int
        let bodyBytes: Int
        /// Runs the server until the process exits (the benchmark ends with `exit`, which also closes
        /// the clients' keep-alive connections).
        let task: Task<Void, any Error>
    }

    /// Starts the server and returns once it listens.
    static func start() async throws -> Running {
        let body = try JSONEncoder().encode(books)
        let buffer = ByteBuffer(bytes: body)
        let router = Router()
        router.get("/books") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: buffer))
        }
        // The same body, fresh for a day: the cache part's hit (CacheBenchmark.swift).
        router.get("/books-cached") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=86400"],
                body: ResponseBody(byteBuffer: buffer))
        }
        TransferRoutes.add(to: router)

        var logger = Logger(label: "netlayer-bench.server")
        logger.logLevel = .error
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger
        )
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw BenchError("the server did not report a listening port")
        }
        return Running(port: port, bodyBytes: body.count, task: task)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
