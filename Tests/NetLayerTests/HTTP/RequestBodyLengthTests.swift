import Foundation
import Testing

@testable import NetLayer

/// Body lengths add up without overflowing: too long together is a typed error, a range too long for
/// `Int64` has a saturated length.
@Suite("Request body lengths never overflow", .tags(.hardening))
struct RequestBodyLengthTests {
    @Test(.tags(.hardening)) func segmentsLongerThanInt64TogetherAreRefused() throws {
        // A sparse file of 2^62 bytes: no disk space is used (tmpfs, APFS, XFS allow it).
        let directory =
            FileManager.default.fileExists(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let file = directory.appendingPathComponent("netlayer-sparse-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let half = Int64.max / 2 + 1
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(half))
        try handle.close()

        let error = #expect(throws: NetLayerError.self) {
            try RequestBody(segments: [.file(file, range: 0..<half), .file(file, range: 0..<half)])
        }
        #expect(error?.code == .encodingFailed)
        // One such segment is fine: its length is exact.
        #expect(try RequestBody(segments: [.file(file, range: 0..<half)]).length == half)
        // Two file parts of a multipart call: refused before anything is sent.
        let multipart = #expect(throws: NetLayerError.self) {
            _ = try MultipartEncoder().body(fields: [], files: ["a": .file(file), "b": .file(file)])
        }
        #expect(multipart?.code == .encodingFailed)
    }

    @Test(.tags(.hardening)) func aFileRangeTooLongForInt64HasASaturatedLength() {
        let url = URL(fileURLWithPath: "/nonexistent")
        #expect(RequestBody.Segment.file(url, range: Int64.min..<Int64.max).length == .max)
        #expect(RequestBody.Segment.file(url, range: 5..<9).length == 4)
    }
}
