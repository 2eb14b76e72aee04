import Foundation
import Glibc
import SXKCore
import XCTest

/// A minimal blocking HTTP/1.1 client over one loopback socket, so tests control keep-alive,
/// pipelining and chunked bodies exactly. Every read has a deadline.
final class RawHTTPClient {
    struct Response {
        let status: Int
        let headers: [(String, String)]
        let body: [UInt8]
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSONValue? { try? JSONParser.parse(body) }
        var code: Int? { json?[field: "code"]?.intValue }
        var msg: String? { json?[field: "msg"]?.stringValue }
        var data: JSONValue? { json?[field: "data"] }
    }

    enum ClientError: Error { case connect(Int32), closed, timeout, malformed }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: TimeInterval = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw ClientError.connect(code)
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - floor(timeout)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Receives more bytes; throws `.closed` at end of stream and `.timeout` past the deadline.
    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { buffer.append(contentsOf: chunk[0..<n]); return }
        if n == 0 { throw ClientError.closed }
        throw errno == EAGAIN || errno == EWOULDBLOCK ? ClientError.timeout : ClientError.closed
    }

    /// True when the server closed the connection (reads EOF) within the timeout.
    func readsEOF() -> Bool {
        do {
            while true { try fill() }
        } catch ClientError.closed { return true } catch { return false }
    }

    func readResponse() throws -> Response {
        var headEnd: Int?
        while headEnd == nil {
            if let range = findCRLFCRLF() { headEnd = range } else { try fill() }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeSubrange(0..<(headEnd! + 4))
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError.malformed }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[0..<length])
        buffer.removeSubrange(0..<length)
        return Response(status: status, headers: headers, body: body)
    }

    private func findCRLFCRLF() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    static func requestText(_ method: String, _ target: String, token: String? = nil, body: String? = nil,
                            extraHeaders: [String] = []) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        if let token { text += "token: \(token)\r\n" }
        for header in extraHeaders { text += header + "\r\n" }
        if let body {
            text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        } else {
            text += "\r\n"
        }
        return text
    }

    func request(_ method: String, _ target: String, token: String? = nil, body: String? = nil) throws -> Response {
        send(RawHTTPClient.requestText(method, target, token: token, body: body))
        return try readResponse()
    }
}
