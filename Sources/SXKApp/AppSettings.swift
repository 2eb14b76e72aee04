import FoundationEssentials
import SXKShell
import SXKCore

/// Shell switches that commands flip at run time (`trace on`, `timing on`), read from the
/// network observer's threads, hence the lock.
final class AppSettings: @unchecked Sendable {
    private let lock = Lock()
    private var traceOn: Bool
    private var timingOn = false
    /// The shell's "waiting for …" line, kept here because every `AppServices` (after `env use` or
    /// `import-defaults`) shares these settings.
    let status: StatusLine

    init(trace: Bool, status: StatusLine = .disabled) {
        traceOn = trace
        self.status = status
    }

    var trace: Bool {
        get { lock.withLock { traceOn } }
        set { lock.withLock { traceOn = newValue } }
    }

    var timing: Bool {
        get { lock.withLock { timingOn } }
        set { lock.withLock { timingOn = newValue } }
    }
}
