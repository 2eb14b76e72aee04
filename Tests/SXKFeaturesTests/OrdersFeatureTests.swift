import Foundation
import SXKTestSupport
import XCTest
import SXKAPI
import SXKCore
import SXKSandbox
@testable import SXKFeatures

final class OrdersFeatureTests: BothSpellingsTestCase {
    func testEndpointPerRoleWithScopeId() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        var page = try await h.orders.fetchPage(page: 1, pageSize: 10)
        XCTAssertEqual(page.endpoint, .photographer)
        XCTAssertEqual(h.requests().last?.path, "/api/yf-handset-app/photog/order/listv2")
        XCTAssertEqual(page.page.list.count, 10)

        _ = try await h.login("13800000002")
        page = try await h.orders.fetchPage(page: 2, pageSize: 7, filter: OrderFilter(status: nil, keyword: nil))
        XCTAssertEqual(page.endpoint, .scenicAdmin(scenicId: 1))
        var last = try XCTUnwrap(h.requests().last)
        XCTAssertEqual(last.path, "/api/app/scenic-admin/order/list")
        XCTAssertEqual(last.queryValue("scenicId"), "1")
        XCTAssertEqual(last.queryValue("page"), "2")
        XCTAssertEqual(last.queryValue("pageSize"), "7")

        _ = try await h.login("13800000003")
        page = try await h.orders.fetchPage()
        XCTAssertEqual(page.endpoint, .storeAdmin(storeId: 101))
        XCTAssertTrue(page.endpoint.isDeposit)
        last = try XCTUnwrap(h.requests().last)
        XCTAssertEqual(last.path, "/api/app/store/order/list")
        XCTAssertEqual(last.queryValue("storeId"), "101")
    }

    func testRoleNotHeldIsRefused() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        await assertThrowsFeature({ try await h.orders.fetchPage(role: "storeAdmin") }) {
            if case .roleNotHeld("storeAdmin", let held) = $0 { return held == ["photographer"] }
            return false
        }
        // An empty role is one the account does not hold (a usage error), not "no role selected".
        await assertThrowsFeature({ try await h.orders.fetchPage(role: "") }) {
            if case .roleNotHeld("", _) = $0 { return $0.isUsage }
            return false
        }
        XCTAssertTrue(h.requests().isEmpty)
        // 2001 holds photographer as a second role: allowed, photographer endpoint.
        _ = try await h.login("13800000002")
        let page = try await h.orders.fetchPage(role: "photographer")
        XCTAssertEqual(page.endpoint, .photographer)
    }

    func testMissingScopeIsClearError() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        h.contexts.account.setScenic(id: nil, name: nil)
        await assertThrowsFeature({ try await h.orders.fetchPage() }) { $0 == .noScenicSelected && $0.description.contains("scenic ID") }
        _ = try await h.login("13800000003")
        h.contexts.account.setStoreId(nil)
        await assertThrowsFeature({ try await h.orders.fetchPage() }) { $0 == .noStoreSelected }
    }

    func testWalkAllDeliversTotalRows() async throws {
        let h = try Harness()
        _ = try await h.login("13800000002")
        let first = try await h.orders.fetchPage(page: 1, pageSize: 1)
        let total = try XCTUnwrap(first.page.total)
        XCTAssertGreaterThan(total, 50)
        var rows = 0
        var ids = Set<Int>()
        var pages = 0
        let outcome = try await h.orders.walkAll(pageSize: 17) { batch, progress in
            rows += batch.count
            pages += 1
            for o in batch { ids.insert(o.orderId) }
            XCTAssertEqual(progress.rows, rows)
            XCTAssertEqual(progress.total, total)
            return true
        }
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertEqual(rows, total)
        XCTAssertEqual(ids.count, total, "no row twice")
        XCTAssertEqual(outcome.progress.pages, (total + 16) / 17)
        XCTAssertEqual(pages, outcome.progress.pages)
    }

    /// `page` is optional in an answer (CONTRACT §1): a page without it is the page asked for, so the
    /// walk ends at the total's last page instead of asking one more, and a page's number is its own.
    func testAnswersWithoutTheirPageNumberAreThePagesAsked() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        let curl = CurlTransport()
        let withoutPage = ClosureTransport { request in
            var response = try await curl.send(request)
            guard var envelope = (try? JSONParser.parse(response.body))?.objectValue, var data = envelope["data"]?.objectValue else { return response }
            data["page"] = nil
            envelope["data"] = .object(data)
            response.body = JSONWriter.bytes(.object(envelope))
            return response
        }
        let contexts = h.contexts!
        let network = try NetworkBundle(configuration: APIConfiguration(environment: .sandbox(h.baseURL), timeout: 10),
                                        transport: withoutPage, observer: SilentObserver(), tokenProvider: { contexts.session.token })
        let orders = OrdersFeature(commerce: network.commerce, guard: h.sessionGuard)
        let first = try await orders.fetchPage(page: 1, pageSize: 40)
        XCTAssertEqual(first.page.total, 120, "the harness's sandbox holds 120 orders per role")
        let third = try await orders.fetchPage(page: 3, pageSize: 40)
        XCTAssertEqual(third.page.page, 3)
        XCTAssertTrue(third.page.isLast)
        h.sandbox.resetRequestLog()
        let outcome = try await orders.walkAll(pageSize: 40) { _, _ in true }
        XCTAssertEqual(outcome.stop, .completed)
        XCTAssertEqual(outcome.progress.rows, 120)
        XCTAssertEqual(h.requests().count, 3, "a page past the last was asked: \(h.requests().map { $0.queryValue("page") ?? "" })")
    }

    /// One range of page sizes for the command, `compare` and the facade: the walk's own pages are the
    /// largest of it, and a size past it is refused by the facade as the command refuses it.
    func testPageSizesAreTheOnesTheCommandTakes() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        do {
            _ = try await h.orders.fetchPage(pageSize: OrdersFeature.pageSizes.upperBound + 1)
            XCTFail("a page size past the range was sent")
        } catch {
            XCTAssertEqual(error.description, "--page-size must be between 1 and 100")
        }
        h.sandbox.resetRequestLog()
        _ = try await h.orders.walkAll(limit: 150) { _, _ in true }
        XCTAssertEqual(Set(h.requests().compactMap { $0.queryValue("pageSize") }), ["100"])
    }

    func testWalkAllStopsAtLimit() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        h.sandbox.resetRequestLog()
        var rows = 0
        let outcome = try await h.orders.walkAll(pageSize: 10, limit: 25) { batch, _ in rows += batch.count; return true }
        XCTAssertEqual(outcome.stop, .limit)
        XCTAssertEqual(rows, 25)
        XCTAssertEqual(outcome.progress.rows, 25)
        XCTAssertEqual(h.requests().count, 3, "no page fetched beyond the limit")
    }

    func testTokenExpiringMidWalkResetsTheSessionOnceWithPagesInFlight() async throws {
        // Pages are fetched ahead, so several requests meet the expired token; the walk keeps the rows it
        // delivered, fails as an expired session, and the session is reset exactly once.
        let h = try Harness(config: SandboxConfig(ordersPerRole: 300, latencyMs: 20))
        _ = try await h.login("13800000001")
        var rows = 0
        do {
            _ = try await h.orders.walkAll(pageSize: 10) { batch, progress in
                rows += batch.count
                if progress.pages == 2 { h.sandbox.expireTokens() }
                return true
            }
            XCTFail("expected the session to expire")
        } catch {
            XCTAssertTrue(error.isSessionExpired, "\(error)")
        }
        XCTAssertGreaterThanOrEqual(rows, 20)
        XCTAssertLessThan(rows, 300)
        XCTAssertEqual(h.sessionGuard.resetCount, 1)
        XCTAssertEqual(h.expiries.all.count, 1)
        XCTAssertEqual(h.contexts.session.phase, .loggedOut)
    }

    func testWalkAllStopsOnCancellation() async throws {
        let h = try Harness(config: SandboxConfig(ordersPerRole: 300, latencyMs: 30))
        _ = try await h.login("13800000001")
        let orders = h.orders!
        let seen = Lines()
        let task = Task { () throws -> WalkOutcome in
            try await orders.walkAll(pageSize: 10) { batch, _ in seen.append("\(batch.count)"); return true }
        }
        let deadline = Date().addingTimeInterval(5)
        while seen.all.count < 2 && Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        task.cancel()
        let outcome = try await task.value
        XCTAssertEqual(outcome.stop, .cancelled)
        XCTAssertLessThan(outcome.progress.rows, 300)
        XCTAssertEqual(outcome.progress.rows, seen.all.count * 10)
    }

    func testPagingArgumentsValidated() async throws {
        let h = try Harness()
        _ = try await h.login("13800000001")
        await assertThrowsFeature({ try await h.orders.fetchPage(page: 0) }) { $0.isUsage }
        await assertThrowsFeature({ try await h.orders.fetchPage(pageSize: 0) }) { $0.isUsage }
    }
}
