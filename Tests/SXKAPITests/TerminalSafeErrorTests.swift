import Foundation
import SXKCore
import XCTest
@testable import SXKAPI

/// Error lines and `--trace` text quote the server; every quoted part must be inert on a terminal.
final class TerminalSafeErrorTests: XCTestCase {
    static let hostile = "x\u{1B}]52;c;aGk=\u{07}\u{1B}[2J\u{9B}31m\u{9D}0;t\u{07}\u{202E}\ny"

    static func assertInert(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let bad = text.unicodeScalars.filter { TerminalText.isControl($0) }
        XCTAssertTrue(bad.isEmpty, "raw controls in \(text.debugDescription)", file: file, line: line)
    }

    func testEveryAPIErrorCaseQuotesServerTextSafely() {
        let r = RequestLabel(method: "GET", path: "/p" + Self.hostile, status: 500)
        let errors: [APIError] = [
            .serverCode(code: "1" + Self.hostile, msg: Self.hostile, request: r),
            .sessionExpired(ExpiryCause(code: "1" + Self.hostile, message: Self.hostile), request: r),
            .sessionExpired(ExpiryCause(code: nil, message: Self.hostile), request: r),
            .http(status: 500, excerpt: Self.hostile, request: r),
            .notJSON(status: 502, reason: Self.hostile, excerpt: Self.hostile, request: r),
            .unreadable(reason: "status line '\(Self.hostile)'", request: r),
            .network(.tls(Self.hostile), request: r),
            .network(.unreachable(Self.hostile), request: r),
            .cancelled(request: r),
            .insecureURL(url: Self.hostile),
            .invalidURL(Self.hostile, reason: Self.hostile),
            .redirectRefused(location: Self.hostile, request: r),
        ]
        for error in errors {
            Self.assertInert(error.description)
        }
        XCTAssertEqual(APIError.serverCode(code: "7", msg: "坏\u{9B}了", request: RequestLabel(method: "GET", path: "/a")).description,
                       "GET /a: server error 7: 坏\\u009b了")
    }

    func testTraceLinesAreInert() {
        var headers = HTTPHeaders()
        headers.append("X-Note", Self.hostile)
        let response = TraceResponse(method: "GET", url: "http://h/p", path: "/p" + Self.hostile, status: 200, elapsedMs: 1,
                                     headers: headers, bodyExcerpt: Self.hostile, failure: nil)
        let text = response.description
        XCTAssertEqual(text.split(separator: "\n").count, 3, text)
        for line in text.split(separator: "\n") { Self.assertInert(String(line)) }
        let failed = TraceResponse(method: "GET", url: "u", path: "/p", status: nil, elapsedMs: 1, headers: HTTPHeaders(),
                                   bodyExcerpt: "", failure: Self.hostile)
        Self.assertInert(failed.description)
        let request = TraceRequest(method: "POST", url: "http://h/p?q=" + Self.hostile, path: "/p", headers: headers, bodyExcerpt: Self.hostile)
        XCTAssertEqual(request.description.split(separator: "\n").count, 3)
        for line in request.description.split(separator: "\n") { Self.assertInert(String(line)) }
    }
}
