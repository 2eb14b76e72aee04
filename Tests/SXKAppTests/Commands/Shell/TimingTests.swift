import Foundation
import XCTest

/// `timing on|off`: each command's time on stderr, with its requests' phases, until off.
final class TimingTests: XCTestCase {
    func testTimingPrintsEachCommandsTimeAndRequestsUntilOff() {
        let ws = Workspace()
        let r = SXK.run(["-c", "timing on; config --jq .minVersion; timing off; config --jq .minVersion"], in: ws, baseURL: SharedSandbox.url)
        XCTAssertEqual(r.status, 0, r.summary)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 2, "data alone on stdout: \(r.summary)")
        let times = r.stderrLines.filter { $0.hasPrefix("time: ") }
        XCTAssertEqual(times.count, 2, "timing on and the config call are timed, nothing after timing off: \(r.summary)")
        XCTAssertEqual(r.stderrLines.filter { $0.contains("GET /api/app/config 200") }.count, 1, r.summary)
    }
}
