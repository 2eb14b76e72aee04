import Foundation
import SXKCore
import XCTest
@testable import SXKSandbox

final class SandboxFaultTests: SandboxTestCase {
    let path = "/api/app/config"

    func testMalformedEmptyHTML502AndStatus500() throws {
        server.injectFault(path: path, kind: .malformed)
        let malformed = try get(path, token: nil)
        XCTAssertEqual(malformed.status, 200)
        XCTAssertFalse(malformed.body.isEmpty)
        XCTAssertThrowsError(try JSONParser.parse(malformed.body))

        server.injectFault(path: path, kind: .empty)
        let empty = try get(path, token: nil)
        XCTAssertEqual(empty.status, 200)
        XCTAssertTrue(empty.body.isEmpty)

        server.injectFault(path: path, kind: .html502)
        let html = try get(path, token: nil)
        XCTAssertEqual(html.status, 502)
        XCTAssertTrue(html.text.contains("<html>"))
        XCTAssertEqual(html.header("Content-Type"), "text/html")

        server.injectFault(path: path, kind: .status500)
        let failed = try get(path, token: nil)
        XCTAssertEqual(failed.status, 500)
        XCTAssertEqual(failed.code, 100500)

        // Faults are used up; the next request is normal.
        XCTAssertEqual(try get(path, token: nil).code, 100000)
    }

    func testHugeOversizedAndDeepNestingBodies() throws {
        let plain = try get(path, token: nil)
        let data = try XCTUnwrap(try JSONParser.parse(plain.body).objectValue?.field("data"))
        for kind in [SandboxFaultKind.huge, .oversized] {
            server.injectFault(path: path, kind: kind)
            let padded = try get(path, token: nil)
            XCTAssertEqual(padded.status, 200)
            XCTAssertEqual(padded.body.count, kind.paddedSize, "\(kind)")
            let envelope = try XCTUnwrap(try JSONParser.parse(padded.body).objectValue, "\(kind) is not valid JSON")
            XCTAssertEqual(envelope.field("data"), data, "\(kind) changed the answer")
            XCTAssertEqual(envelope.int("code"), 100000)
        }
        server.injectFault(path: path, kind: .deepNesting)
        let deep = try get(path, token: nil)
        XCTAssertEqual(deep.status, 200)
        XCTAssertEqual(deep.body.count, 200_000)
        XCTAssertThrowsError(try JSONParser.parse(deep.body), "a bounded parser must refuse 100,000 levels")
        XCTAssertEqual(SandboxServer.padded(Array("{}".utf8), to: 20), Array(#"{"padding":"xxxxxx"}"#.utf8))
    }

    func testCountAndPathMatching() throws {
        server.injectFault(path: path, kind: .status500, count: 2)
        XCTAssertEqual(try get("/api/yf-handset-app/userinfo", token: nil).code, 100401)
        XCTAssertEqual(try get(path, token: nil).status, 500)
        XCTAssertEqual(try get("\(path)?x=1", token: nil).status, 500)
        XCTAssertEqual(try get(path, token: nil).status, 200)
        server.injectFault(path: "*", kind: .empty)
        XCTAssertTrue(try get("/api/app/store/all", token: nil).body.isEmpty)
        server.injectFault(path: path, kind: .empty, count: 5)
        server.clearFaults()
        XCTAssertEqual(try get(path, token: nil).code, 100000)
    }

    func testTruncatedBodyIsCutAndTheConnectionClosed() throws {
        server.injectFault(path: path, kind: .truncated)
        let client = try RawHTTPClient(port: port)
        client.send(RawHTTPClient.requestText("GET", path))
        XCTAssertThrowsError(try client.readResponse()) { error in
            XCTAssertEqual("\(error)", "closed")
        }
    }

    func testHangAnswersNothingUntilTheClientCloses() throws {
        server.injectFault(path: path, kind: .hang)
        let client = try RawHTTPClient(port: port, timeout: 0.3)
        client.send(RawHTTPClient.requestText("GET", path))
        XCTAssertThrowsError(try client.readResponse()) { error in
            XCTAssertEqual("\(error)", "timeout")
        }
        // Other connections are still served.
        XCTAssertEqual(try get(path, token: nil).code, 100000)
    }

    func testRedirect() throws {
        server.injectFault(path: path, kind: .redirect, location: "http://127.0.0.2:1/api/app/config")
        let response = try get(path, token: nil)
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.header("Location"), "http://127.0.0.2:1/api/app/config")
    }

    func testFailRateOneAlwaysFails() throws {
        server.setFailRate(1)
        let response = try get(path, token: nil)
        XCTAssertEqual(response.status, 502)
        XCTAssertTrue(response.text.contains("Bad Gateway"))
        // The control API is never failed.
        XCTAssertEqual(try call("POST", "/__sandbox/config", body: #"{"failRate":0}"#).code, 100000)
        XCTAssertEqual(try get(path, token: nil).status, 200)
    }

    func testLatencyDelaysAnswers() throws {
        server.setLatency(milliseconds: 150)
        let started = Date()
        XCTAssertEqual(try get(path, token: nil).code, 100000)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.15)
        server.setLatency(milliseconds: 0)
    }

    func testControlAPIOverHTTP() throws {
        let added = try call("POST", "/__sandbox/faults", body: #"{"path":"/api/app/config","kind":"status500","count":1}"#)
        XCTAssertEqual(added.code, 100000)
        XCTAssertEqual(server.pendingFaults.first?.kind, .status500)
        XCTAssertEqual(try call("GET", "/__sandbox/faults").data?.arrayValue?.count, 1)
        XCTAssertEqual(try get(path, token: nil).status, 500)
        XCTAssertEqual(try call("POST", "/__sandbox/faults", body: #"{"path":"/x","kind":"nope"}"#).status, 400)
        XCTAssertEqual(try call("POST", "/__sandbox/faults", body: #"{"path":"/x","kind":"redirect"}"#).status, 400)
        XCTAssertEqual(try call("POST", "/__sandbox/faults", body: #"{"path":"/x","kind":"redirect","location":"/y"}"#).code, 100000)
        XCTAssertEqual(try call("POST", "/__sandbox/clear-faults").code, 100000)
        XCTAssertTrue(server.pendingFaults.isEmpty)

        XCTAssertEqual(try call("POST", "/__sandbox/reset-log").code, 100000)
        _ = try call("POST", "/api/app/v9/login", body: #"{"username":"13800000001","password":"sandbox123"}"#)
        _ = try get("/api/yf-handset-app/userinfo?a=1&b=%E4%B8%AD", token: "sxk_abc")
        let log = server.requestLog()
        XCTAssertEqual(log.map(\.path), ["/api/app/v9/login", "/api/yf-handset-app/userinfo"])
        XCTAssertEqual(log[1].header("token"), "sxk_abc")
        XCTAssertEqual(log[1].queryValue("b"), "中")
        XCTAssertFalse(log[0].body.contains("sandbox123"))
        let overHTTP = try call("GET", "/__sandbox/requests").data?.arrayValue ?? []
        XCTAssertEqual(overHTTP.count, 2)
        XCTAssertEqual(overHTTP[1][field: "headers"]?[field: "token"]?.stringValue, "sxk_abc")
        XCTAssertEqual(overHTTP[1][field: "method"]?.stringValue, "GET")
        XCTAssertNotNil(overHTTP[1][field: "time"]?.stringValue)
        XCTAssertEqual(try call("POST", "/__sandbox/reset-log").code, 100000)
        XCTAssertTrue(server.requestLog().isEmpty)
        let status = try call("GET", "/__sandbox/status").data
        XCTAssertEqual(status?[field: "ordersPerRole"]?.intValue, 2000)
        XCTAssertEqual(try call("GET", "/__sandbox/nothing").status, 404)
    }
}
