import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Errors raised while setting up the loopback server's listening socket.
struct SocketError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32

    init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    /// A value the caller passed that the operation cannot use (`EINVAL`).
    static func invalidArgument(_ operation: String) -> SocketError {
        SocketError(operation, code: EINVAL)
    }

    var description: String {
        "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Thin wrappers over the BSD socket calls the loopback server needs: the testing product's
/// Platform layer, one branch per OS where the headers differ (Glibc imports `SOCK_STREAM` as an
/// enum and has `MSG_NOSIGNAL`; Musl declares both as integers; Darwin has no `MSG_NOSIGNAL` and
/// sets `SO_NOSIGPIPE` on the socket instead). Only IPv4 loopback is ever used.
enum LoopbackSocket {
    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
        private static let peekFlags = Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)
    #elseif canImport(Musl)
        private static let streamType = Int32(SOCK_STREAM)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
        private static let peekFlags = Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)
    #elseif canImport(Darwin)
        private static let streamType = SOCK_STREAM
        private static let sendFlags: Int32 = 0
        private static let peekFlags = MSG_PEEK | MSG_DONTWAIT
    #endif

    /// Creates a socket listening on 127.0.0.1 with a kernel-chosen port. Returns the fd and the port.
    static func makeLoopbackListener(backlog: Int32 = 128) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw SocketError("socket") }
        setCloseOnExec(fd)
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR")
            var address = loopbackAddress(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw SocketError("bind 127.0.0.1:0") }
            guard listen(fd, backlog) == 0 else { throw SocketError("listen") }
            var actual = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &actual) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw SocketError("getsockname") }
            return (fd, Int(UInt16(bigEndian: actual.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }

    /// A blocking client socket connected to 127.0.0.1:`port`. `receiveBufferSize` (SO_RCVBUF) is set
    /// before connecting, so it also bounds the TCP window the peer may fill.
    static func connectLoopback(port: Int, receiveBufferSize: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw SocketError("socket") }
        setCloseOnExec(fd)
        do {
            #if canImport(Darwin)
                try setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1, "SO_NOSIGPIPE")
            #endif
            if let receiveBufferSize {
                try setOption(fd, SOL_SOCKET, SO_RCVBUF, receiveBufferSize, "SO_RCVBUF")
            }
            var address = loopbackAddress(port: UInt16(port))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw SocketError("connect 127.0.0.1:\(port)") }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Makes blocking receives on `fd` fail (EAGAIN) after `timeout` instead of waiting forever.
    static func setReceiveTimeout(_ fd: Int32, _ timeout: Duration) {
        let milliseconds = timeout.loopbackMilliseconds
        var value = timeval()
        value.tv_sec = .init(milliseconds / 1000)
        value.tv_usec = .init((milliseconds % 1000) * 1000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A `sockaddr_in` for 127.0.0.1 and `port` (host byte order).
    static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// Options for an accepted connection: close-on-exec, no SIGPIPE (Darwin; Linux passes
    /// MSG_NOSIGNAL to every send) and no Nagle delay, so dripped bytes leave at once.
    static func configureAccepted(_ fd: Int32) {
        setCloseOnExec(fd)
        setBlocking(fd)
        #if canImport(Darwin)
            try? setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1, "SO_NOSIGPIPE")
        #endif
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "TCP_NODELAY")
    }

    /// Keeps the socket out of child processes (tests spawn curl), so closing it here really closes it.
    static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ label: String) throws
    {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw SocketError("setsockopt \(label)")
        }
    }

    /// Waits until the listener has a pending connection or `wakeFD` becomes readable.
    /// Returns true when a connection can be accepted.
    static func waitForConnection(listener: Int32, wakeFD: Int32) -> Bool {
        var fds = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let result = poll(&fds, nfds_t(fds.count), -1)
            if result < 0 && errno == EINTR { continue }
            if result < 0 { return false }
            if fds[1].revents != 0 { return false }
            return fds[0].revents & Int16(POLLIN) != 0
        }
    }

    /// Accepts one connection; nil on a transient failure (caller loops) — `fatal` says whether to stop.
    static func acceptConnection(_ listener: Int32) -> (fd: Int32?, fatal: Bool) {
        let fd = accept(listener, nil, nil)
        if fd >= 0 { return (fd, false) }
        switch errno {
        case EINTR, ECONNABORTED, EAGAIN, EPROTO:
            return (nil, false)
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
            usleep(10_000)
            return (nil, false)
        default:
            return (nil, true)
        }
    }

    /// Reads up to `buffer.count` bytes. Returns the count, 0 at end of stream, -1 on error.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = recv(fd, base, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Writes all of `bytes`; false when the peer is gone or the socket was shut down.
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var pointer = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            let sent = send(fd, pointer, remaining, sendFlags)
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            pointer += sent
            remaining -= sent
        }
        return true
    }

    static func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { sendAll(fd, $0) }
    }

    /// True when the peer closed (or reset) the connection. Pending request bytes (pipelining) do
    /// not count as closed; nothing is consumed.
    static func peerHasClosed(_ fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 0) > 0 else { return false }
        if pfd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, peekFlags)
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    static func shutdownBoth(_ fd: Int32) { shutdownSocket(fd, how: Int32(SHUT_RDWR)) }

    static func shutdownWrite(_ fd: Int32) { shutdownSocket(fd, how: Int32(SHUT_WR)) }

    private static func shutdownSocket(_ fd: Int32, how: Int32) {
        _ = shutdown(fd, how)
    }

    /// Half-closes, then discards whatever the peer still sends for at most `linger` (the caller
    /// closes the fd afterwards). Avoids the RST that closing with unread input would cause, which
    /// could destroy a response the peer has not read yet.
    static func drainAfterHalfClose(_ fd: Int32, linger: Duration = .milliseconds(500)) {
        shutdownWrite(fd)
        let deadline = ContinuousClock.now + linger
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while ContinuousClock.now < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = max(1, (deadline - ContinuousClock.now).loopbackMilliseconds)
            let ready = poll(&pfd, 1, Int32(left))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { break }
            let count = scratch.withUnsafeMutableBytes { receive(fd, into: $0) }
            if count <= 0 { break }
        }
    }

    static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Accepted sockets inherit O_NONBLOCK from the listener on Darwin; connections use blocking I/O.
    static func setBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    }

    /// Closes a socket or pipe end; an error (the descriptor is gone either way) is ignored.
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #elseif canImport(Musl)
            _ = Musl.close(fd)
        #elseif canImport(Darwin)
            _ = Darwin.close(fd)
        #endif
    }

    /// Writes one byte to the wake pipe's write end (``makeWakePipe()``), which makes the accept
    /// thread's `poll` return.
    static func wake(_ wakeWrite: Int32) {
        var byte: UInt8 = 1
        #if canImport(Glibc)
            _ = Glibc.write(wakeWrite, &byte, 1)
        #elseif canImport(Musl)
            _ = Musl.write(wakeWrite, &byte, 1)
        #elseif canImport(Darwin)
            _ = Darwin.write(wakeWrite, &byte, 1)
        #endif
    }

    /// A pipe used to wake the accept thread. Both ends close-on-exec.
    static func makeWakePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SocketError("pipe") }
        setCloseOnExec(fds[0])
        setCloseOnExec(fds[1])
        return (fds[0], fds[1])
    }
}
