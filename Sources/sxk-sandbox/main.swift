import Dispatch
import FoundationEssentials
import SXKSandbox
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sxk-sandbox [--port N] [--host 127.0.0.1|::1] [--seed N] [--orders N] [--latency MS] [--fail-rate P] [--token-ttl S] [--hostile] [--spelling camel|snake]`
let usage = "usage: sxk-sandbox [--port N] [--host 127.0.0.1|::1] [--seed N] [--orders N] [--latency MS] [--fail-rate P] [--token-ttl S] [--hostile] [--spelling \(SandboxSpelling.names)]"

/// Writes a line to `fd` whole, unbuffered: a parent reading the pipe sees it at once.
func writeLine(_ fd: Int32, _ line: String) {
    let bytes = Array((line + "\n").utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        done += n
    }
}

func fail(_ message: String) -> Never {
    writeLine(STDERR_FILENO, "sxk-sandbox: \(message)")
    exit(2)
}

var config = SandboxConfig()
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let option = arguments.removeFirst()
    if option == "-h" || option == "--help" {
        print(usage)
        exit(0)
    }
    // Terminal escapes in names and messages, the token echoed in `userinfo` (SandboxHostile).
    if option == "--hostile" {
        config.hostile = true
        continue
    }
    guard let value = arguments.first else { fail("\(option) needs a value\n\(usage)") }
    arguments.removeFirst()
    switch option {
    case "--port": config.port = Int(value) ?? { fail("--port wants an integer, got '\(value)'") }()
    case "--host": config.host = value
    case "--seed": config.seed = UInt64(value) ?? { fail("--seed wants a non-negative integer, got '\(value)'") }()
    case "--orders": config.ordersPerRole = Int(value) ?? { fail("--orders wants an integer, got '\(value)'") }()
    case "--latency": config.latencyMs = Int(value) ?? { fail("--latency wants milliseconds, got '\(value)'") }()
    case "--fail-rate": config.failRate = Double(value) ?? { fail("--fail-rate wants a number 0…1, got '\(value)'") }()
    case "--token-ttl": config.tokenTTL = TimeInterval(value) ?? { fail("--token-ttl wants seconds, got '\(value)'") }()
    case "--spelling": config.spelling = SandboxSpelling(name: value) ?? { fail("--spelling wants \(SandboxSpelling.names), got '\(value)'") }()
    default: fail("unknown option '\(option)'\n\(usage)")
    }
}

let server = SandboxServer(config: config)
let url: URL
do { url = try server.start() } catch { fail(error.description) }
func emit(_ line: String) { writeLine(STDOUT_FILENO, line) }

emit("sxk sandbox listening on \(url.absoluteString)  (seed \(config.seed), \(config.ordersPerRole) orders per role\(config.hostile ? ", hostile" : "")\(config.spelling == .snake ? ", snake_case answers" : ""))")
emit(SandboxDemo.summary())
emit("Control API: \(url.absoluteString)/__sandbox/status · Ctrl-C stops.")

/// Blocks until SIGINT or SIGTERM (handled on a Dispatch queue, off the main actor).
nonisolated func waitForTerminationSignal() {
    let stopped = DispatchSemaphore(value: 0)
    var sources: [DispatchSourceSignal] = []
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { @Sendable in stopped.signal() }
        source.resume()
        sources.append(source)
    }
    stopped.wait()
    sources.forEach { $0.cancel() }
}

waitForTerminationSignal()
server.stop()
emit("sxk sandbox stopped")
exit(0)
