import Foundation
import XCTest
@testable import SXKCore

/// `ProcessEnvironment` stands in for `ProcessInfo.processInfo.environment` (whose first use costs a
/// start its metadata): it must give the same dictionary, and see a change made since.
final class ProcessEnvironmentTests: XCTestCase {
    func testItGivesWhatProcessInfoGivesAndSeesLaterChanges() {
        XCTAssertEqual(ProcessEnvironment.current(), ProcessInfo.processInfo.environment)
        let name = "SXK_PROCESS_ENVIRONMENT_TEST"
        setenv(name, "a=b c", 1)
        defer { unsetenv(name) }
        XCTAssertEqual(ProcessEnvironment.current()[name], "a=b c", "the value is everything after the first =")
        XCTAssertEqual(ProcessEnvironment.current(), ProcessInfo.processInfo.environment)
        setenv(name, "", 1)
        XCTAssertEqual(ProcessEnvironment.current()[name], "", "set to nothing is not unset")
        unsetenv(name)
        XCTAssertNil(ProcessEnvironment.current()[name])
    }
}
