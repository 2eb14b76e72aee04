import Foundation
import XCTest
@testable import SXKAPI

/// Fails when any test left a connection holder (`sxk __hold-connections`) running. The tests that
/// start holders (SXKAppTests' `KeptConnectionTests`) stop them in their tearDown; this catches one
/// that did not. The runner takes SXKAppTests (the module of the tests that start holders) last,
/// and its classes in name order: this one after all of them.
final class ZZNoHolderLeftBehindTests: XCTestCase {
    func testNoConnectionHolderIsLeftRunning() {
        var left: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where pid_t(name) != nil {
            guard let cmdline = procFile("/proc/\(name)/cmdline") else { continue }
            let args = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let stat = String(decoding: procFile("/proc/\(name)/stat") ?? Data(), as: UTF8.self)
            if args.count > 1, args[1] == KeptConnection.holderArgument, stat.split(separator: ")").last?.split(separator: " ").first != "Z" {
                left.append("\(name): \(args.joined(separator: " "))")
            }
        }
        XCTAssertEqual(left, [], "connection holders still running")
    }
}
