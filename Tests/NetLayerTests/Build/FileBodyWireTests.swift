import Foundation
import NetLayer
import Testing

extension WireTests {
    /// A file body is a regular local file (or a link to one): a remote URL, a device or a missing
    /// file is refused before sending.
    @Suite("File bodies are regular local files", .tags(.hardening))
    struct FileBodyWireTests {
        static let server = TestServerPool.make()

        @Test(.tags(.hardening)) func fileBodiesMustBeRegularLocalFiles() async throws {
            // `Data(contentsOf:)` of an http URL fetched it synchronously, outside every limit; of
            // `/dev/zero` or a FIFO it never ended.
            let server = try Self.server.get()
            let path = uniquePath()
            let target = TestAPI(server: server).target(path)
            let remote = try #require(URL(string: "http://\(server.hostAndPort)\(path)/fetched"))
            let withPassword = try #require(
                URL(string: "http://user:pw-9876@\(server.hostAndPort)\(path)/fetched"))
            let error = await expectRefused(
                target.makeExecutor(method: .post, body: .file(withPassword)), code: .encodingFailed,
                server: server,
                path: path)
            #expect(error.map { !$0.description.contains("pw-9876") } == true, "\(String(describing: error))")
            for url in [remote, URL(fileURLWithPath: "/dev/zero"), URL(fileURLWithPath: "/no/such/file")] {
                _ = await expectRefused(
                    target.makeExecutor(method: .post, body: .file(url)), code: .encodingFailed,
                    server: server,
                    path: path)
                _ = await expectRefused(
                    target.makeExecutor(method: .post, files: ["f": .file(url)]), code: .encodingFailed,
                    server: server,
                    path: path)
            }
            // A symbolic link to a regular file is fine.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "netlayer-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("a.txt")
            try Data("hello".utf8).write(to: file)
            let link = directory.appendingPathComponent("link.txt")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
            try await target.makeExecutor(method: .post, body: .file(link)).execute()
            #expect(server.requests(path: path).first?.bodyString == "hello")
        }
    }
}
