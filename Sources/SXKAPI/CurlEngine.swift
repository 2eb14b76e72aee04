import CCurl
import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's one libcurl multi handle, driven by one dedicated thread (never the Swift
/// cooperative pool). Every transfer of every `CurlTransport` runs here, so the multi handle's
/// connection cache, and a share handle's TLS sessions and DNS cache, serve the whole process:
/// a second request reuses the first one's connection (HTTP/1.1 keep-alive), two concurrent
/// requests multiplex over one HTTP/2 connection (`CURLPIPE_MULTIPLEX` with `CURLOPT_PIPEWAIT`),
/// and on HTTP/1.1 the second connection resumes the first one's TLS session. The CA store is
/// cached by the multi handle (`CURLOPT_CA_CACHE_TIMEOUT`), so it is loaded once per process.
///
/// Only the loop thread touches the multi handle and the easy handles while they are added;
/// other threads hand work over through `lock` and wake the loop with `curl_multi_wakeup`.
/// The share handle has real lock callbacks: an easy handle is cleaned up (detached from the
/// share) on whichever thread drops the last reference to its transfer.
final class CurlEngine: @unchecked Sendable {
    private static let making = Condition()
    /// The engine once made (or why it could not be), under `making`.
    nonisolated(unsafe) private static var made: Result<CurlEngine, TransportError>?
    /// A loading thread has started and will make the engine (under `making`).
    nonisolated(unsafe) private static var loaderMakes = false

    /// Starts loading libcurl on a thread of its own and returns at once; that thread then makes the
    /// engine and runs its loop for the rest of the process. A request meanwhile (`shared()`) waits for
    /// both. False if no thread could be started (the first request then loads libcurl itself).
    static func startLoading() -> Bool {
        making.lock()
        defer { making.unlock() }
        if loaderMakes || made != nil { return true }
        loaderMakes = sxk_curl_load_in_background {
            guard case (.success(let engine), true) = CurlEngine.obtain(runsLoop: true) else { return }
            DetachedThread.nameCurrent("sxk.curl")
            engine.loop()
        } == 0
        return loaderMakes
    }

    /// The process's engine; a libcurl that cannot be loaded is one network error (exit 4), not a crash.
    static func shared() throws(TransportError) -> CurlEngine { try obtain(runsLoop: false).result.get() }

    /// Loads libcurl and makes the engine, once per process. The caller that makes it (`madeHere`) runs its
    /// loop when `runsLoop` (the loading thread, which would otherwise end); else the loop gets a thread of
    /// its own (`sxk_curl_start_thread`). A loading thread that started a thread for the loop, instead of
    /// running it, put ≈ 1 ms (that thread's start, and its turn on two cores) before a one-shot's request.
    private static func obtain(runsLoop: Bool) -> (result: Result<CurlEngine, TransportError>, madeHere: Bool) {
        // Outside the lock: every caller waits for the same load here (pthread_once).
        let loaded = sxk_curl_load() == 0
        making.lock()
        defer { making.unlock() }
        // A request while the loading thread makes the engine waits for it: no second thread for the loop.
        while !runsLoop, loaderMakes, made == nil { making.wait() }
        if let made { return (made, false) }
        var result: Result<CurlEngine, TransportError>
        if !loaded {
            result = .failure(.network(.other(String(cString: sxk_curl_load_error()))))
        } else {
            let engine = CurlEngine()
            result = .success(engine)
            if !runsLoop {
                // Made as the loading thread is: whatever this thread's signal mask, libcurl's
                // thread blocks every signal but a fault's.
                let context = Unmanaged.passRetained(engine).toOpaque()
                let created = sxk_curl_start_thread({ raw in
                    DetachedThread.nameCurrent("sxk.curl")
                    Unmanaged<CurlEngine>.fromOpaque(raw!).takeRetainedValue().loop()
                }, context)
                if created != 0 {
                    Unmanaged<CurlEngine>.fromOpaque(context).release()
                    result = .failure(.network(.other("cannot start libcurl's thread: \(String(cString: strerror(created)))")))
                }
            }
        }
        made = result
        making.broadcast()
        return (result, true)
    }

    private let multi: UnsafeMutableRawPointer
    /// TLS sessions and DNS answers shared by every easy handle (attached with `CURLOPT_SHARE`).
    let share: UnsafeMutableRawPointer

    private let lock = Lock()
    private var incoming: [CurlTransfer] = []
    private var cancelled: [CurlTransfer] = []
    /// Transfers in the multi handle (loop thread only); a few at a time, found by a linear search.
    private var active: [CurlTransfer] = []

    private init() {
        guard let multi = sxk_curl_multi_init(), let share = sxk_curl_share_init() else {
            fatalError("libcurl could not allocate its handles (out of memory)")
        }
        self.multi = multi
        self.share = share
        guard sxk_share_set_locks(share) == 0 else { fatalError("libcurl share locks could not be set up") }
        _ = sxk_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = sxk_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        _ = sxk_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        // libcurl's wake-up socket pair (made by the multi handle) is not close-on-exec in every version.
        Descriptors.markCloseOnExec()
    }

    /// Queues a configured transfer; the loop thread hands its end to whoever waits for it (`CurlTransfer.resume`).
    func submit(_ transfer: CurlTransfer) {
        lock.withLock { incoming.append(transfer) }
        sxk_curl_multi_wakeup(multi)
    }

    /// Aborts a transfer at once: the loop removes it from the multi handle (closing its
    /// connection or resetting its HTTP/2 stream) and finishes it as cancelled. The transfer's
    /// progress callback also returns non-zero from now on, for a transfer in the middle of `perform`.
    func cancel(_ transfer: CurlTransfer) {
        transfer.markCancelled()
        lock.withLock { cancelled.append(transfer) }
        sxk_curl_multi_wakeup(multi)
    }

    private func loop() {
        var running: Int32 = 0
        while true {
            let (adds, cancels) = lock.withLock { () -> ([CurlTransfer], [CurlTransfer]) in
                defer { incoming = []; cancelled = [] }
                return (incoming, cancelled)
            }
            for transfer in adds {
                if transfer.isCancelled {
                    transfer.finish(CURLE_ABORTED_BY_CALLBACK)
                    continue
                }
                let added = sxk_curl_multi_add_handle(multi, transfer.easy)
                if added == CURLM_OK {
                    active.append(transfer)
                } else {
                    transfer.finish(CURLE_FAILED_INIT)
                }
            }
            for transfer in cancels {
                // By identity: a finished transfer's easy handle address can be reused.
                guard let index = active.firstIndex(where: { $0 === transfer }) else { continue }
                active.remove(at: index)
                sxk_curl_multi_remove_handle(multi, transfer.easy)
                transfer.finish(CURLE_ABORTED_BY_CALLBACK)
            }
            sxk_curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = sxk_curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                // Read the result before removing: the message is freed with the handle.
                let code = sxk_curl_msg_result(message)
                guard let index = active.firstIndex(where: { $0.easy == easy }) else { continue }
                let transfer = active.remove(at: index)
                sxk_curl_multi_remove_handle(multi, easy)
                transfer.finish(code)
            }
            sxk_curl_multi_poll(multi, 1000)
        }
    }
}
