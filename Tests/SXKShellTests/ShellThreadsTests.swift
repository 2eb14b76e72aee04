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
    /// Several, since a thread that began running before its creator let go would pass either way.
    func testAThreadWhoseCreatorLetGoStillRunsItsJobs() {
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            let thread = ReaderThread(name: "sxk-test", receivesSignals: false)
            thread.post {
                usleep(20_000)
                done.signal()
            }
        }
        for _ in 0..<8 { XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "a job never finished") }
    }

    /// The reader unblocks the routed signals even when made on a thread that blocks them (the shell's,
    /// whose mask later threads inherit); the watcher blocks them even when made before the shell did.
    /// Both block every other signal but a fault's, whatever the mask they were made with (Ctrl-Z goes
    /// to the main thread; a crash still reaches its handler).
    func testOnlyTheReaderUnblocksTheRoutedSignals() async {
        @Sendable func blocked() -> [Int32] {
            var mask = sigset_t()
            pthread_sigmask(SIG_BLOCK, nil, &mask)
            return [SIGINT, SIGTSTP, SIGUSR1, SIGSEGV].filter { sigismember(&mask, $0) == 1 }
        }
        var saved = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        var routed = SignalRouter.signalSet()
        pthread_sigmask(SIG_BLOCK, &routed, nil)
        let reader = ReaderThread(name: "sxk-test")
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        let watcher = ReaderThread(name: "sxk-test", receivesSignals: false)
        let readerBlocked = await reader.run { blocked() }
        let watcherBlocked = await watcher.run { blocked() }
        XCTAssertEqual(readerBlocked, [SIGTSTP, SIGUSR1])
        XCTAssertEqual(watcherBlocked, [SIGINT, SIGTSTP, SIGUSR1])
    }

    func testTheEarlyPairIsTakenOnceAndLaterShellsGetTheirOwn() {
        func tasks() -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []) }
        // Only threads made during this test: one a shell made before it may not have named itself yet.
        let before = tasks()
        func named(_ name: String) -> Int {
            tasks().subtracting(before).filter {
                (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix(name) == true
            }.count
        }
        // A thread names itself once it runs; the counts must reach `reader` and `signals` and stay there.
        func settle(reader: Int, signals: Int) {
            let deadline = Date().addingTimeInterval(5)
            while (named("sxk-reader") < reader || named("sxk-signals") < signals) && Date() < deadline { usleep(1_000) }
            usleep(20_000)
            XCTAssertEqual(named("sxk-reader"), reader)
            XCTAssertEqual(named("sxk-signals"), signals)
        }
        ShellThreads.startEarly()
        ShellThreads.startEarly()
        // Running already, before any shell takes them; the second call made none.
        settle(reader: 1, signals: 1)
        let first = ShellThreads.take()
        let second = ShellThreads.take()
        XCTAssertFalse(first.reader === second.reader)
        XCTAssertFalse(first.signals === second.signals)
        XCTAssertFalse(first.reader === first.signals)
        // The first take() handed over the early pair; only the second made new threads.
        settle(reader: 2, signals: 2)
    }
}
