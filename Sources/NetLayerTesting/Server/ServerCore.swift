import Foundation

/// Everything the server's threads share; only touched under `ServerCore.state`'s lock.
struct ServerState: Sendable {
    var requests: [RecordedRequest] = []
    var routes: [String: @Sendable (RecordedRequest) -> LoopbackResponse] = [:]
    /// Open connections: id -> fd. A connection thread removes its entry before closing the fd,
    /// so `stop()` may shut down any fd listed here without racing a close (and fd reuse).
    var connections: [Int: Int32] = [:]
    var nextConnectionID = 1
    var acceptedConnections = 0
    var rejectedRequests = 0
    var stopping = false
    var acceptLoopDone = false
    /// Listener and wake-pipe write end; nil once the accept thread closed them.
    var listenerFD: Int32?
    var wakeWriteFD: Int32?
}

/// Request bodies the server hands on piece by piece instead of holding them (NetLayer's own
/// transfer tests send gigabytes). Internal: installed through `@testable import`.
struct BodyStreaming: Sendable {
    /// The most bytes accepted when the body of a request to `path` is streamed; `nil`: the body
    /// is read whole as usual.
    var limit: @Sendable (_ path: String) -> Int64?
    /// Starts one streamed body: the consumer of its pieces, on the connection's thread.
    var start: @Sendable (_ head: RequestHead, _ connectionID: Int) -> any StreamedRequestBody
}

/// One streamed request body, fed on its connection's thread.
protocol StreamedRequestBody: AnyObject {
    /// The next piece of the body.
    func consume(_ piece: UnsafeRawBufferPointer)
    /// The body ended, complete or not (the client hung up, it was malformed or too long). Returns
    /// the answer for a complete body; the request is recorded with an empty body.
    func end(complete: Bool) -> @Sendable (RecordedRequest) -> LoopbackResponse
}

/// The part of the server its threads hold on to (so `LoopbackServer.deinit` can still run and
/// stop it).
final class ServerCore: Sendable {
    let state: Locked<ServerState>
    /// The listening port on 127.0.0.1.
    let port: Int
    let maxBodyBytes: Int
    let fallback: @Sendable (RecordedRequest) -> LoopbackResponse
    let bodyStreaming: BodyStreaming?

    init(
        maxBodyBytes: Int, fallback: @escaping @Sendable (RecordedRequest) -> LoopbackResponse,
        bodyStreaming: BodyStreaming?, port: Int, listener: Int32, wakeWrite: Int32
    ) {
        self.port = port
        var shared = ServerState()
        shared.listenerFD = listener
        shared.wakeWriteFD = wakeWrite
        self.state = Locked(shared)
        self.maxBodyBytes = maxBodyBytes
        self.fallback = fallback
        self.bodyStreaming = bodyStreaming
    }

    func runAcceptLoop(listener: Int32, wakeRead: Int32) {
        LoopbackSocket.setNonBlocking(listener)
        while LoopbackSocket.waitForConnection(listener: listener, wakeFD: wakeRead) {
            let accepted = LoopbackSocket.acceptConnection(listener)
            if accepted.fatal { break }
            guard let fd = accepted.fd else { continue }
            LoopbackSocket.configureAccepted(fd)
            let id: Int? = state.withLock { shared in
                guard !shared.stopping else { return nil }
                let id = shared.nextConnectionID
                shared.nextConnectionID += 1
                shared.acceptedConnections += 1
                shared.connections[id] = fd
                return id
            }
            guard let id else {
                LoopbackSocket.close(fd)
                break
            }
            let thread = Thread { [self] in
                ServerConnection(core: self, fd: fd, id: id).run()
            }
            thread.name = "LoopbackServer.connection.\(id)"
            thread.start()
        }
        state.withLock { shared in
            LoopbackSocket.close(listener)
            LoopbackSocket.close(wakeRead)
            if let wakeWrite = shared.wakeWriteFD { LoopbackSocket.close(wakeWrite) }
            shared.listenerFD = nil
            shared.wakeWriteFD = nil
            shared.acceptLoopDone = true
        }
    }

    func stop() {
        state.withLock { shared in
            guard !shared.stopping else { return }
            shared.stopping = true
            if let listener = shared.listenerFD { LoopbackSocket.shutdownBoth(listener) }
            if let wakeWrite = shared.wakeWriteFD { LoopbackSocket.wake(wakeWrite) }
            for fd in shared.connections.values { LoopbackSocket.shutdownBoth(fd) }
        }
        state.wait(timeout: .seconds(2)) { $0.acceptLoopDone && $0.connections.isEmpty }
    }

    /// Sleeps for `duration` unless the server stops first; returns false when it stopped.
    func sleep(_ duration: Duration) -> Bool {
        !state.wait(timeout: duration) { $0.stopping }
    }
}
