import Foundation
#if canImport(Glibc)
import Glibc
#endif

private final class UsedPorts: @unchecked Sendable {
    private let lock = NSLock()
    private var ports: Set<UInt16> = []
    /// True when `port` was not used before (and records it).
    func claim(_ port: UInt16) -> Bool { lock.withLock { ports.insert(port).inserted } }
}

/// A tiny raw-socket HTTP/1.1 server on 127.0.0.1 for transport tests: it records what it
/// receives and answers each request with a scripted action (respond, hang, trickle).
final class LoopbackTestServer: @unchecked Sendable {
    struct Received: Sendable {
        var method: String
        var target: String
        var headers: [(String, String)]
        var body: [UInt8]
        var connection: Int
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    enum Action: Sendable {
        case respond(status: Int, headers: [(String, String)], body: [UInt8])
        /// No Content-Length: the body runs until the server closes the connection (the client cannot know its size first).
        case respondUntilClose(status: Int, body: [UInt8])
        /// Read nothing more, answer nothing, until the client closes the connection.
        case hang
        /// Send the head with `Content-Length: count`, then one byte every `interval` seconds.
        case trickle(count: Int, interval: TimeInterval)
        /// Write these bytes as the whole answer; then close the connection if `close`.
        case raw([UInt8], close: Bool)
        /// Write `head`, then `unit` again and again (pausing `interval` seconds between) until the
        /// client goes away or 30 s pass: endless 1xx answers, trailers, drips, compression bombs.
        case endless(head: [UInt8], unit: [UInt8], interval: TimeInterval)

        static func json(_ text: String, status: Int = 200) -> Action {
            .respond(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
        }
    }

    let port: UInt16
    private let listenFD: Int32
    private let handler: @Sendable (Received) -> Action
    private let lock = NSLock()
    private var _requests: [Received] = []
    private var _connections = 0
    private var _closedByPeer = 0
    private var openFDs: Set<Int32> = []
    private var stopped = false

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var requests: [Received] { lock.withLock { _requests } }
    var connectionCount: Int { lock.withLock { _connections } }
    /// Connections on which the server was hanging and then saw the client close.
    var closedByPeerWhileHanging: Int { lock.withLock { _closedByPeer } }

    /// Ports an earlier server of this process listened on. The process has one libcurl engine whose
    /// connection cache outlives a test; a new server on a port the kernel hands out again could be
    /// answered through a connection kept from the old one (a trickle test once got a 200 in 2 ms).
    private static let usedPorts = UsedPorts()

    init(handler: @escaping @Sendable (Received) -> Action) throws {
        self.handler = handler
        var attempt = try Self.listen(backlog: 64)
        var refused: [Int32] = []
        while !Self.usedPorts.claim(attempt.port), refused.count < 50 {
            refused.append(attempt.fd)  // held open until a fresh port is found, so it is not handed out again
            attempt = try Self.listen(backlog: 64)
        }
        for fd in refused { close(fd) }
        (listenFD, port) = attempt
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A listening socket on 127.0.0.1 at a free port.
    static func listen(backlog: Int32) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &out) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return (fd, UInt16(bigEndian: out.sin_port))
    }

    func stop() {
        let fds: Set<Int32>? = lock.withLock {
            if stopped { return nil }
            stopped = true
            return openFDs
        }
        guard let fds else { return }
        shutdown(listenFD, Int32(SHUT_RDWR))
        close(listenFD)
        for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }

    /// Waits (polling) until `condition` holds or `timeout` passes.
    func waitUntil(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if lock.withLock({ stopped }) { return }
                if errno == EINTR { continue }
                return
            }
            let id: Int = lock.withLock {
                _connections += 1
                openFDs.insert(client)
                return _connections
            }
            let thread = Thread { [self] in serve(client, id: id) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32, id: Int) {
        defer {
            close(fd)
            lock.withLock { _ = openFDs.remove(fd) }
        }
        var buffer: [UInt8] = []
        while true {
            guard let request = readRequest(fd, buffer: &buffer, connection: id) else { return }
            lock.withLock { _requests.append(request) }
            switch handler(request) {
            case .respond(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\n"
                for (n, v) in headers { head += "\(n): \(v)\r\n" }
                // A scripted Content-Length larger than the body plus `Connection: close` makes a cut-off body.
                if !headers.contains(where: { $0.0.lowercased() == "content-length" }) { head += "Content-Length: \(body.count)\r\n" }
                head += "\r\n"
                guard write(fd, Array(head.utf8) + body) else { return }
                if headers.contains(where: { $0.0.lowercased() == "connection" && $0.1 == "close" }) { return }
            case .respondUntilClose(let status, let body):
                let head = "HTTP/1.1 \(status) OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
                _ = write(fd, Array(head.utf8) + body)
                return
            case .hang:
                waitForPeerClose(fd)
                return
            case .raw(let bytes, let close):
                guard write(fd, bytes), !close else { return }
            case .endless(let head, let unit, let interval):
                guard write(fd, head) else { return }
                let end = Date().addingTimeInterval(30)
                while Date() < end, !lock.withLock({ stopped }) {
                    if interval > 0 { usleep(useconds_t(interval * 1_000_000)) }
                    guard write(fd, unit) else { return }
                }
                return
            case .trickle(let count, let interval):
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(count)\r\n\r\n"
                guard write(fd, Array(head.utf8)) else { return }
                for _ in 0..<count {
                    usleep(useconds_t(interval * 1_000_000))
                    guard write(fd, [UInt8(ascii: " ")]) else { return }
                }
            }
        }
    }

    private func waitForPeerClose(_ fd: Int32) {
        let deadline = Date().addingTimeInterval(20)
        var byte: UInt8 = 0
        while Date() < deadline, !lock.withLock({ stopped }) {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 50)
            if ready > 0 {
                let n = recv(fd, &byte, 1, 0)
                if n <= 0 {
                    lock.withLock { _closedByPeer += 1 }
                    return
                }
            }
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func readRequest(_ fd: Int32, buffer: inout [UInt8], connection: Int) -> Received? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = find(separator, in: buffer)
            if headEnd != nil { break }
            guard readMore(fd, into: &buffer) else { return nil }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        let headers: [(String, String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        while buffer.count < length {
            guard readMore(fd, into: &buffer) else { return nil }
        }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return Received(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body, connection: connection)
    }

    private func readMore(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}
