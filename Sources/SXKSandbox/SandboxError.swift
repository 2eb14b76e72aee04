/// Why the sandbox server could not start or was misconfigured; the description is the user message.
public enum SandboxError: Error, Sendable, Equatable, CustomStringConvertible {
    case nonLoopbackHost(String)
    case invalidConfig(String)
    case socket(String)
    case alreadyStarted

    public var description: String {
        switch self {
        case .nonLoopbackHost(let host): return "sandbox host '\(host)' is not a loopback address; use 127.0.0.1 or ::1"
        case .invalidConfig(let reason): return "sandbox configuration: \(reason)"
        case .socket(let reason): return "sandbox socket: \(reason)"
        case .alreadyStarted: return "sandbox server is already running"
        }
    }
}
