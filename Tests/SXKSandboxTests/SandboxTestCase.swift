import Foundation
import SXKCore
import XCTest
@testable import SXKSandbox

/// Starts a sandbox per test and offers one-line calls over real loopback HTTP.
class SandboxTestCase: XCTestCase {
    var server: SandboxServer!
    var port: Int { server.port! }

    func makeConfig() -> SandboxConfig { SandboxConfig() }

    override func setUpWithError() throws {
        server = SandboxServer(config: makeConfig())
        try server.start()
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    /// One request on a fresh connection.
    func call(_ method: String, _ target: String, token: String? = nil, body: String? = nil,
              file: StaticString = #filePath, line: UInt = #line) throws -> RawHTTPClient.Response {
        let client = try RawHTTPClient(port: port)
        return try client.request(method, target, token: token, body: body)
    }

    func get(_ target: String, token: String?) throws -> RawHTTPClient.Response { try call("GET", target, token: token) }

    func login(_ phone: String, password: String = SandboxDemo.password) throws -> RawHTTPClient.Response {
        try call("POST", "/api/app/v9/login", body: #"{"username":"\#(phone)","password":"\#(password)"}"#)
    }

    /// Logs in and selects `userId`; returns the formal token.
    func formalToken(_ phone: String, _ userId: Int, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let login = try login(phone)
        let temp = try XCTUnwrap(login.data?[field: "token"]?.stringValue, "login token", file: file, line: line)
        let select = try call("POST", "/api/app/v9/set-user", token: temp, body: #"{"userId":\#(userId)}"#)
        XCTAssertEqual(select.code, 100000, select.text, file: file, line: line)
        return try XCTUnwrap(select.data?[field: "token"]?.stringValue, "formal token", file: file, line: line)
    }

    /// Asserts an HTTP 200 envelope with the given business code; returns `data`.
    @discardableResult
    func expectCode(_ response: RawHTTPClient.Response, _ code: Int, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
        XCTAssertEqual(response.status, code == 100404 ? 404 : 200, response.text, file: file, line: line)
        XCTAssertEqual(response.code, code, response.text, file: file, line: line)
        return response.data ?? .null
    }

    /// Amounts as cents, from the literal decimal text (no floating point).
    func cents(_ value: JSONValue?, file: StaticString = #filePath, line: UInt = #line) -> Int {
        guard case .number(let text)? = value else {
            XCTFail("not a number: \(String(describing: value))", file: file, line: line)
            return -1
        }
        let parts = text.split(separator: ".")
        XCTAssertEqual(parts.count, 2, "amount \(text) has 2 decimals", file: file, line: line)
        XCTAssertEqual(parts.last?.count, 2, "amount \(text) has 2 decimals", file: file, line: line)
        return (Int(parts[0]) ?? 0) * 100 + (Int(parts.last ?? "0") ?? 0)
    }
}
