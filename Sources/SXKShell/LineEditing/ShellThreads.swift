import Synchronization

/// The shell's two threads of its own: the line reader and the signal watcher.
public enum ShellThreads {
    private static let early = Mutex<(reader: ReaderThread, signals: ReaderThread)?>(nil)

    /// Starts both now, for the next shell to take. A one-shot calls this before libcurl's load starts
    /// on another thread: glibc's loader holds its TLS lock while it maps and relocates the ≈ 30
    /// libraries (not while their constructors run) and `pthread_create` waits for that lock, so a
    /// thread the shell started during the load held the command's start up until then.
    public static func startEarly() {
        early.withLock { if $0 == nil { $0 = make() } }
    }

    /// The threads `startEarly` made, or new ones.
    static func take() -> (reader: ReaderThread, signals: ReaderThread) {
        early.withLock { threads in
            defer { threads = nil }
            return threads ?? make()
        }
    }

    private static func make() -> (reader: ReaderThread, signals: ReaderThread) {
        // The watcher's `terminate` saves and writes the HAR file on its thread: the default stack.
        (ReaderThread(), ReaderThread(name: "sxk-signals", receivesSignals: false, stackSize: nil))
    }
}
