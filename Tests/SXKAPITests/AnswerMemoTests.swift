import Foundation
import XCTest
@testable import SXKAPI

/// Inside one command (`AnswerMemo.$current`) an identical declared GET is answered once; a raw GET,
/// another token, an error answer, a POST in between, and a call outside any command all send.
final class AnswerMemoTests: XCTestCase {
    func testAnIdenticalGetInOneCommandIsSentOnce() async throws {
        let sent = Box<[HTTPRequest]>([])
        let failNext = Box(false)
        let client = Fixture.client(sent: sent) { _ in
            if failNext.value { failNext.value = false; return HTTPResponse(status: 500, text: Fixture.envelope("null", code: "100500", msg: "\"boom\"")) }
            return Fixture.ok("{}")
        }
        let account = AccountAPI(client: client)
        try await AnswerMemo.$current.withValue(AnswerMemo()) {
            _ = try await account.config()
            _ = try await account.config()
            XCTAssertEqual(sent.value.count, 1, "the second identical GET was sent")
            // Another token is another question.
            _ = try await account.userInfo(token: "OTHER-TOKEN-0123456789")
            _ = try await account.userInfo(token: "OTHER-TOKEN-0123456789")
            XCTAssertEqual(sent.value.count, 2)
            // A raw GET always sends.
            _ = try await client.get("/api/app/config")
            XCTAssertEqual(sent.value.count, 3)
            // A POST may change the answers: they are asked again.
            _ = try? await account.login(username: "13800000001", password: "pw-123456")
            _ = try await account.config()
            XCTAssertEqual(sent.value.count, 5)
        }
        // An error answer is not kept.
        try await AnswerMemo.$current.withValue(AnswerMemo()) {
            failNext.value = true
            _ = await Fixture.expectError { try await account.config() }
            _ = try await account.config()
            XCTAssertEqual(sent.value.count, 7)
        }
        // Outside a command nothing is kept.
        _ = try await account.config()
        _ = try await account.config()
        XCTAssertEqual(sent.value.count, 9)
    }
}
