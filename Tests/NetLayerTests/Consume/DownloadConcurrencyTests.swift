import Foundation
import Testing

@testable import NetLayer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Two `download(to:)` calls to one destination at the same time: the second is refused before it
// sends anything, and the first call's files are left alone (audit 4; DESIGN §17).

extension WireTests {
    @Suite("Download concurrency", .serialized)
    struct DownloadConcurrencyTests {
        static let server = TestServerPool.make()

        /// How many bytes a slow route sends: 64 KiB in 4 KiB pieces every 15 ms, about a quarter second.
        static let size = 64 * 1024

        /// A route sending `size` bytes of `byte`, slowly, with a strong `ETag` (so a resumable call
        /// keeps its partial file).
        static func slowRoute(_ path: String, byte: UInt8, on server: TestServer) {
            server.route(path) { _ in
                TestResponse(
                    status: 200, headers: [("ETag", "\"v-\(byte)\"")],
                    body: Data(repeating: byte, count: size)
                ).dripped(.init(pieceSize: 4096, interval: .milliseconds(15)))
            }
        }

        /// Runs `body`, giving up after `seconds`: nil when it did not finish (a hang fails the test
        /// instead of the run).
        static func bounded<T: Sendable>(
            _ seconds: Double = 10, _ body: @escaping @Sendable () async -> T
        ) async -> T? {
            await withTaskGroup(of: T?.self) { group in
                group.addTask { await body() }
                group.addTask {
                    try? await Task.sleep(for: .seconds(seconds))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }

        /// Starts a first download (`firstResumable`) of a slow route to `shared.bin`, and once the
        /// server has its request, while it still runs, a second one (`secondResumable`) of another
        /// route to the same destination. Checks that the second is refused with `.fileFailed`
        /// without sending anything, that the first's partial file is still there when it is, and that
        /// the first finishes with its own bytes and leaves nothing else behind.
        /// With `quickSecond`, the second route answers at once with 100 bytes, so unrefused it would
        /// finish while the first still runs.
        func checkSecondCallRefused(
            firstResumable: Bool, secondResumable: Bool, quickSecond: Bool = false
        ) async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let pathA = uniquePath() + "-a"
            let pathB = uniquePath() + "-b"
            Self.slowRoute(pathA, byte: 0x41, on: server)
            if quickSecond {
                server.route(pathB) { _ in TestResponse(status: 200, body: Data(repeating: 0x42, count: 100))
                }
            } else {
                Self.slowRoute(pathB, byte: 0x42, on: server)
            }
            let destination = scratch.file("shared.bin")
            let api = TestAPI(server: server)
            let a = api.target(pathA).makeExecutor()
            let b = api.target(pathB).makeExecutor()
            let first = Task {
                await attempt { try await a.download(to: destination, resumable: firstResumable) }
            }
            defer { first.cancel() }
            #expect(await server.waitForRequests(count: 1, path: pathA).count == 1)
            if firstResumable {
                // The partial file appears once the first call has its response head, which can come
                // after the server saw the request (seen under the thread sanitizer in CI).
                let start = ContinuousClock.now
                while !scratch.contents.contains(".shared.bin.netlayer-partial"),
                    ContinuousClock.now - start < .seconds(10)
                {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            let second = await Self.bounded {
                await attempt { try await b.download(to: destination, resumable: secondResumable) }
            }
            let listingWhileFirstRuns = scratch.contents
            let firstOutcome = await Self.bounded { await first.value }
            let refused = try #require(second, "the second call hung")
            if case .failure(let error as NetLayerError) = refused {
                #expect(error.code == .fileFailed)
                #expect(error.message.contains("another download to \(destination.path) is in progress"))
            } else {
                Issue.record("the second call to a destination in use was not refused: \(refused)")
            }
            #expect(server.requests(path: pathB).isEmpty, "the second call sent a request")
            if firstResumable {
                #expect(
                    listingWhileFirstRuns.contains(".shared.bin.netlayer-partial"),
                    "the refused call touched the first call's partial file: \(listingWhileFirstRuns)")
            }
            let outcome = try #require(firstOutcome, "the first call hung")
            guard case .success(let download) = outcome else {
                Issue.record("the first call failed: \(outcome)")
                return
            }
            #expect(download.fileSize == Int64(Self.size) && download.resumedFrom == 0)
            #expect(try Data(contentsOf: destination) == Data(repeating: 0x41, count: Self.size))
            #expect(scratch.contents == ["shared.bin"])
            #expect(server.requests(path: pathA).count == 1)
            #expect(!DownloadClaim.isHeld(destination))
        }

        // MARK: A second call to a destination in use is refused

        @Test func aSecondResumableDownloadToADestinationInUseIsRefusedAndTheFirstKeepsItsFile()
            async throws
        {
            try await checkSecondCallRefused(firstResumable: true, secondResumable: true)
        }

        @Test func aNonResumableDownloadCannotRemoveThePartialFileOfAResumableOneInFlight() async throws {
            try await checkSecondCallRefused(firstResumable: true, secondResumable: false)
        }

        @Test func aQuickNonResumableDownloadCannotFinishUnderAResumableOneInFlight() async throws {
            // Unrefused, it would finish first and remove the resumable call's live partial file: that
            // call would receive every byte and then fail, with nothing left to resume.
            try await checkSecondCallRefused(firstResumable: true, secondResumable: false, quickSecond: true)
        }

        @Test func aResumableDownloadToADestinationANonResumableOneWritesIsRefused() async throws {
            try await checkSecondCallRefused(firstResumable: false, secondResumable: true)
        }

        @Test func twoNonResumableDownloadsToOneDestinationDoNotRunAtOnce() async throws {
            try await checkSecondCallRefused(firstResumable: false, secondResumable: false)
        }

        @Test func theSameDestinationSpelledDifferentlyIsTheSameClaim() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let pathA = uniquePath() + "-a"
            let pathB = uniquePath() + "-b"
            Self.slowRoute(pathA, byte: 0x41, on: server)
            Self.slowRoute(pathB, byte: 0x42, on: server)
            let destination = scratch.file("shared.bin")
            let spelledOtherwise = scratch.url.appendingPathComponent("sub/../shared.bin")
            try FileManager.default.createDirectory(
                at: scratch.file("sub"), withIntermediateDirectories: true)
            let api = TestAPI(server: server)
            let a = api.target(pathA).makeExecutor()
            let b = api.target(pathB).makeExecutor()
            let first = Task { await attempt { try await a.download(to: destination, resumable: true) } }
            defer { first.cancel() }
            #expect(await server.waitForRequests(count: 1, path: pathA).count == 1)
            let second = await Self.bounded {
                await attempt { try await b.download(to: spelledOtherwise, resumable: true) }
            }
            _ = await Self.bounded { await first.value }
            guard case .failure(let error as NetLayerError)? = second else {
                Issue.record("not refused: \(String(describing: second))")
                return
            }
            #expect(error.code == .fileFailed)
            #expect(server.requests(path: pathB).isEmpty)
            #expect(try Data(contentsOf: destination) == Data(repeating: 0x41, count: Self.size))
        }

        // MARK: The claim ends with the call

        @Test func differentDestinationsDownloadAtTheSameTime() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let pathA = uniquePath() + "-a"
            let pathB = uniquePath() + "-b"
            Self.slowRoute(pathA, byte: 0x41, on: server)
            Self.slowRoute(pathB, byte: 0x42, on: server)
            let api = TestAPI(server: server)
            let a = api.target(pathA).makeExecutor()
            let b = api.target(pathB).makeExecutor()
            let one = scratch.file("one.bin")
            let two = scratch.file("two.bin")
            let outcome = await Self.bounded {
                async let first = attempt { try await a.download(to: one, resumable: true) }
                async let second = attempt { try await b.download(to: two) }
                let (ra, rb) = await (first, second)
                return (ra.isSuccess, rb.isSuccess)
            }
            #expect(outcome?.0 == true && outcome?.1 == true)
            #expect(try Data(contentsOf: one) == Data(repeating: 0x41, count: Self.size))
            #expect(try Data(contentsOf: two) == Data(repeating: 0x42, count: Self.size))
            #expect(scratch.contents == ["one.bin", "two.bin"])
        }

        @Test func aDestinationIsFreeAgainAfterSuccessFailureAndCancellation() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let slow = uniquePath() + "-slow"
            let missing = uniquePath() + "-missing"
            let fine = uniquePath() + "-fine"
            Self.slowRoute(slow, byte: 0x41, on: server)
            server.route(missing) { _ in TestResponse(status: 404, body: Data("gone".utf8)) }
            server.route(fine) { _ in TestResponse(status: 200, body: Data(repeating: 0x43, count: 10)) }
            let destination = scratch.file("shared.bin")
            let api = TestAPI(server: server)
            // Success.
            _ = try await api.target(fine).makeExecutor().download(to: destination)
            // Failure: an unacceptable status.
            let failed = await #expect(throws: NetLayerError.self) {
                try await api.target(missing).makeExecutor().download(to: destination, resumable: true)
            }
            #expect(failed?.code == .unacceptableStatus)
            // Cancellation while the body arrives.
            let cancelled = Task {
                await attempt {
                    try await api.target(slow).makeExecutor().download(to: destination, resumable: true)
                }
            }
            _ = await server.waitForRequests(count: 1, path: slow)
            cancelled.cancel()
            let cancelledOutcome = await Self.bounded { await cancelled.value }
            #expect(cancelledOutcome?.isSuccess == false)
            // Each of them let go of the destination: the next call runs.
            let last = await Self.bounded {
                await attempt { try await api.target(fine).makeExecutor().download(to: destination) }
            }
            #expect(last?.isSuccess == true, "the destination stayed claimed: \(String(describing: last))")
            #expect(try Data(contentsOf: destination) == Data(repeating: 0x43, count: 10))
            #expect(server.requests(path: fine).count == 2)
            #expect(scratch.contents == ["shared.bin"])
            #expect(!DownloadClaim.isHeld(destination))
        }

        @Test func aRestartAfter416KeepsItsClaimAndReleasesItAtTheEnd() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            let full = Data((0..<100).map { UInt8($0) })
            server.route(path) { request in
                if request.header("Range") != nil {
                    return TestResponse(status: 416, headers: [("Content-Range", "bytes */100")])
                }
                return TestResponse(status: 200, headers: [("ETag", "\"v2\"")], body: full)
            }
            let destination = scratch.file("shared.bin")
            // A partial file and record from an earlier call, which the server refuses to continue.
            try Data(repeating: 9, count: 30).write(to: scratch.file(".shared.bin.netlayer-partial"))
            let url = try TestAPI(server: server).target(path).makeExecutor().prepare().request.url
                .absoluteString
            let record = DownloadFiles.ResumePoint(url: url, validator: "\"v1\"", offset: 30)
            try JSONEncoder().encode(record).write(to: scratch.file(".shared.bin.netlayer-partial.json"))
            let executor = TestAPI(server: server).target(path).makeExecutor()
            let restarted = await Self.bounded {
                await attempt { try await executor.download(to: destination, resumable: true) }
            }
            guard case .success(let download)? = restarted else {
                Issue.record("the restart after 416 failed or hung: \(String(describing: restarted))")
                return
            }
            #expect(download.resumedFrom == 0 && download.fileSize == 100)
            #expect(server.requests(path: path).map { $0.header("Range") } == ["bytes=30-", nil])
            #expect(try Data(contentsOf: destination) == full)
            // Released: the next call runs.
            let again = await Self.bounded { await attempt { try await executor.download(to: destination) } }
            #expect(again?.isSuccess == true)
            #expect(scratch.contents == ["shared.bin"])
            #expect(!DownloadClaim.isHeld(destination))
        }

        // MARK: Across processes: the partial file's lock

        /// Locks `file` the way a download in another process does (`flock` on its own open file
        /// description, which conflicts with this process's other descriptions too).
        static func lockAsAnotherProcess(_ file: URL) throws -> Int32 {
            let descriptor = open(file.path, O_RDWR)
            try #require(descriptor >= 0)
            try #require(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
            return descriptor
        }

        @Test func aResumableDownloadLeavesAPartialFileAnotherProcessWritesAlone() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            Self.slowRoute(path, byte: 0x41, on: server)
            let destination = scratch.file("shared.bin")
            let partial = scratch.file(".shared.bin.netlayer-partial")
            let theirs = Data(repeating: 0x42, count: 50)
            try theirs.write(to: partial)
            let descriptor = try Self.lockAsAnotherProcess(partial)
            defer { close(descriptor) }
            let executor = TestAPI(server: server).target(path).makeExecutor()
            let outcome = await Self.bounded {
                await attempt { try await executor.download(to: destination, resumable: true) }
            }
            guard case .failure(let error as NetLayerError)? = outcome else {
                Issue.record(
                    "wrote into a partial file another process holds: \(String(describing: outcome))")
                return
            }
            #expect(error.code == .fileFailed)
            #expect(error.message.contains("another download to \(destination.path) is in progress"))
            #expect(try Data(contentsOf: partial) == theirs)
            #expect(scratch.contents == [".shared.bin.netlayer-partial"])
            #expect(!DownloadClaim.isHeld(destination))
        }

        @Test func aNonResumableDownloadKeepsAPartialFileAnotherProcessWrites() async throws {
            let server = try Self.server.get()
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            let path = uniquePath()
            server.route(path) { _ in TestResponse(status: 200, body: Data(repeating: 0x43, count: 10)) }
            let destination = scratch.file("shared.bin")
            let partial = scratch.file(".shared.bin.netlayer-partial")
            let theirs = Data(repeating: 0x42, count: 50)
            try theirs.write(to: partial)
            try Data("{}".utf8).write(to: scratch.file(".shared.bin.netlayer-partial.json"))
            let descriptor = try Self.lockAsAnotherProcess(partial)
            defer { close(descriptor) }
            let download = try await TestAPI(server: server).target(path).makeExecutor().download(
                to: destination)
            #expect(download.fileSize == 10)
            #expect(try Data(contentsOf: destination) == Data(repeating: 0x43, count: 10))
            #expect(try Data(contentsOf: partial) == theirs)
            #expect(
                scratch.contents == [
                    ".shared.bin.netlayer-partial", ".shared.bin.netlayer-partial.json", "shared.bin",
                ])
        }
    }
}

/// The outcome of `body`, thrown errors included.
private func attempt<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

extension Result {
    /// Whether this is a success.
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
