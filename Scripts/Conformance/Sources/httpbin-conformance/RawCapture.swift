import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-request-per-connection HTTP/1.1 server on 127.0.0.1 that records the exact bytes it
/// receives and answers `200 {}`.
///
/// httpbin (werkzeug) decodes the path and re-quotes the query before showing them, so it cannot tell
/// `%2F` from `/` or `%5B` from `[`; the few byte-exact checks of the run use this server instead.
final class RawCapture: @unchecked Sendable {
    struct Request: Sendable {
        /// `METHOD target HTTP/1.1`
        var requestLine: String
        /// Header lines exactly as received, in order.
        var headers: [(name: String, value: String)]
        /// The body, de-chunked if it came chunked.
        var body: Data
        /// Whether it came with `Transfer-Encoding: chunked`.
        var chunked: Bool

        var target: String {
            let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
            return parts.count >= 2 ? String(parts[1]) : ""
        }

        /// All values of a header, name compared case-insensitively.
        func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        /// The request as one readable line.
        var shown: String {
            var head = requestLine + "\r\n"
            for field in headers { head += "\(field.name): \(field.value)\r\n" }
            head += "\r\n"
            return showBytes(Data(head.utf8) + body, limit: 1500)
        }
    }

    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var received: [Request] = []

    init() throws {
        #if os(Linux)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw CaptureError("socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw CaptureError("bind/listen on 127.0.0.1 failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "raw-capture"
        thread.start()
    }

    /// The request received last, removed from the record.
    func takeLast() -> Request? {
        lock.lock()
        defer { lock.unlock() }
        return received.popLast()
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            serve(connection)
            close(connection)
        }
    }

    /// Reads one request, records it, then answers: recording first, so a client that has its
    /// answer always finds its request recorded.
    private func serve(_ connection: Int32) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        func readMore() -> Bool {
            let count = read(connection, &chunk, chunk.count)
            if count <= 0 { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let found = Self.find(separator, in: buffer) {
                headEnd = found
                break
            }
            if !readMore() { return }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst()
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            headers.append((name, value))
        }
        func header(_ name: String) -> String? {
            headers.first(where: { $0.name.lowercased() == name })?.value
        }
        if header("expect")?.lowercased() == "100-continue" {
            send(connection, "HTTP/1.1 100 Continue\r\n\r\n")
        }
        var rest = Array(buffer[(headEnd! + 4)...])
        var body: [UInt8] = []
        let chunked = header("transfer-encoding")?.lowercased().contains("chunked") ?? false
        if chunked {
            // chunk-size CRLF data CRLF ... 0 CRLF CRLF
            while true {
                while Self.find([13, 10], in: rest) == nil {
                    let count = read(connection, &chunk, chunk.count)
                    if count <= 0 { return }
                    rest.append(contentsOf: chunk[0..<count])
                }
                let lineEnd = Self.find([13, 10], in: rest)!
                let sizeText =
                    String(decoding: rest[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
                while rest.count < lineEnd + 2 + size + 2 {
                    let count = read(connection, &chunk, chunk.count)
                    if count <= 0 { return }
                    rest.append(contentsOf: chunk[0..<count])
                }
                if size == 0 { break }
                body.append(contentsOf: rest[(lineEnd + 2)..<(lineEnd + 2 + size)])
                rest.removeFirst(lineEnd + 2 + size + 2)
            }
        } else {
            let length = Int(header("content-length") ?? "0") ?? 0
            while rest.count < length {
                let count = read(connection, &chunk, chunk.count)
                if count <= 0 { break }
                rest.append(contentsOf: chunk[0..<count])
            }
            body = Array(rest.prefix(length))
        }
        let request = Request(requestLine: requestLine, headers: headers, body: Data(body), chunked: chunked)
        lock.lock()
        received.append(request)
        lock.unlock()
        let isHead = requestLine.hasPrefix("HEAD ")
        send(
            connection,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n"
                + (isHead ? "" : "{}"))
    }

    private func send(_ connection: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && Array(haystack[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }
}

struct CaptureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
