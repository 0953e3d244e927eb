import Foundation
import Testing

@testable import NetLayer

/// Issue 28: the disk store. Two ``DiskCacheStorage`` values on one directory share nothing but
/// the directory, as two processes do; the tests use that to stand for another process.
@Suite("Caching: the disk store")
struct CachingDiskStorageTests {
    /// A new directory under the system's temporary one, removed by `body`'s end.
    static func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("netlayer-cache-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    static func key(_ url: String, authorization: String? = nil, secret: [UInt8]) -> HTTPCacheKey {
        var headers = HeaderFields()
        if let authorization { headers.append("Authorization", authorization) }
        let salt = CredentialPartition.Salt(bytes: secret)
        return HTTPCacheKey(
            CacheKey(url: URL(string: url)!, headers: headers, redaction: .default, salt: salt), salt: salt)
    }

    static func entry(_ body: String, language: String? = nil) -> HTTPCacheEntry {
        let vary = language.map { [VaryKey.Field(name: "accept-language", value: $0)] } ?? []
        return HTTPCacheEntry(
            stored: StoredResponse(
                status: 200, headers: CachingFixture.fields(("Cache-Control", "max-age=60")),
                requestTime: CachingFixture.t0, responseTime: CachingFixture.t0, vary: VaryKey(fields: vary)),
            body: Data(body.utf8))
    }

    /// The entry files under `directory`.
    static func entryFiles(_ directory: URL) -> [URL] {
        DiskCacheStorage.entryFiles(in: directory.appendingPathComponent("netlayer-entries")).map(\.url)
    }

    static func permissions(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
            ?? -1
    }

    @Test func entriesSurviveARestartAndAreOwnerOnly() async throws {
        try await Self.withDirectory { directory in
            let first = try await DiskCacheStorage(directory: directory)
            let key = Self.key("https://api.example/books?page=2", secret: first.keySecret)
            await first.store(Self.entry("en", language: "en"), for: key)
            await first.store(Self.entry("de", language: "de"), for: key)
            await first.store(Self.entry("de, again", language: "de"), for: key)

            let restarted = try await DiskCacheStorage(directory: directory)
            #expect(restarted.keySecret == first.keySecret && restarted.keySecret.count == 32)
            let again = Self.key("https://api.example/books?page=2", secret: restarted.keySecret)
            #expect(
                await restarted.entries(for: again).map(\.body) == [Data("de, again".utf8), Data("en".utf8)])
            #expect(await restarted.usage().entries == 1)

            for file in Self.entryFiles(directory) + [directory.appendingPathComponent("netlayer-secret")] {
                #expect(try Self.permissions(file) == 0o600)
                // The names are digests: neither the URI nor its query shows.
                #expect(!file.path.contains("books") && !file.path.contains("page"))
            }
            for folder in ["netlayer-entries", "netlayer-tmp"] {
                #expect(try Self.permissions(directory.appendingPathComponent(folder)) == 0o700)
            }
        }
    }

    @Test func processesOpeningANewDirectoryTogetherAgreeOnItsSecret() async throws {
        try await Self.withDirectory { directory in
            let secrets = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for _ in 0..<8 {
                    group.addTask { try await DiskCacheStorage(directory: directory).keySecret }
                }
                return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
            }
            #expect(secrets.count == 1)
        }
    }

    @Test func partitionsAndURIsNeverCross() async throws {
        try await Self.withDirectory { directory in
            let store = try await DiskCacheStorage(directory: directory)
            let secret = store.keySecret
            let alice = Self.key("https://api.example/me", authorization: "Bearer alice", secret: secret)
            await store.store(Self.entry("alice"), for: alice)
            #expect(await store.entries(for: Self.key("https://api.example/me", secret: secret)).isEmpty)
            #expect(
                await store.entries(
                    for: Self.key("https://api.example/me", authorization: "Bearer bob", secret: secret)
                ).isEmpty)
            #expect(await store.entries(for: Self.key("https://api.example/you", secret: secret)).isEmpty)
            #expect(await store.entries(for: alice).map(\.body) == [Data("alice".utf8)])
            // A store under another secret (another directory's) finds nothing of it.
            #expect(
                await store.entries(
                    for: Self.key("https://api.example/me", authorization: "Bearer alice", secret: [1, 2, 3])
                ).isEmpty)
        }
    }

    /// "A disk entry rewritten by another process": a whole new entry is read; a broken or foreign
    /// one is a miss and is removed, never a crash or another key's body.
    @Test(.tags(.hardening)) func anEntryRewrittenByAnotherProcess() async throws {
        try await Self.withDirectory { directory in
            let mine = try await DiskCacheStorage(directory: directory)
            let other = try await DiskCacheStorage(directory: directory)
            let key = Self.key("https://api.example/a", secret: mine.keySecret)
            let otherKey = Self.key("https://api.example/b", secret: mine.keySecret)
            await mine.store(Self.entry("mine"), for: key)
            await other.store(Self.entry("theirs"), for: key)
            #expect(await mine.entries(for: key).map(\.body) == [Data("theirs".utf8)])

            guard let file = Self.entryFiles(directory).first else {
                Issue.record("no entry file")
                return
            }
            let whole = try Data(contentsOf: file)
            await other.store(Self.entry("b"), for: otherKey)
            let foreign = try Data(contentsOf: Self.entryFiles(directory).first { $0 != file } ?? file)
            var flipped = whole
            flipped[flipped.count - 3] ^= 1
            let rewrites: [(String, Data)] = [
                ("truncated", whole.prefix(whole.count / 2)), ("empty", Data()),
                ("one byte changed", flipped),
                ("garbage", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })),
                ("another key's entry", foreign), ("twice", whole + whole),
            ]
            for (what, bytes) in rewrites {
                try bytes.write(to: file)
                #expect(await mine.entries(for: key).isEmpty, "\(what)")
                #expect(!FileManager.default.fileExists(atPath: file.path), "\(what) is removed")
                await mine.store(Self.entry("mine"), for: key)
                #expect(
                    await mine.entries(for: key).map(\.body) == [Data("mine".utf8)], "\(what): stored again")
            }
            // A folder where the file was, and files larger than any entry the store writes: a
            // small one, and a sparse one of 64 GiB, which is never read.
            try FileManager.default.removeItem(at: file)
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            #expect(await mine.entries(for: key).isEmpty)
            let small = try await DiskCacheStorage(directory: directory, maximumBytes: 8 << 10)
            try Data(count: 4096).write(to: file)
            #expect(await small.entries(for: key).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            try Data().write(to: file)
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: 64 << 30)
            try handle.close()
            #expect(await mine.entries(for: key).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    /// Four stores on one directory (as four processes), eight tasks storing, reading, invalidating
    /// and trimming 40 keys at once: every entry read is one stored under its key, whole.
    @Test func concurrentWritersAndReadersNeverSeeAMixedOrForeignEntry() async throws {
        try await Self.withDirectory { directory in
            var stores: [DiskCacheStorage] = []
            for _ in 0..<4 {
                stores.append(try await DiskCacheStorage(directory: directory, maximumBytes: 64 << 10))
            }
            let secret = stores[0].keySecret
            let keys = (0..<20).flatMap { index in
                [nil, "Bearer \(index % 3)"].map { authorization in
                    (
                        label: "/\(index)#\(authorization ?? "anonymous")#",
                        key: Self.key(
                            "https://api.example/\(index)", authorization: authorization, secret: secret)
                    )
                }
            }
            let wrong = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    let store = stores[worker % stores.count]
                    group.addTask {
                        var generator = SystemRandomNumberGenerator()
                        var wrong: [String] = []
                        for step in 0..<300 {
                            let (label, key) = keys[Int.random(in: 0..<keys.count, using: &generator)]
                            switch Int.random(in: 0..<10, using: &generator) {
                            case 0:
                                await store.removeEntries(forURIOf: key)
                            case 1...4:
                                let body = label + String(repeating: "x", count: 100 + step % 900)
                                let language = ["en", "de", "fr"][step % 3]
                                await store.store(Self.entry(body, language: language), for: key)
                            default:
                                for entry in await store.entries(for: key) {
                                    let text = String(decoding: entry.body, as: UTF8.self)
                                    if !text.hasPrefix(label) || entry.body.count < label.utf8.count + 100 {
                                        wrong.append("\(label) read \(text.prefix(20))")
                                    }
                                }
                            }
                        }
                        return wrong
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(5))")
            // What is left is whole and within the bound, once the last trim has run.
            await stores[0].countNow()
            let usage = await stores[0].usage()
            #expect(usage.bytes <= 64 << 10)
        }
    }

    @Test func invalidationRemovesEveryPartitionOfOneURI() async throws {
        try await Self.withDirectory { directory in
            let store = try await DiskCacheStorage(directory: directory)
            let secret = store.keySecret
            let keys = [
                Self.key("https://api.example/a", secret: secret),
                Self.key("https://api.example/a", authorization: "Bearer x", secret: secret),
                Self.key("https://api.example/b", secret: secret),
            ]
            for key in keys { await store.store(Self.entry("x"), for: key) }
            await store.removeEntries(forURIOf: keys[0])
            #expect(await store.entries(for: keys[0]).isEmpty)
            #expect(await store.entries(for: keys[1]).isEmpty)
            #expect(await store.entries(for: keys[2]).count == 1)
            await store.removeAll()
            #expect(await store.usage() == HTTPCacheUsage(entries: 0, bytes: 0))
            await store.store(Self.entry("after"), for: keys[2])
            #expect(await store.entries(for: keys[2]).count == 1)
        }
    }

    /// The goal: the byte bound holds under 10,000 distinct URLs, least recently used going first.
    @Test func theByteBoundHoldsUnderTenThousandURLs() async throws {
        try await Self.withDirectory { directory in
            let bound = 256 << 10
            let store = try await DiskCacheStorage(directory: directory, maximumBytes: bound)
            let secret = store.keySecret
            let body = String(repeating: "b", count: 300)
            let kept = Self.key("https://api.example/kept", secret: secret)
            await store.store(Self.entry("kept"), for: kept)
            var largest = 0
            for index in 0..<10_000 {
                await store.store(
                    Self.entry(body), for: Self.key("https://api.example/\(index)", secret: secret))
                if index % 50 == 0 {
                    // A hit renews the entry, so it outlives ones stored after it.
                    #expect(await store.entries(for: kept).count == 1)
                }
                if index % 1000 == 999 { largest = max(largest, await store.usage().bytes) }
            }
            let usage = await store.usage()
            #expect(largest <= bound && usage.bytes <= bound)
            #expect(usage.entries > 300, "the store holds what fits: \(usage.entries)")
            #expect(await store.entries(for: Self.key("https://api.example/9999", secret: secret)).count == 1)
            #expect(await store.entries(for: Self.key("https://api.example/0", secret: secret)).isEmpty)
        }
    }

    @Test func anEntryLargerThanAnEighthOfTheBoundIsNotKept() async throws {
        try await Self.withDirectory { directory in
            let store = try await DiskCacheStorage(directory: directory, maximumBytes: 8 << 10)
            let key = Self.key("https://api.example/big", secret: store.keySecret)
            await store.store(Self.entry(String(repeating: "x", count: 2 << 10)), for: key)
            #expect(await store.entries(for: key).isEmpty)
            #expect(await store.usage().entries == 0)
        }
    }

    /// A directory others may write in is refused (they could plant a secret they know); a secret
    /// that is not a regular file of 32 bytes — a link to an endless device, a folder, a file of
    /// another size — is replaced, never read to its end.
    @Test(.tags(.hardening)) func anOpenDirectoryIsRefusedAndAPlantedSecretReplaced() async throws {
        try await Self.withDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
            do {
                _ = try await DiskCacheStorage(directory: directory)
                Issue.record("a directory anyone may write in was used")
            } catch {
                let failure = error as? NetLayerError
                #expect(
                    failure?.code == .fileFailed && failure?.message.contains("Other users can write") == true
                )
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o770], ofItemAtPath: directory.path)
            await #expect(throws: NetLayerError.self, "its group may write in it") {
                _ = try await DiskCacheStorage(directory: directory)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            // A link to a directory of one's own is judged by the directory (a link's own mode is
            // 0777 on Linux).
            let link = directory.deletingLastPathComponent().appendingPathComponent(
                "link-\(UUID().uuidString)")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: directory)
            defer { try? FileManager.default.removeItem(at: link) }
            let linked = try await DiskCacheStorage(directory: link)
            let secret = directory.appendingPathComponent("netlayer-secret")
            #expect(Array(try Data(contentsOf: secret)) == linked.keySecret)
            let plants: [(String, () throws -> Void)] = [
                (
                    "a link to /dev/zero",
                    {
                        try FileManager.default.createSymbolicLink(
                            atPath: secret.path, withDestinationPath: "/dev/zero")
                    }
                ),
                (
                    "a folder",
                    {
                        try FileManager.default.createDirectory(
                            at: secret, withIntermediateDirectories: false)
                    }
                ),
                ("31 bytes", { try Data(count: 31).write(to: secret) }),
            ]
            var secrets: Set<[UInt8]> = []
            for (what, plant) in plants {
                try? FileManager.default.removeItem(at: secret)
                try plant()
                let store = try await DiskCacheStorage(directory: directory)
                #expect(store.keySecret.count == 32, "\(what)")
                secrets.insert(store.keySecret)
                let kept = try Data(contentsOf: secret)
                #expect(Array(kept) == store.keySecret, "\(what) is replaced by the new secret")
            }
            #expect(secrets.count == plants.count)
        }
    }

    @Test(.tags(.hardening)) func aDirectoryThatCannotBeMadeIsATypedError() async throws {
        try await Self.withDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            await #expect(throws: NetLayerError.self) {
                _ = try await DiskCacheStorage(directory: file.appendingPathComponent("cache"))
            }
            do {
                _ = try await HTTPCache(directory: file)
                Issue.record("a file taken for the directory")
            } catch {
                #expect((error as? NetLayerError)?.code == .fileFailed)
            }
        }
    }
}
