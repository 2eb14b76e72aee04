import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One non-blocking TCP connection speaking HTTP/1.1 (client side): every wait is a `poll`
/// bounded by the request's deadline, and a `CancelSwitch` may shut it down from another thread.
final class PlainConnection: @unchecked Sendable {
    enum Failure: Error {
        case cancelled
        case timedOut
        case refused
        case hostNotFound
        case unreachable(String)
        /// A kept-alive connection closed or reset before the first byte of the answer.
        case staleBeforeResponse
        case lost
        case badResponse(String)
        case truncated(status: Int, received: [UInt8])
        case tooLarge(status: Int, limit: Int)

        func transportError(seconds: TimeInterval) -> TransportError {
            switch self {
            case .cancelled: return .cancelled
            case .timedOut: return .network(.timedOut(seconds: seconds))
            case .refused: return .network(.connectionRefused)
            case .hostNotFound: return .network(.hostNotFound)
            case .unreachable(let why): return .network(.unreachable(why))
            case .staleBeforeResponse, .lost: return .network(.connectionLost)
            case .badResponse(let why): return .network(.other("bad server response (\(why))"))
            case .truncated(let status, let received): return .truncatedBody(status: status, received: received)
            case .tooLarge(let status, let limit): return .bodyTooLarge(status: status, limit: limit)
            }
        }
    }

    private let lock = NSLock()
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// Reused receive buffer (one allocation per connection, not per read).
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    private init(fd: Int32) { self.fd = fd }

    deinit { close() }

    // MARK: connect

    static func connect(host: String, port: Int, deadline: Deadline, cancel: CancelSwitch) throws -> PlainConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw status == EAI_AGAIN ? Failure.unreachable("name resolution failed") : Failure.hostNotFound
        }
        defer { freeaddrinfo(first) }
        var lastFailure = Failure.refused
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            if cancel.isFired { throw Failure.cancelled }
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { continue }
            let connection = PlainConnection(fd: fd)
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            do {
                // Attached while connecting too: a SYN nobody answers would otherwise hold a cancelled
                // request until the deadline (shutting a connecting socket down wakes its poll).
                try cancel.attach(connection)
                defer { cancel.detach() }
                try connection.finishConnect(info.pointee.ai_addr, info.pointee.ai_addrlen, deadline: deadline, cancel: cancel)
                return connection
            } catch let failure as Failure {
                connection.close()
                switch failure {
                case .refused, .unreachable: lastFailure = failure
                default: throw failure
                }
            }
        }
        throw lastFailure
    }

    private func finishConnect(_ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, deadline: Deadline, cancel: CancelSwitch) throws {
        if Glibc.connect(fd, address, length) == 0 { return }
        guard errno == EINPROGRESS else { throw Self.connectFailure(errno) }
        try wait(for: Int16(POLLOUT), deadline: deadline, cancel: cancel)
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size)
        if error != 0 { throw Self.connectFailure(error) }
    }

    private static func connectFailure(_ code: Int32) -> Failure {
        switch code {
        case ECONNREFUSED: return .refused
        case ENETUNREACH, EHOSTUNREACH: return .unreachable(String(cString: strerror(code)))
        case ETIMEDOUT: return .timedOut
        default: return .unreachable(String(cString: strerror(code)))
        }
    }

    // MARK: state

    /// An idle connection may carry the next request when the server has neither closed it nor
    /// sent anything unasked (a readable idle socket means EOF or garbage).
    var isReusable: Bool {
        lock.withLock {
            guard fd >= 0, start == buffer.count else { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&pfd, 1, 0) == 0
        }
    }

    func shutdown() {
        lock.withLock { if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) } }
    }

    func close() {
        lock.withLock {
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }

    private var descriptor: Int32 { lock.withLock { fd } }

    // MARK: I/O

    private func wait(for events: Int16, deadline: Deadline, cancel: CancelSwitch) throws {
        while true {
            if cancel.isFired { throw Failure.cancelled }
            let remaining = deadline.remainingMilliseconds
            if remaining == 0 { throw Failure.timedOut }
            var pfd = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&pfd, 1, remaining)
            if cancel.isFired { throw Failure.cancelled }
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw Failure.lost }
        }
    }

    func write(_ bytes: [UInt8], deadline: Deadline, cancel: CancelSwitch) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(descriptor, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 { offset += sent; continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                try wait(for: Int16(POLLOUT), deadline: deadline, cancel: cancel)
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            if cancel.isFired { throw Failure.cancelled }
            // The server closed a kept-alive connection before we wrote: nothing was received.
            throw Failure.staleBeforeResponse
        }
    }

    /// Reads more bytes into the buffer; false on end of stream.
    private func fill(deadline: Deadline, cancel: CancelSwitch) throws -> Bool {
        let fd = descriptor
        while true {
            let count = scratch.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: scratch[0..<count])
                return true
            }
            if count == 0 {
                if cancel.isFired { throw Failure.cancelled }
                return false
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK: try wait(for: Int16(POLLIN), deadline: deadline, cancel: cancel)
            case EINTR: continue
            default:
                if cancel.isFired { throw Failure.cancelled }
                return false
            }
        }
    }

    /// Reads one response. Returns it and whether the connection may carry another request.
    func readResponse(method: String, limit: Int, deadline: Deadline, cancel: CancelSwitch) throws -> (HTTPResponse, Bool) {
        // Drop what earlier responses consumed; indexes below are only valid within one response.
        buffer.removeFirst(start)
        start = 0
        var head = try readHead(deadline: deadline, cancel: cancel, first: true)
        while (100..<200).contains(head.status) && head.status != 101 {
            head = try readHead(deadline: deadline, cancel: cancel, first: false)
        }
        let connectionHeader = head.headers["Connection"]?.lowercased() ?? ""
        var keepAlive = head.version == "HTTP/1.1" ? !connectionHeader.contains("close") : connectionHeader.contains("keep-alive")
        var body: [UInt8] = []
        if method == "HEAD" || head.status == 204 || head.status == 304 {
            // No body by definition.
        } else if head.headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            body = try readChunked(status: head.status, limit: limit, deadline: deadline, cancel: cancel)
        } else if let lengthText = head.headers["Content-Length"] {
            guard let length = Int(lengthText.trimmingCharacters(in: .whitespaces)), length >= 0 else {
                throw Failure.badResponse("Content-Length '\(lengthText.prefix(20))'")
            }
            // Announced too large: refused before a byte of it is read.
            if length > limit { throw Failure.tooLarge(status: head.status, limit: limit) }
            body = try readExactly(length, status: head.status, deadline: deadline, cancel: cancel)
        } else {
            repeat {
                if buffer.count - start > limit { throw Failure.tooLarge(status: head.status, limit: limit) }
            } while try fill(deadline: deadline, cancel: cancel)
            if buffer.count - start > limit { throw Failure.tooLarge(status: head.status, limit: limit) }
            body = Array(buffer[start...])
            start = buffer.count
            keepAlive = false
        }
        return (HTTPResponse(status: head.status, headers: head.headers, body: body), keepAlive)
    }

    private struct Head {
        var version: String
        var status: Int
        var headers: HTTPHeaders
    }

    private func readHead(deadline: Deadline, cancel: CancelSwitch, first: Bool) throws -> Head {
        var scanFrom = start
        while true {
            if let end = Self.headEnd(buffer, from: max(start, scanFrom - 3)) {
                let head = try Self.parseHead(buffer[start..<end])
                start = end + 4
                return head
            }
            scanFrom = buffer.count
            if buffer.count - start > PlainHTTPTransport.maxHeadBytes { throw Failure.badResponse("head over 64 KB") }
            let nothingYet = buffer.count == start
            guard try fill(deadline: deadline, cancel: cancel) else {
                throw nothingYet && first ? Failure.staleBeforeResponse : Failure.lost
            }
        }
    }

    private static func headEnd(_ bytes: [UInt8], from: Int) -> Int? {
        var i = max(0, from)
        while i + 3 < bytes.count {
            if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// Status line and fields, read from bytes (a head is ASCII; values are decoded leniently).
    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws -> Head {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 10 {
                lines.append(bytes[lineStart..<(i > lineStart && bytes[i - 1] == 13 ? i - 1 : i)])
                lineStart = i + 1
            }
            i += 1
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        let statusLine = lines[0]
        // "HTTP/1.x SSS reason"
        guard statusLine.count >= 12, statusLine.starts(with: Array("HTTP/1.".utf8)), statusLine[statusLine.startIndex + 8] == 32
        else { throw Failure.badResponse("status line '\(String(decoding: statusLine.prefix(40), as: UTF8.self))'") }
        var status = 0
        for byte in statusLine[(statusLine.startIndex + 9)..<(statusLine.startIndex + 12)] {
            guard byte >= 48 && byte <= 57 else { throw Failure.badResponse("status code") }
            status = status * 10 + Int(byte - 48)
        }
        guard status >= 100, statusLine.count == 12 || statusLine[statusLine.startIndex + 12] == 32 else { throw Failure.badResponse("status code") }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: 58) else { throw Failure.badResponse("header line without ':'") }
            headers.append(trimmed(line[line.startIndex..<colon]), trimmed(line[(colon + 1)...]))
        }
        let version = statusLine[statusLine.startIndex + 7] == 49 ? "HTTP/1.1" : "HTTP/1.0"
        return Head(version: version, status: status, headers: headers)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        var slice = bytes
        while let first = slice.first, first == 32 || first == 9 { slice = slice.dropFirst() }
        while let last = slice.last, last == 32 || last == 9 { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    private func readExactly(_ length: Int, status: Int, deadline: Deadline, cancel: CancelSwitch) throws -> [UInt8] {
        while buffer.count - start < length {
            guard try fill(deadline: deadline, cancel: cancel) else {
                throw Failure.truncated(status: status, received: Array(buffer[start...]))
            }
        }
        let body = Array(buffer[start..<(start + length)])
        start += length
        return body
    }

    private func readLine(status: Int, received: [UInt8], deadline: Deadline, cancel: CancelSwitch) throws -> String {
        while true {
            if let end = buffer[start...].firstIndex(of: 10) {
                var line = buffer[start..<end]
                if line.last == 13 { line = line.dropLast() }
                start = end + 1
                return String(decoding: line, as: UTF8.self)
            }
            if buffer.count - start > PlainHTTPTransport.maxHeadBytes { throw Failure.badResponse("chunk line over 64 KB") }
            guard try fill(deadline: deadline, cancel: cancel) else { throw Failure.truncated(status: status, received: received) }
        }
    }

    private func readChunked(status: Int, limit: Int, deadline: Deadline, cancel: CancelSwitch) throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine(status: status, received: body, deadline: deadline, cancel: cancel)
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { throw Failure.badResponse("chunk size '\(sizeText.prefix(20))'") }
            if size > limit - body.count { throw Failure.tooLarge(status: status, limit: limit) }
            if size == 0 {
                // Trailer fields up to the empty line.
                while try !readLine(status: status, received: body, deadline: deadline, cancel: cancel).isEmpty {}
                return body
            }
            while buffer.count - start < size + 2 {
                guard try fill(deadline: deadline, cancel: cancel) else {
                    throw Failure.truncated(status: status, received: body + buffer[start...].prefix(size))
                }
            }
            body.append(contentsOf: buffer[start..<(start + size)])
            start += size + 2
        }
    }
}
