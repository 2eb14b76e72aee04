import FoundationEssentials
import SXKApp
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The start that must not wait for the cooperative pool's first thread runs here, on the main thread:
// a one-shot that sends starts loading libcurl in it. Then the program runs as a task on the pool and
// ends the process itself (`_exit`). The main thread only waits: with top-level `await` it would end
// in `dispatch_main`'s `pthread_exit`, whose unwinding makes glibc load libgcc_s on every start
// (≈ 0.5 ms of `sxk -c version`), right while a one-shot loads libcurl. Nothing in sxk runs on the
// main actor. It waits with no signal blocked, as `dispatch_main` did, whatever mask sxk was started
// with: the signals the other threads block (Ctrl-Z among them; the shell's threads take only those
// they route) are handled here, and a routed one that lands here is passed on to the reader thread.
let start = SXKApplication.start()
Task.detached { await SXKApplication.runAndExit(start) }
var none = sigset_t()
sigemptyset(&none)
while true { sigsuspend(&none) }
