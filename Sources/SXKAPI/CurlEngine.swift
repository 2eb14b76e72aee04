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
    /// The engine, made on the first request: libcurl is loaded then (CCurl's sxk_curl.h).
    private static let made: Result<CurlEngine, TransportError> = {
        guard sxk_curl_load() == 0 else { return .failure(.network(.other(String(cString: sxk_curl_load_error())))) }
        let engine = CurlEngine()
        let created = DetachedThread.start(name: "sxk.curl") { engine.loop() }
        guard created == 0 else { return .failure(.network(.other("cannot start libcurl's thread: \(String(cString: strerror(created)))"))) }
        return .success(engine)
    }()

    /// Starts loading libcurl on a thread of its own and returns at once; `shared()` waits for that load.
    /// `then` runs on that thread after it, loaded or not. False if no thread could be started.
    static func startLoading(then: @convention(c) () -> Void) -> Bool { sxk_curl_load_in_background(then) == 0 }

    /// The process's engine; a libcurl that cannot be loaded is one network error (exit 4), not a crash.
    static func shared() throws(TransportError) -> CurlEngine { try made.get() }

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
