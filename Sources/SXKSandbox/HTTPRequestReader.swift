import Glibc

/// Reads HTTP/1.1 requests one after another from a socket (keep-alive), with Content-Length or
/// chunked bodies and size limits.
final class HTTPRequestReader {
    enum ReadError: Error {
        /// The peer closed (or the server shut the socket) between or inside requests.
        case closed
        case headerTooLarge
        case bodyTooLarge
        case malformed(String)
        case unsupportedVersion
    }

    private let fd: Int32
    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    /// Called once before reading a body when the client sent `Expect: 100-continue`.
    var sendContinue: () -> Void = {}

    init(fd: Int32, maxHeaderBytes: Int, maxBodyBytes: Int) {
        self.fd = fd
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    private var available: Int { buffer.count - position }

    /// Receives more bytes; throws `.closed` at end of stream or on error.
    private func fill() throws(ReadError) {
        if position > 0 && position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            position = 0
        } else if position > 32 * 1024 {
            buffer.removeSubrange(0..<position)
            position = 0
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return
            }
            if n < 0 && errno == EINTR { continue }
            throw .closed
        }
    }

    /// Index just past the first CRLF at or after `position`, filling as needed up to `limit` bytes.
    private func lineEnd(limit: Int) throws(ReadError) -> Int {
        // `fill()` may compact the buffer, so the scan point is kept relative to `position`.
        var scanned = 0
        while true {
            var scan = position + scanned
            while scan + 1 < buffer.count {
                if buffer[scan] == 0x0D && buffer[scan + 1] == 0x0A { return scan + 2 }
                scan += 1
            }
            scanned = scan - position
            if buffer.count - position > limit { throw .headerTooLarge }
            try fill()
        }
    }

    private func readLine(limit: Int) throws(ReadError) -> String {
        let end = try lineEnd(limit: limit)
        let line = String(decoding: buffer[position..<(end - 2)], as: UTF8.self)
        position = end
        return line
    }

    private func readBytes(_ count: Int) throws(ReadError) -> [UInt8] {
        while available < count { try fill() }
        let bytes = Array(buffer[position..<(position + count)])
        position += count
        return bytes
    }

    /// Discards whatever arrives until the peer closes (the `hang` fault).
    func drainUntilClosed() {
        while true {
            position = buffer.count
            do { try fill() } catch { return }
        }
    }

    /// The next request on the connection.
    func next() throws(ReadError) -> HTTPRequest {
        // Tolerate stray CRLFs between requests (RFC 9112 §2.2).
        var requestLine = try readLine(limit: maxHeaderBytes)
        while requestLine.isEmpty { requestLine = try readLine(limit: maxHeaderBytes) }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else { throw .malformed("bad request line") }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .unsupportedVersion }

        var headers: [(name: String, value: String)] = []
        var headerBytes = requestLine.utf8.count
        while true {
            let line = try readLine(limit: maxHeaderBytes)
            if line.isEmpty { break }
            headerBytes += line.utf8.count + 2
            if headerBytes > maxHeaderBytes || headers.count > 200 { throw .headerTooLarge }
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("bad header line") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].sandboxTrimmed(" \t")
            headers.append((name, value))
        }
        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

        let connection = header("connection")?.lowercased() ?? ""
        let keepAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")

        var body: [UInt8] = []
        if let encoding = header("transfer-encoding")?.lowercased(), encoding != "identity" {
            guard encoding.hasSuffix("chunked") else { throw .malformed("unsupported transfer-encoding") }
            if header("expect")?.lowercased() == "100-continue" { sendContinue() }
            body = try readChunkedBody()
        } else if let lengthText = header("content-length") {
            guard let length = Int(lengthText), length >= 0 else { throw .malformed("bad content-length") }
            guard length <= maxBodyBytes else { throw .bodyTooLarge }
            if length > 0 && available < length && header("expect")?.lowercased() == "100-continue" { sendContinue() }
            body = try readBytes(length)
        }

        let path: String
        let rawQuery: String
        if let question = target.firstIndex(of: "?") {
            path = String(target[..<question])
            rawQuery = String(target[target.index(after: question)...])
        } else {
            path = target
            rawQuery = ""
        }
        let decodedPath = HTTPRequest.percentDecode(Substring(path))
        return HTTPRequest(
            method: method, path: decodedPath, rawQuery: rawQuery, query: HTTPRequest.parseQuery(rawQuery),
            headers: headers, body: body, keepAlive: keepAlive)
    }

    private func readChunkedBody() throws(ReadError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try readLine(limit: 1024)
            let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first.map { $0.sandboxTrimmed(" \t") } ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { throw .malformed("bad chunk size") }
            if size == 0 {
                // Trailer fields until the empty line.
                while try !readLine(limit: maxHeaderBytes).isEmpty {}
                return body
            }
            guard body.count + size <= maxBodyBytes else { throw .bodyTooLarge }
            body.append(contentsOf: try readBytes(size))
            let crlf = try readBytes(2)
            guard crlf == [0x0D, 0x0A] else { throw .malformed("chunk not followed by CRLF") }
        }
    }
}

extension StringProtocol {
    /// Trims the given ASCII characters from both ends.
    func sandboxTrimmed(_ set: String) -> String {
        let drop = Set(set)
        var slice = Substring(self)
        while let first = slice.first, drop.contains(first) { slice.removeFirst() }
        while let last = slice.last, drop.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
