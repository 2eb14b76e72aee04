#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import SXKCore

/// Where a command writes text: buffered, flushed explicitly (and by the runner after each command).
public protocol OutputSink: AnyObject, Sendable {
    func write(_ text: String)
    func write(bytes: [UInt8])
    func flush()
    /// The error (errno) a write met since the last call, other than the reader going away: a full
    /// disk or a file-size limit lost output, which the command must not report as done.
    func takeWriteError() -> Int32?
    /// True once a write found the reader gone (EPIPE: `| head -1` has read enough).
    var readerGone: Bool { get }
    /// The columns a message line written here wraps within: the terminal's, read now (a resize
    /// counts), when this sink writes to one; nil for a pipe or file, where a message stays one line.
    var messageWidth: Int? { get }
}

extension OutputSink {
    public func takeWriteError() -> Int32? { nil }
    public var readerGone: Bool { false }
    public var messageWidth: Int? { nil }

    /// Writes `text` and a newline.
    public func line(_ text: String = "") { write(text + "\n") }
}

/// A buffered writer to a file descriptor (1 or 2). Stops quietly when the reader goes away (EPIPE);
/// any other write error stops it too and is kept for `takeWriteError`.
public final class StandardOutput: OutputSink, @unchecked Sendable {
    private let fd: Int32
    private let lock = Lock()
    private var buffer: [UInt8] = []
    private var broken = false
    private var gone = false
    private var writeError: Int32?
    /// The error that broke the descriptor (not EPIPE): every later write is lost to it as well.
    private var failure: Int32?
    private let limit: Int
    /// Erased before this sink writes (set when the descriptor is the terminal the status line is on).
    private var status: StatusLine?

    public static let stdout = StandardOutput(fd: 1)
    public static let stderr = StandardOutput(fd: 2, limit: 0)

    /// `limit` bytes are gathered before a write happens on its own (0 = write at once).
    public init(fd: Int32, limit: Int = 64 * 1024) {
        self.fd = fd
        self.limit = limit
        buffer.reserveCapacity(limit + 1024)
    }

    public var isBroken: Bool { lock.withLock { broken } }
    public var readerGone: Bool { lock.withLock { gone } }

    public var messageWidth: Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    public func takeWriteError() -> Int32? {
        lock.withLock {
            defer { writeError = nil }
            return writeError
        }
    }

    /// Makes every write to this descriptor erase `status` first (the descriptor shows on the same terminal).
    public func attach(_ status: StatusLine) { lock.withLock { self.status = status } }

    public func write(_ text: String) {
        lock.withLock {
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= limit { drain() }
        }
    }

    public func write(bytes: [UInt8]) {
        lock.withLock {
            buffer.append(contentsOf: bytes)
            if buffer.count >= limit { drain() }
        }
    }

    public func flush() { lock.withLock { drain() } }

    private func drain() {
        defer { buffer.removeAll(keepingCapacity: true) }
        if buffer.isEmpty { return }
        if broken {
            // Output of a later command (`--keep-going` on a full disk) is lost too, and is said.
            if let failure { writeError = failure }
            return
        }
        if let status {
            status.output(endsLine: buffer.last == 0x0A) { writeBuffer() }
        } else {
            writeBuffer()
        }
    }

    private func writeBuffer() {
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc_write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    if errno == EPIPE { gone = true } else { writeError = errno; failure = errno }
                    broken = true
                    return
                }
                offset += n
            }
        }
    }
}

@inline(__always) private func Glibc_write(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, p, n)
    #else
    return Darwin.write(fd, p, n)
    #endif
}

/// Collects everything written, for tests and for capturing output.
public final class BufferOutput: OutputSink, @unchecked Sendable {
    private let lock = Lock()
    private var bytes: [UInt8] = []
    /// The width messages written here wrap within: a buffer that becomes a screen (a `watch` frame).
    public let messageWidth: Int?
    public init(messageWidth: Int? = nil) { self.messageWidth = messageWidth }
    public func write(_ text: String) { lock.withLock { bytes.append(contentsOf: text.utf8) } }
    public func write(bytes more: [UInt8]) { lock.withLock { bytes.append(contentsOf: more) } }
    public func flush() {}
    public var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    public func clear() { lock.withLock { bytes.removeAll() } }
}
