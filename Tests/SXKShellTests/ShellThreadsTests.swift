import Foundation
import Synchronization
import XCTest
@testable import SXKShell

/// The shell's own threads: jobs in order, a thread that outlives its creator's reference, the signal
/// mask each keeps, and the pair a one-shot starts before libcurl's load.
final class ShellThreadsTests: XCTestCase {
    func testJobsRunInTheOrderPostedAndRunReturnsTheResult() async {
        let thread = ReaderThread(name: "sxk-test")
        let order = Mutex<[Int]>([])
        for i in 0..<50 { thread.post { order.withLock { $0.append(i) } } }
        let last = await thread.run { order.withLock { $0.count } }
        XCTAssertEqual(last, 50)
        XCTAssertEqual(order.withLock { $0 }, Array(0..<50))
    }

    /// The signal watcher's thread is posted its one job and then let go of: it must go on running it.
    func testAThreadWhoseCreatorLetGoStillRunsItsJobs() {
        let done = DispatchSemaphore(value: 0)
        do {
            let thread = ReaderThread(name: "sxk-test", receivesSignals: false)
            thread.post {
                usleep(50_000)
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the job never finished")
    }

    /// Both may be started before the shell blocks the signals on its own thread: the reader takes
    /// them (a read there ends on Ctrl-C), the watcher keeps them blocked.
    func testOnlyTheReaderUnblocksTheRoutedSignals() async {
        @Sendable func sigintBlocked() -> Bool {
            var mask = sigset_t()
            pthread_sigmask(SIG_BLOCK, nil, &mask)
            return sigismember(&mask, SIGINT) == 1
        }
        var unblocked = SignalRouter.signalSet()
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        let reader = ReaderThread(name: "sxk-test")
        let watcher = ReaderThread(name: "sxk-test", receivesSignals: false)
        let readerBlocked = await reader.run { sigintBlocked() }
        let watcherBlocked = await watcher.run { sigintBlocked() }
        XCTAssertFalse(readerBlocked)
        XCTAssertTrue(watcherBlocked)
    }

    func testTheEarlyPairIsTakenOnceAndLaterShellsGetTheirOwn() {
        func named(_ name: String) -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix(name) == true }.count
        }
        let before = (reader: named("sxk-reader"), signals: named("sxk-signals"))
        ShellThreads.startEarly()
        ShellThreads.startEarly()
        // Running already, before any shell takes them (a thread names itself once it runs); the
        // second call made none.
        func settle(reader: Int, signals: Int) {
            let deadline = Date().addingTimeInterval(5)
            while (named("sxk-reader") < reader || named("sxk-signals") < signals) && Date() < deadline { usleep(1_000) }
            usleep(20_000)
            XCTAssertEqual(named("sxk-reader"), reader)
            XCTAssertEqual(named("sxk-signals"), signals)
        }
        settle(reader: before.reader + 1, signals: before.signals + 1)
        let first = ShellThreads.take()
        let second = ShellThreads.take()
        XCTAssertFalse(first.reader === second.reader)
        XCTAssertFalse(first.signals === second.signals)
        XCTAssertFalse(first.reader === first.signals)
        // The first take() handed over the early pair; only the second made new threads.
        settle(reader: before.reader + 2, signals: before.signals + 2)
    }
}
