import Foundation
import XCTest
import SXKCore
import SXKModels
@testable import SXKSession
#if canImport(Glibc)
import Glibc
#endif

/// Collects warnings the stores emit.
final class WarningRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    var sink: WarningSink { { [self] message in lock.withLock { items.append(message) } } }
    var messages: [String] { lock.withLock { items } }
}

/// A fresh private temp folder, removed at the end of the test.
func makeTempDir(_ test: XCTestCase) -> String {
    var template = Array((NSTemporaryDirectory() + "/sxk-session-XXXXXX").utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

func mode(_ path: String) -> mode_t {
    var st = stat()
    XCTAssertEqual(lstat(path, &st), 0, "lstat \(path)")
    return st.st_mode & 0o777
}

func exists(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0
}

func writeRaw(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) {
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
    precondition(fd >= 0)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fchmod(fd, mode)
    close(fd)
}

func readText(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

func listDir(_ path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? []
}

/// Runs `body` with the process umask set to `value`.
func withUmask<T>(_ value: mode_t, _ body: () throws -> T) rethrows -> T {
    let old = umask(value)
    defer { umask(old) }
    return try body()
}

func makePaths(_ root: String, profile: String = "test") throws -> StatePaths {
    try StatePaths(root: root + "/state", profile: profile, configDir: root + "/config")
}

/// Demo data from the shared sandbox facts.
enum Demo {
    static let photographer = Account(
        userId: 1001, accountType: "scenic", accountDisplayName: "西湖摄影师", userName: "photog1001", realName: "张三",
        phone: "13800000001", roleCode: "photographer", roleName: "摄影师", scenicId: 1, scenicName: "西湖景区")
    static let storeAdmin = Account(
        userId: 3001, accountType: "store", accountDisplayName: "断桥摄影店", userName: "store3001",
        phone: "13800000003", roleCode: "storeAdmin", roleName: "门店管理员", scenicId: 1, scenicName: "西湖景区", storeId: 101)
    static let xihu = ScenicRef(scenicId: 1, scenicName: "西湖景区")
    static let lingyin = ScenicRef(scenicId: 2, scenicName: "灵隐寺")
    static let roles = [
        RolePermission(
            roleCode: "scenicAdmin", roleName: "景区管理员", scenicList: [xihu, lingyin],
            permissions: [
                PermissionItem(uri: "orders/list", name: "订单"), PermissionItem(uri: "stats/scenic", name: "统计"),
                PermissionItem(uri: "staff/manage", name: "人员"),
            ]),
        RolePermission(
            roleCode: "photographer", roleName: "摄影师", scenicList: [xihu],
            permissions: [PermissionItem(uri: "photog/orders", name: "我的订单", group: "订单")]),
    ]
    static let token = "tok_4f2a9c1e7b3d5a8f6e0c2b4d"
}
