import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension WireTests {
    /// A `ResponseStream` is single-pass: one iterator reads it, a second one says so, and nothing
    /// is dropped without an error.
    @Suite("Transfers: stream iterators")
    struct StreamIteratorTests {
        static let server = TestServerPool.make()

        /// What one task made of iterating a stream: the bytes it read, or the error it got.
        enum Outcome: Sendable {
            case read(Int)
            case failed(NetLayerError.Code?)
        }

        /// Reads `stream` to its end with a fresh iterator.
        static func readAll(_ stream: ResponseStream<Data>) async -> Outcome {
            var count = 0
            do {
                for try await chunk in stream { count += chunk.count }
                return .read(count)
            } catch {
                return .failed((error as? NetLayerError)?.code)
            }
        }

        @Test func twoTasksIteratingOneStreamGetTheWholeBodyAndBodyConsumed() async throws {
            let server = try Self.server.get()
            let stream = try await TestAPI(server: server).target("/drip")
                .makeExecutor(params: ["bytes": 20, "interval": 20]).stream()
            let outcomes = try await withDeadline(.seconds(5)) {
                await withTaskGroup(of: Outcome.self) { group in
                    for _ in 0..<2 { group.addTask { await Self.readAll(stream) } }
                    var outcomes: [Outcome] = []
                    for await outcome in group { outcomes.append(outcome) }
                    return outcomes
                }
            }
            let reads = outcomes.compactMap { if case .read(let count) = $0 { count } else { nil } }
            let codes = outcomes.compactMap { if case .failed(let code) = $0 { code } else { nil } }
            #expect(reads == [20], "\(outcomes)")
            #expect(codes == [.bodyConsumed], "\(outcomes)")
        }

        @Test func droppingASecondIteratorLeavesTheFirstReadingEveryByte() async throws {
            let server = try Self.server.get()
            let stream = try await TestAPI(server: server).target("/drip")
                .makeExecutor(params: ["bytes": 20, "interval": 20]).stream()
            let total = try await withDeadline(.seconds(5)) {
                var first = stream.makeAsyncIterator()
                var total = (try await first.next())?.count ?? 0
                _ = stream.makeAsyncIterator()  // a second iterator, dropped at once
                while let chunk = try await first.next() { total += chunk.count }
                return total
            }
            #expect(total == 20)
        }

        @Test func aSecondIteratorThrowsBodyConsumedEvenAfterTheFirstEnded() async throws {
            let server = try Self.server.get()
            let stream = try await TestAPI(server: server).target("/status/200").makeExecutor().stream()
            #expect(await Self.readAll(stream).bytes == "status 200".utf8.count)
            var second = stream.makeAsyncIterator()
            let error = await #expect(throws: NetLayerError.self) { _ = try await second.next() }
            #expect(error?.code == .bodyConsumed)
        }

        @Test func anIteratorUsedAfterTheEndKeepsReturningNil() async throws {
            let server = try Self.server.get()
            let stream = try await TestAPI(server: server).target("/status/200").makeExecutor().stream()
            var iterator = stream.makeAsyncIterator()
            var total = 0
            while let chunk = try await iterator.next() { total += chunk.count }
            #expect(try await iterator.next() == nil)
            #expect(try await iterator.next() == nil)
            #expect(total == "status 200".utf8.count)
        }

        @Test func nextAfterTheStreamStoppedBeforeItsEndThrowsCancelled() async throws {
            let server = try Self.server.get()
            let path = uniquePath()
            let lines = ["{\"id\":1,\"title\":\"A\"}\n", "not json\n", "{\"id\":3,\"title\":\"C\"}\n"]
            server.route(path) { _ in
                TestResponse.data(Data(lines.joined().utf8), contentType: "application/x-ndjson")
                    .dripped(
                        TestDrip(pieceLengths: lines.map { $0.utf8.count }, interval: .milliseconds(150)))
            }
            let books = try await TestAPI(server: server).target(path).makeExecutor()
                .lines(decoding: Book.self)
            var iterator = books.makeAsyncIterator()
            #expect(try await iterator.next() == Book(id: 1, title: "A"))
            let decoding = await #expect(throws: NetLayerError.self) { _ = try await iterator.next() }
            #expect(decoding?.code == .decodingFailed)
            // The transfer was stopped at line 2: the rest is not there, and the iterator says so.
            let after = await #expect(throws: NetLayerError.self) { _ = try await iterator.next() }
            #expect(after?.code == .cancelled)
        }

        @Test func collectWithANegativeLimitThrowsInvalidValueForEveryKindOfBody() async throws {
            let bodies: [@Sendable () -> ResponseBody] = [
                { ResponseBody(Data()) },
                { ResponseBody(Data("a".utf8)) },
                { ResponseBody(chunks: AsyncStream<Data> { $0.finish() }) },
                {
                    ResponseBody(
                        chunks: AsyncStream<Data> {
                            $0.yield(Data("a".utf8))
                            $0.finish()
                        })
                },
            ]
            for (index, make) in bodies.enumerated() {
                for limit in [-1, Int.min] {
                    let body = make()
                    let error = await #expect(throws: NetLayerError.self, "body \(index), limit \(limit)") {
                        _ = try await body.collect(upTo: limit)
                    }
                    #expect(error?.code == .invalidValue, "body \(index), limit \(limit)")
                    // Rejected before reading: the body is still there.
                    #expect(try await body.collect().count == (index % 2), "body \(index)")
                }
            }
        }

        @Test func collectUpToZeroAcceptsOnlyAnEmptyBody() async throws {
            #expect(try await ResponseBody(Data()).collect(upTo: 0) == Data())
            #expect(
                try await ResponseBody(chunks: AsyncStream<Data> { $0.finish() }).collect(upTo: 0) == Data())
            let buffered = await #expect(throws: NetLayerError.self) {
                _ = try await ResponseBody(Data("a".utf8)).collect(upTo: 0)
            }
            #expect(buffered?.code == .responseTooLarge)
            let streamed = await #expect(throws: NetLayerError.self) {
                _ = try await ResponseBody(
                    chunks: AsyncStream<Data> {
                        $0.yield(Data("a".utf8))
                        $0.finish()
                    }
                ).collect(upTo: 0)
            }
            #expect(streamed?.code == .responseTooLarge)
        }

        @Test func aSecondConcurrentReaderOfABodyBufferFailsAndTheFirstStillGetsItsChunk() async throws {
            let buffer = BodyBuffer(control: BodyBuffer.Control(pause: nil, resume: nil, cancel: {}))
            let first = Task { try await buffer.next() }
            // Let the first reader wait for a chunk.
            try await Task.sleep(for: .milliseconds(200))
            let second = await Result {
                try await withDeadline(.seconds(5)) { try await buffer.next() }
            }
            if case .failure(let error) = second {
                #expect((error as? NetLayerError)?.code == .bodyConsumed, "\(error)")
            } else {
                Issue.record("a second reader waiting at the same time must fail: \(second)")
            }
            buffer.yield(Data("x".utf8))
            buffer.finish(nil)
            let chunk = try await withDeadline(.seconds(5)) { try await first.value }
            #expect(chunk == Data("x".utf8))
        }
    }
}

extension WireTests.StreamIteratorTests.Outcome {
    /// The bytes read, `nil` for a failure.
    var bytes: Int? {
        if case .read(let count) = self { return count }
        return nil
    }
}
