import Foundation

@testable import NetLayerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP client on 127.0.0.1 for wire-level tests that must misbehave in ways URLSession
/// will not: send half a body and hang up, stop reading, read exactly N bytes. Every receive gives
/// up after `receiveTimeout`. Use from one task only; closes its socket on `close()` or deinit.
final class TestRawClient {
    private(set) var fd: Int32
    private var pending = Data()

    /// Connects to the server. `receiveBufferSize` (SO_RCVBUF) bounds how much the server can push
    /// before its `send` blocks.
    init(
        server: TestServer, receiveBufferSize: Int32? = nil, receiveTimeout: Duration = .seconds(5)
    ) throws {
        fd = try LoopbackSocket.connectLoopback(port: server.port, receiveBufferSize: receiveBufferSize)
        LoopbackSocket.setReceiveTimeout(fd, receiveTimeout)
    }

    deinit {
        close()
    }

    /// Sends all of `data`; false when the connection is gone.
    @discardableResult
    func send(_ data: Data) -> Bool {
        fd >= 0 && LoopbackSocket.sendAll(fd, data)
    }

    @discardableResult
    func send(_ text: String) -> Bool {
        send(Data(text.utf8))
    }

    /// Reads up to the end of a response head (`\r\n\r\n`); returns its text, nil on EOF/timeout.
    /// Bytes after the head are kept for `read(_:)`.
    func readHead() -> String? {
        let terminator = Data("\r\n\r\n".utf8)
        while true {
            if let end = pending.range(of: terminator) {
                let head = pending[..<end.upperBound]
                pending = Data(pending[end.upperBound...])
                return String(decoding: head, as: UTF8.self)
            }
            guard receiveMore() else { return nil }
        }
    }

    /// Reads up to `count` bytes (buffered ones first, else one receive); empty at EOF or timeout.
    func read(_ count: Int) -> Data {
        if pending.isEmpty, !receiveMore() { return Data() }
        let piece = pending.prefix(count)
        pending = Data(pending.dropFirst(piece.count))
        return Data(piece)
    }

    /// Reads until `count` bytes arrived or the stream ends; returns what arrived.
    func readExactly(_ count: Int) -> Data {
        var data = Data()
        while data.count < count {
            let piece = read(count - data.count)
            if piece.isEmpty { break }
            data.append(piece)
        }
        return data
    }

    /// Closes the socket (a FIN, or a RST when unread bytes are pending). Idempotent.
    func close() {
        guard fd >= 0 else { return }
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
        fd = -1
    }

    private func receiveMore() -> Bool {
        guard fd >= 0 else { return false }
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        let count = scratch.withUnsafeMutableBytes { LoopbackSocket.receive(fd, into: $0) }
        guard count > 0 else { return false }
        pending.append(contentsOf: scratch[0..<count])
        return true
    }
}
