import Foundation
import XCTest
import SXKSandbox

/// Every endpoint group again against a sandbox answering snake_case, numbers and booleans as
/// strings and `message` for `msg`: each model decoder reads the other spelling the contract allows.
final class SandboxSnakeIntegrationTests: SandboxIntegrationTests {
    override func sandboxConfig() -> SandboxConfig { SandboxConfig(ordersPerRole: 300, spelling: .snake) }

    // Linux test discovery lists only the methods a class declares itself: each inherited case is named here.
    override func testAccountGroupAsPhotographer() async throws { try await super.testAccountGroupAsPhotographer() }
    override func testPhoneWithThreeAccountsAndWrongPassword() async throws { try await super.testPhoneWithThreeAccountsAndWrongPassword() }
    override func testCommerceAndOperationAsPhotographer() async throws { try await super.testCommerceAndOperationAsPhotographer() }
    override func testScenicAdminGroups() async throws { try await super.testScenicAdminGroups() }
    override func testStoreAdminGroups() async throws { try await super.testStoreAdminGroups() }
    override func testEveryDeclaredEndpointIsServedAndDecoded() async throws { try await super.testEveryDeclaredEndpointIsServedAndDecoded() }
    override func testRawGetAndPost() async throws { try await super.testRawGetAndPost() }
    override func testUnknownTokenIsSessionExpiredAndNotifiesOnce() async throws { try await super.testUnknownTokenIsSessionExpiredAndNotifiesOnce() }
    override func testExpiredFormalTokenIsSessionExpired() async throws { try await super.testExpiredFormalTokenIsSessionExpired() }
    override func testInjectedFaultsBecomeClearErrors() async throws { try await super.testInjectedFaultsBecomeClearErrors() }
    override func testCancellingAHangingSandboxRequest() async throws { try await super.testCancellingAHangingSandboxRequest() }
}
