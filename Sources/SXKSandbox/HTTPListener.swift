import Dispatch
import FoundationEssentials
import Glibc
import SXKCore

/// A loopback HTTP/1.1 server: one thread accepts, one thread serves each connection (blocking
/// sockets, keep-alive). `stop()` closes the listener and every connection and waits for all threads.
final class HTTPListener: @unchecked Sendable {
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    private let lock = Lock()
    private var listenFD: Int32 = -1
    private var connections: Set<Int32> = []
    private var stopping = false
    private let threads = DispatchGroup()
    private let handler: Handler
    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private let maxConnections: Int
    private let idleTimeout: TimeInterval
    private(set) var port: Int = 0

    init(maxHeaderBytes: Int, maxBodyBytes: Int, maxConnections: Int, idleTimeout: TimeInterval, handler: @escaping Handler) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.handler = handler
    }

    var isStopping: Bool { lock.withLock { stopping } }

    /// Binds `host:port` (loopback, already checked) and starts accepting.
    func start(host: String, port requested: Int) throws(SandboxError) {
        signal(SIGPIPE, SIG_IGN)
        let ipv6 = host.contains(":")
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .socket("socket() failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))

        var bound: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(requested).bigEndian)
            address.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(requested).bigEndian)
            address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .socket("cannot bind \(host):\(requested): \(reason)")
        }
        guard listen(fd, 512) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .socket("listen() failed: \(reason)")
        }
        port = HTTPListener.boundPort(fd, ipv6: ipv6)
        lock.withLock { listenFD = fd }
        threads.enter()
        let created = DetachedThread.start(name: "sandbox-accept") { [self] in
            acceptLoop(fd)
            close(fd)
            threads.leave()
        }
        guard created == 0 else {
            lock.withLock { listenFD = -1 }
            close(fd)
            threads.leave()
            throw .socket("cannot start the accepting thread: \(String(cString: strerror(created)))")
        }
    }

    private static func boundPort(_ fd: Int32, ipv6: Bool) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return withUnsafePointer(to: &storage) { pointer in
            if ipv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    private func acceptLoop(_ fd: Int32) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if isStopping { return }
                if errno == EMFILE || errno == ENFILE { usleep(10_000); continue }
                return
            }
            let admitted: Bool = lock.withLock {
                if stopping { return false }
                if connections.count >= maxConnections { return false }
                connections.insert(client)
                return true
            }
            if !admitted {
                if !isStopping {
                    let busy = HTTPResponse.envelope(code: SandboxCode.serverError, msg: "连接过多", status: 503)
                    HTTPListener.send(client, busy.head(keepAlive: false) + busy.body)
                }
                close(client)
                continue
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var timeout = timeval(tv_sec: Int(idleTimeout), tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            threads.enter()
            let created = DetachedThread.start(name: "sandbox-conn", stackSize: 512 * 1024) { [self] in
                serve(client)
                lock.withLock {
                    connections.remove(client)
                    close(client)
                }
                threads.leave()
            }
            if created != 0 {
                // No thread to serve it: the client sees the connection closed, as when over the limit.
                lock.withLock {
                    connections.remove(client)
                    close(client)
                }
                threads.leave()
            }
        }
    }

    /// Serves requests on one connection until it closes, fails, or the server stops.
    private func serve(_ fd: Int32) {
        let reader = HTTPRequestReader(fd: fd, maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
        reader.sendContinue = { HTTPListener.send(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
        while !isStopping {
            let request: HTTPRequest
            do {
                request = try reader.next()
            } catch {
                let response: HTTPResponse
                switch error {
                case .closed: return
                case .headerTooLarge:
                    response = .envelope(code: SandboxCode.tooLarge, msg: "请求头过大", status: 431)
                case .bodyTooLarge:
                    response = .envelope(code: SandboxCode.tooLarge, msg: "请求体过大", status: 413)
                case .malformed(let reason):
                    response = .envelope(code: SandboxCode.badRequest, msg: "请求格式错误: \(reason)", status: 400)
                case .unsupportedVersion:
                    response = .envelope(code: SandboxCode.badRequest, msg: "不支持的 HTTP 版本", status: 505)
                }
                HTTPListener.send(fd, response.head(keepAlive: false) + response.body)
                return
            }
            var response = handler(request)
            if request.method == "HEAD" { response.body = [] }
            switch response.delivery {
            case .hang:
                reader.drainUntilClosed()
                return
            case .truncated(let count):
                let head = response.head(keepAlive: false)
                HTTPListener.send(fd, head + response.body.prefix(count))
                return
            case .raw:
                HTTPListener.send(fd, response.body)
                return
            case .normal:
                let keepAlive = request.keepAlive && !response.close && !isStopping
                guard HTTPListener.send(fd, response.head(keepAlive: keepAlive) + response.body), keepAlive else { return }
            }
        }
    }

    /// Writes all bytes; false when the peer is gone.
    @discardableResult
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        return bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                return false
            }
            return true
        }
    }

    /// Closes the listener and every connection, then waits (up to `timeout`) for all threads.
    func stop(timeout: TimeInterval = 10) {
        let fd: Int32 = lock.withLock {
            stopping = true
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
            let fd = listenFD
            listenFD = -1
            return fd
        }
        // The accept thread wakes with an error and closes the descriptor itself.
        if fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
        _ = threads.wait(timeout: .now() + timeout)
    }
}
