import Foundation
import XCTest

/// `pager [on|off]`: the paging switch, shown and changed (the paging itself is in the pty tests).
final class PagerTests: XCTestCase {
    func testPagerShowsAndChangesTheSwitch() {
        let ws = Workspace()
        let r = SXK.run(["-c", "pager; pager off; pager; pager on; pager"], in: ws, baseURL: nil)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout, "pager on\npager off\npager on\n", "the state asked: \(r.summary)")
        XCTAssertEqual(r.stderr, "pager off\npager on\n", "the changes confirmed: \(r.summary)")
    }
}
