import Foundation
import XCTest
import SXKAPI
import SXKCore
import SXKSession
@testable import SXKFeatures

/// Wording the views build on: said once, in the right number.
final class PapercutFeatureTests: XCTestCase {
    /// The views prefix "not evaluated"; the reason must not say it again.
    func testAReasonForADialogNotEvaluatedDoesNotRepeatIt() throws {
        let scenic = try XCTUnwrap(DialogRules.localChecks(permissions: [], scenicList: [], scenicId: nil).last)
        XCTAssertFalse(scenic.evaluated)
        XCTAssertEqual(scenic.reason, "permission dialog first")
        let location = try XCTUnwrap(DialogRules.locationTimeoutSettledLocally(needPermission: false, needScenic: true, role: "photographer", reminder: 10))
        XCTAssertFalse(location.evaluated)
        XCTAssertEqual(location.reason, "scenic dialog first")
    }

    func testOneScenicAreaIsSingular() throws {
        let checks = DialogRules.localChecks(permissions: [PermissionItem(uri: "home/order", name: "订单")],
                                             scenicList: [ScenicRef(scenicId: 1, scenicName: "西湖景区")], scenicId: nil)
        XCTAssertEqual(checks.first?.reason, "1 permission")
        XCTAssertEqual(checks.last?.reason, "the role has 1 scenic area and none is selected")
    }

    /// A context that only repeats the failing path is left out: `GET /api/x: …`, not `/api/x: GET /api/x: …`.
    func testAnAPIErrorIsNotPrefixedWithItsOwnPath() {
        let failure = APIError.serverCode(code: "100404", msg: "接口不存在", request: RequestLabel(method: "GET", path: "/api/x"))
        XCTAssertEqual(FeatureError.api(failure, context: "/api/x").description, "GET /api/x: server error 100404: 接口不存在")
        XCTAssertEqual(FeatureError.api(failure, context: "orders").description, "orders: GET /api/x: server error 100404: 接口不存在")
    }

    func testKeyDiffShowsTimesAsLocalTimes() {
        let change = KeyChange(key: "1001_scenic_key_last_location_report_time", before: nil, after: .double(1_796_108_644.5))
        XCTAssertTrue(change.line.hasPrefix("1001_scenic_key_last_location_report_time: nil → 20"), change.line)
        XCTAssertTrue(change.line.hasSuffix("(1796108644.5)"), change.line)
        XCTAssertEqual(KeyChange(key: "key_in_user_id", before: .int(1), after: .int(2)).line, "key_in_user_id: 1 → 2")
    }
}
