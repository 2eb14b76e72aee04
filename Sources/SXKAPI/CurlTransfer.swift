import CCurl
import Dispatch
import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request/response exchange on one libcurl easy handle (no redirects: `CurlTransport`
/// follows those itself). Configured on the caller's thread, then run and finished on the
/// engine's loop thread; only the cancel flag is shared, under a lock.
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    private let request: HTTPRequest
    private let seconds: TimeInterval
    private let bodyLimit: Int
    private let headLimit: Int
    // Lists libcurl reads during the transfer; freed after the handle.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    private let gate = UnsafeMutablePointer<sxk_socket_gate>.allocate(capacity: 1)
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    /// Hands the end to the waiting `run` or `runWaiting`, once (loop thread).
    private var resume: ((End) -> Void)?

    private enum End {
        case response(HTTPResponse)
        case failure(TransportError)
    }

    // Filled by the callbacks on the loop thread.
    private var body: [UInt8] = []
    private var headBytes = 0
    private var status = 0
    private var fields: [HTTPField] = []
    private var headDone = false
    private var bodyOverLimit = false
    private var headOverLimit = false

    private let cancelLock = Lock()
    private var cancelFlag = false
    /// The backend is loopback, so no proxy is used.
    private var direct: Bool { APIEnvironment.isLoopback(host: request.url.host) }

    /// Refuses a header field holding CR or LF (it would smuggle another header or request onto
    /// the wire) before anything is set up; the message names the field, never its value.
    init(request: HTTPRequest, seconds: TimeInterval, options: CurlTransport, engine: CurlEngine) throws(TransportError) {
        for field in request.headers {
            // Scalars, not Characters: "\r\n" is one Character and would slip past a Character test.
            let badName = field.name.isEmpty || field.name.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == ":" || $0 == " " || $0 == "\0" }
            if badName || field.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                let shown = String(String.UnicodeScalarView(field.name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
                throw TransportError.network(.other("header field '\(shown)' holds a line break"))
            }
        }
        guard let easy = sxk_curl_easy_init() else { throw TransportError.network(.other("libcurl could not start a transfer")) }
        self.easy = easy
        self.request = request
        self.seconds = seconds
        bodyLimit = options.maxBodyBytes
        headLimit = CurlTransport.maxHeadBytes
        gate.initialize(to: sxk_socket_gate())
        gate.pointee.allow_any = options.allowPlainHTTPOffLoopback ? 1 : 0
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        configure(options, engine: engine)
    }

    deinit {
        sxk_curl_easy_cleanup(easy)
        sxk_curl_slist_free_all(headerList)
        sxk_curl_slist_free_all(resolveList)
        gate.deallocate()
        errorBuffer.deallocate()
    }

    var isCancelled: Bool { cancelLock.withLock { cancelFlag } }
    func markCancelled() { cancelLock.withLock { cancelFlag = true } }

    /// Runs the transfer on the engine; resumes with the response or a `TransportError` (an `End`,
    /// which the loop thread hands back once through `resume`).
    func run(on engine: CurlEngine) async throws -> HTTPResponse {
        let end = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<End, Never>) in
                self.resume = { continuation.resume(returning: $0) }
                engine.submit(self)
            }
        } onCancel: {
            engine.cancel(self)
        }
        switch end {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }

    private func set(_ option: CURLoption, _ value: Int) { _ = sxk_easy_setopt_long(easy, option, value) }
    private func set(_ option: CURLoption, _ text: String?) {
        if let text { _ = text.withCString { sxk_easy_setopt_ptr(easy, option, $0) } } else { _ = sxk_easy_setopt_ptr(easy, option, nil) }
    }

    private func configure(_ options: CurlTransport, engine: CurlEngine) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let isHTTPS = request.url.scheme?.lowercased() == "https"
        set(CURLOPT_URL, request.url.absoluteString)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_PATH_AS_IS, 1)
        set(CURLOPT_NOSIGNAL, 1)
        // The total deadline: connect, TLS, every byte of head, body and trailers.
        let ms = seconds.isNaN ? 1 : Int(min(max(seconds, 0.001), CurlTransport.longestTimeout) * 1000)
        set(CURLOPT_TIMEOUT_MS, ms)
        set(CURLOPT_CONNECTTIMEOUT_MS, ms)
        // Only what libcurl decodes before the write callback, where the decoded bytes are counted.
        set(CURLOPT_ACCEPT_ENCODING, "")
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Wait to multiplex only where the first connection's ALPN can offer it (h2 is asked for over
        // TLS only). Over plain http it would queue a concurrent request behind the busy connection until
        // that answer's head arrives, so the app's concurrent pairs would not overlap.
        set(CURLOPT_PIPEWAIT, isHTTPS ? 1 : 0)
        set(CURLOPT_FOLLOWLOCATION, 0)
        _ = sxk_easy_setopt_ptr(easy, CURLOPT_SHARE, engine.share)
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_CAINFO, options.trust.caFile)
        set(CURLOPT_CAPATH, options.trust.caDirectory)
        set(CURLOPT_CA_CACHE_TIMEOUT, 24 * 3600)
        if let lifetime = options.connectionLifetime { set(CURLOPT_MAXLIFETIME_CONN, lifetime) }
        _ = sxk_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, bodyLimit)
        _ = sxk_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        if !options.resolve.isEmpty {
            for entry in options.resolve { resolveList = sxk_curl_slist_append(resolveList, entry) }
            _ = sxk_easy_setopt_ptr(easy, CURLOPT_RESOLVE, resolveList)
        }
        // A loopback backend (the sandbox, a local terminator) is never reached through a proxy: the
        // token would go to whatever listens on the proxy's port. Others use libcurl's own choice.
        if direct { set(CURLOPT_PROXY, "") }
        // Every socket through the gate, so every one is close-on-exec; over https any address may be
        // used (TLS verifies where the bytes go), over plain http only loopback unless allowed.
        if isHTTPS { gate.pointee.allow_any = 1 }
        _ = sxk_easy_set_socket_gate(easy, gate)

        _ = sxk_easy_setopt_data_fn(easy, CURLOPT_WRITEFUNCTION, curlWrite)
        _ = sxk_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, me)
        _ = sxk_easy_setopt_data_fn(easy, CURLOPT_HEADERFUNCTION, curlHeader)
        _ = sxk_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, me)
        _ = sxk_easy_setopt_xferinfo_fn(easy, curlProgress)
        _ = sxk_easy_setopt_ptr(easy, CURLOPT_XFERINFODATA, me)
        set(CURLOPT_NOPROGRESS, 0)

        switch request.method {
        case "GET" where request.body.isEmpty: set(CURLOPT_HTTPGET, 1)
        case "HEAD": set(CURLOPT_NOBODY, 1)
        default:
            _ = sxk_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, request.body.count)
            if request.body.isEmpty {
                set(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                request.body.withUnsafeBytes { _ = sxk_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
            }
            if request.method != "POST" { set(CURLOPT_CUSTOMREQUEST, request.method) }
        }
        var headers: UnsafeMutablePointer<curl_slist>?
        let managed: Set<String> = ["host", "content-length", "connection", "transfer-encoding", "expect", "accept-encoding"]
        for field in request.headers where !managed.contains(field.name.lowercased()) {
            // "Name:" with nothing after it would tell libcurl to drop the header; "Name;" sends it empty.
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            headers = sxk_curl_slist_append(headers, line)
        }
        // No `Expect: 100-continue` wait on larger bodies.
        headers = sxk_curl_slist_append(headers, "Expect:")
        headerList = headers
        _ = sxk_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headers)
    }

    // MARK: - Callbacks (loop thread)

    fileprivate func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        if body.count + count > bodyLimit {
            bodyOverLimit = true
            return 0
        }
        body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        return count
    }

    /// One header line (status lines of 1xx answers and trailer lines included), counted
    /// against the head limit so endless 1xx answers or trailers cannot grow memory.
    fileprivate func header(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        headBytes += count
        if headBytes > headLimit {
            headOverLimit = true
            return 0
        }
        let bytes = UnsafeRawBufferPointer(start: data, count: count)
        if bytes.starts(with: "HTTP/".utf8) {
            let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1].prefix(3)) ?? 0 : 0
            fields = []
            headDone = false
            return count
        }
        var line = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = line.last, last == "\r" || last == "\n" || last == "\r\n" { line.removeLast() }
        if line.isEmpty {
            if status >= 200 { headDone = true }
            return count
        }
        guard !headDone, let colon = line.firstIndex(of: ":") else { return count }
        let name = String(line[..<colon])
        // The optional whitespace around a field value is spaces and tabs (RFC 9110, 5.6.3). Not
        // Foundation's `trimmingCharacters`: its first call looks up a conformance across the whole
        // binary (≈ 0.35 ms), after the answer has come.
        // Bytes, not Characters: a space before a combining mark is still whitespace on the wire.
        var value = line[line.index(after: colon)...].utf8
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        fields.append(HTTPField(name: name, value: String(Substring(value))))
        return count
    }

    /// Runs the transfer on the engine and waits for it on this thread, asking `abandoned` every 50 ms:
    /// for a plain thread with nothing else to do (the connection holder's workers), so no task is
    /// scheduled on the way in or out (each such hop was a pool thread's wake-up, ≈ 1–2 ms apiece).
    func runWaiting(on engine: CurlEngine, abandoned: () -> Bool) throws(TransportError) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let box = EndBox()
        resume = { end in
            box.end = end
            done.signal()
        }
        engine.submit(self)
        var cancelled = false
        while done.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if !cancelled, abandoned() {
                cancelled = true
                engine.cancel(self)
            }
        }
        switch box.end {
        case .response(let response): return response
        case .failure(let error): throw error
        case nil: throw .cancelled
        }
    }

    /// Where the loop thread leaves the end for `runWaiting`; the semaphore orders the two.
    private final class EndBox: @unchecked Sendable {
        var end: End?
    }

    fileprivate var shouldAbort: Bool { isCancelled }

    // MARK: - Finish (loop thread)

    func finish(_ code: CURLcode) {
        guard let resume else { return }
        self.resume = nil
        if code == CURLE_OK {
            var response = HTTPResponse(status: Int(infoLong(CURLINFO_RESPONSE_CODE)), headers: HTTPHeaders(fields), body: body)
            response.metrics = metrics()
            resume(.response(response))
        } else {
            resume(.failure(error(for: code)))
        }
    }

    private func infoLong(_ info: CURLINFO) -> Int {
        var value = 0
        _ = sxk_easy_getinfo_long(easy, info, &value)
        return value
    }

    private func infoSeconds(_ info: CURLINFO) -> Double {
        var value: curl_off_t = 0
        _ = sxk_easy_getinfo_off(easy, info, &value)
        return Double(value) / 1e6
    }

    private func metrics() -> TransferMetrics {
        let version: String
        switch infoLong(CURLINFO_HTTP_VERSION) {
        case Int(CURL_HTTP_VERSION_2_0): version = "h2"
        case Int(CURL_HTTP_VERSION_3): version = "h3"
        case Int(CURL_HTTP_VERSION_1_0): version = "http/1.0"
        default: version = "http/1.1"
        }
        var ip: UnsafeMutablePointer<CChar>?
        _ = sxk_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &ip)
        let port = infoLong(CURLINFO_PRIMARY_PORT)
        let address = ip.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : ($0.contains(":") ? "[\($0)]:\(port)" : "\($0):\(port)") }
        return TransferMetrics(
            httpVersion: version, connectionReused: infoLong(CURLINFO_NUM_CONNECTS) == 0, remoteAddress: address,
            dnsDone: infoSeconds(CURLINFO_NAMELOOKUP_TIME_T), connected: infoSeconds(CURLINFO_CONNECT_TIME_T),
            tlsDone: infoSeconds(CURLINFO_APPCONNECT_TIME_T).nonZero ?? infoSeconds(CURLINFO_CONNECT_TIME_T),
            firstByte: infoSeconds(CURLINFO_STARTTRANSFER_TIME_T), total: infoSeconds(CURLINFO_TOTAL_TIME_T),
            requestBytes: infoLong(CURLINFO_REQUEST_SIZE), responseBodyBytes: body.count)
    }

    private func error(for code: CURLcode) -> TransportError {
        let host = request.url.host ?? "?"
        let detail = String(cString: errorBuffer).isEmpty ? String(cString: sxk_curl_easy_strerror(code)) : String(cString: errorBuffer)
        if isCancelled { return .cancelled }
        if bodyOverLimit || code == CURLE_FILESIZE_EXCEEDED { return .bodyTooLarge(status: status, limit: bodyLimit) }
        if headOverLimit { return .unreadable(reason: "head, 1xx answers or trailers over \(headLimit >> 10) KiB") }
        if gate.pointee.refused != 0 {
            let address = withUnsafeBytes(of: gate.pointee.address) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            // Through a proxy the refused address is the proxy's: the message names it, not the backend.
            if !direct, let proxy = ProxyChoice.proxy(for: request.url) { return .proxyRefused(proxy: proxy, address: address) }
            return .plainHTTPRefused(host: host, address: address)
        }
        // A failure at the proxy names the proxy, not the backend it was to reach.
        if !direct, let proxy = ProxyChoice.proxy(for: request.url) {
            if code == CURLE_COULDNT_RESOLVE_PROXY { return .network(.other("the proxy \(proxy) was not found")) }
            if code == CURLE_COULDNT_CONNECT { return .network(.other("the proxy \(proxy) refused the connection")) }
            if detail.contains("CONNECT tunnel") { return .network(.other("the proxy \(proxy) refused the tunnel (\(detail))")) }
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .network(.timedOut(seconds: seconds))
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_COULDNT_RESOLVE_HOST: return .network(.hostNotFound)
        case CURLE_COULDNT_RESOLVE_PROXY: return .network(.other("proxy not found"))
        case CURLE_COULDNT_CONNECT:
            switch Int32(infoLong(CURLINFO_OS_ERRNO)) {
            case ENETUNREACH: return .network(.unreachable("no route to the network"))
            case EHOSTUNREACH: return .network(.unreachable("no route to host"))
            default: return .network(.connectionRefused)
            }
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_HTTP2_STREAM, CURLE_HTTP2:
            if headDone { return .truncatedBody(status: status, received: body) }
            return .network(.connectionLost)
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR: return .network(.connectionLost)
        // Unsupported protocol here is an answer that is not HTTP ("Received HTTP/0.9"): only http and
        // https URLs are ever sent, and a redirect elsewhere is refused before it is followed.
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_UNSUPPORTED_PROTOCOL: return .unreadable(reason: detail)
        case CURLE_PEER_FAILED_VERIFICATION: return .network(.certificate(certificateProblem(host: host, detail: detail)))
        case CURLE_SSL_CACERT_BADFILE: return .network(.tls("CA certificates could not be loaded: \(detail)"))
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR:
            return .network(.tls(detail))
        default: return .network(.other(detail))
        }
    }

    /// OpenSSL's X509 verify result names the problem; libcurl checks the name itself after a
    /// successful chain check (its message then names the subject name; the result is 0 or 1).
    private func certificateProblem(host: String, detail: String) -> CertificateProblem {
        switch infoLong(CURLINFO_SSL_VERIFYRESULT) {
        case 18, 19: return .selfSigned            // DEPTH_ZERO_SELF_SIGNED_CERT, SELF_SIGNED_CERT_IN_CHAIN
        case 10: return .expired                    // CERT_HAS_EXPIRED
        case 9: return .notYetValid                 // CERT_NOT_YET_VALID
        case 2, 20, 21: return .unknownCA           // UNABLE_TO_GET_ISSUER_CERT(_LOCALLY), UNABLE_TO_VERIFY_LEAF_SIGNATURE
        case 62, 0: return .wrongName(host: host)   // HOSTNAME_MISMATCH, or libcurl's own name check
        case _ where detail.contains("subject name") || detail.contains("does not match"): return .wrongName(host: host)
        case let other: return .other("X509 error \(other): \(detail)")
        }
    }
}

private extension Double {
    var nonZero: Double? { self == 0 ? nil : self }
}

private func transfer(_ pointer: UnsafeMutableRawPointer?) -> CurlTransfer {
    Unmanaged<CurlTransfer>.fromOpaque(pointer!).takeUnretainedValue()
}

private let curlWrite: sxk_curl_data_fn = { data, size, count, context in
    guard let data else { return 0 }
    return transfer(context).receive(data, size * count)
}

private let curlHeader: sxk_curl_data_fn = { data, size, count, context in
    guard let data else { return 0 }
    return transfer(context).header(data, size * count)
}

/// Non-zero aborts the transfer (`CURLE_ABORTED_BY_CALLBACK`): Ctrl-C and task cancellation.
private let curlProgress: sxk_curl_xferinfo_fn = { context, _, _, _, _ in
    transfer(context).shouldAbort ? 1 : 0
}
