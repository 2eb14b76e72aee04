import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives one-line warnings (unsafe or corrupt files) so the shell decides where they go.
public typealias WarningSink = @Sendable (String) -> Void

/// Everything the session layer can fail with; `description` is the one line the user sees.
public enum SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call on a state file failed (`op` says what was being done).
    case io(path: String, op: String, errno: Int32)
    /// A state folder another user owns or others can write: refused, with why.
    case unsafeFolder(path: String, reason: String)
    /// Another sxk holds the profile lock for longer than we wait.
    case locked(path: String)
    case invalidProfileName(String)
    /// A file the user gave us (import) cannot be used.
    case badInput(path: String, reason: String)
    /// A value or request the stores refuse (unknown menu URI, negative minutes…).
    case rejected(String)
    /// Another sxk process logged in or out on the profile meanwhile: the profile is its session
    /// now, and this process's write for its own session was not made.
    case replaced(String)

    /// What a write refused for that reason says.
    public static let anotherSession = "the profile holds another session now (another sxk process logged in or out): nothing was written"

    public var description: String {
        switch self {
        case .io(let path, let op, let code):
            return "cannot \(op) \(path): \(String(cString: strerror(code)))"
        case .unsafeFolder(let path, let reason):
            return "refusing state folder \(path): \(reason)"
        case .locked(let path):
            return "profile is busy: another sxk holds \(path)"
        case .invalidProfileName(let name):
            return "invalid profile name '\(name)': one folder name, not starting with '-', without '/', '..', control or invisible characters (letters, digits, '.', '-' and '_' are safe)"
        case .badInput(let path, let reason):
            return "cannot import \(path): \(reason)"
        case .rejected(let message), .replaced(let message):
            return message
        }
    }
}
