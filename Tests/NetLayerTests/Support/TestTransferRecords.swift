import Foundation
import NetLayer

@testable import NetLayerTesting

/// One request body the server streamed through its `/sink` route (see `TestTransferRoutes`): what
/// arrived, summarised, without the bytes themselves.
struct TestSinkRecord: Sendable {
    /// How many leading and trailing body bytes are kept in `head` and `tail`.
    static let keptBytes = 64 * 1024

    let path: String
    let rawQuery: String?
    let method: String
    let headers: HeaderFields
    /// Body bytes received (de-chunked), also when the body did not arrive whole.
    let length: Int64
    /// `TestChecksum` value of the bytes received.
    let checksum: UInt64
    /// The first `keptBytes` bytes received (fewer when the body was shorter).
    let head: Data
    /// The last `keptBytes` bytes received (fewer when the body was shorter).
    let tail: Data
    /// False when the client went away (or the body was malformed or too large) before it all arrived.
    let complete: Bool
    let connectionID: Int

    /// `checksum` as 16 lowercase hex digits, as in the sink's JSON answer.
    var checksumHex: String { TestChecksum.hex(checksum) }

    /// First value of the header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers[name]
    }
}

/// How far the server got with one `/pattern` or `/firehose` response. Updated after every piece
/// written, so a test can watch it while the response is still going out.
struct TestPatternRecord: Sendable {
    /// Unique per server, in the order the responses started.
    let id: Int
    let path: String
    let rawQuery: String?
    let connectionID: Int
    /// The request's `Range` and `If-Range` headers, as sent.
    let rangeHeader: String?
    let ifRangeHeader: String?
    /// 200, 206 or 416.
    let status: Int
    /// The body length this response announced (0 for HEAD and 416).
    let bodyLength: Int64
    /// Body bytes handed to the socket so far (whole pieces; the kernel may still be holding them).
    var bytesWritten: Int64 = 0
    /// Every byte of the announced body was written.
    var finished = false
    /// The server is done with this response: finished, interrupted, peer gone or server stopped.
    var ended = false
}

/// Accumulates a streamed request body: checksum, length, first and last `TestSinkRecord.keptBytes`.
struct TestSinkAccumulator {
    private(set) var checksum = TestChecksum()
    private(set) var head = Data()
    private var recent = Data()

    mutating func add(_ piece: UnsafeRawBufferPointer) {
        checksum.update(piece)
        let keep = TestSinkRecord.keptBytes
        if head.count < keep {
            Self.append(UnsafeRawBufferPointer(rebasing: piece.prefix(keep - head.count)), to: &head)
        }
        if piece.count >= keep {
            recent = Data()
            Self.append(UnsafeRawBufferPointer(rebasing: piece.suffix(keep)), to: &recent)
        } else {
            Self.append(piece, to: &recent)
            if recent.count > 4 * keep { recent = Data(recent.suffix(keep)) }  // amortised trimming
        }
    }

    private static func append(_ bytes: UnsafeRawBufferPointer, to data: inout Data) {
        bytes.withMemoryRebound(to: UInt8.self) { data.append($0) }
    }

    /// The last `keptBytes` bytes.
    var tail: Data { Data(recent.suffix(TestSinkRecord.keptBytes)) }
}

/// The transfer routes' shared state, kept inside `TestScenarios`.
struct TestTransferLog: Sendable {
    var sinkRecords: [TestSinkRecord] = []
    var patternRecords: [TestPatternRecord] = []
    var nextPatternRecordID = 1
    /// `interruptOnce` keys already used by an interrupted response.
    var usedInterruptKeys: Set<String> = []
}

extension TestScenarios {
    func addSinkRecord(_ record: TestSinkRecord) {
        state.withLock { $0.transfers.sinkRecords.append(record) }
    }

    /// Starts a pattern record; returns its id.
    func beginPatternRecord(
        _ request: RecordedRequest, status: Int, bodyLength: Int64, ended: Bool = false
    ) -> Int {
        state.withLock { shared in
            let id = shared.transfers.nextPatternRecordID
            shared.transfers.nextPatternRecordID += 1
            var record = TestPatternRecord(
                id: id, path: request.path, rawQuery: request.rawQuery, connectionID: request.connectionID,
                rangeHeader: request.header("Range"), ifRangeHeader: request.header("If-Range"),
                status: status, bodyLength: bodyLength)
            record.finished = ended
            record.ended = ended
            shared.transfers.patternRecords.append(record)
            return id
        }
    }

    func updatePatternRecord(id: Int, bytesWritten: Int64, state streamState: TestStreamedBody.State) {
        state.withLock { shared in
            guard let index = shared.transfers.patternRecords.lastIndex(where: { $0.id == id }) else {
                return
            }
            shared.transfers.patternRecords[index].bytesWritten = bytesWritten
            shared.transfers.patternRecords[index].finished = streamState == .finished
            shared.transfers.patternRecords[index].ended = streamState != .writing
        }
    }

    /// True the first time `key` is claimed on this server, false afterwards.
    func claimInterruptKey(_ key: String) -> Bool {
        state.withLock { $0.transfers.usedInterruptKeys.insert(key).inserted }
    }
}
