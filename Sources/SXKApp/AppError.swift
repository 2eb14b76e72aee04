import SXKAPI
import SXKFeatures
import SXKSession
import SXKShell

/// Failures of the app layer itself (bad input a spec cannot express, missing login, no terminal
/// for a prompt). Lower layers keep their own error types; `ExitCodes` maps all of them.
enum AppError: Error, CustomStringConvertible {
    /// Bad input found after parsing (exit 2).
    case usage(String)
    /// The command needs a login (exit 3).
    case notLoggedIn(String)
    /// Anything else the app refuses (exit 1).
    case failed(String)

    var description: String {
        switch self {
        case .usage(let m), .notLoggedIn(let m), .failed(let m): return m
        }
    }
}

/// The one place where an error becomes an exit status (README.md, Exit codes: 1 failed, 2 usage, 3 not logged in
/// or expired, 4 network, 130 interrupted).
enum ExitCodes {
    static func status(for error: any Error) -> Int32 {
        switch error {
        case let e as AppError:
            switch e {
            case .usage: return ExitStatus.usage
            case .notLoggedIn: return ExitStatus.notLoggedIn
            case .failed: return ExitStatus.failure
            }
        case let e as APIError: return e.kind.exitCode
        case let e as FeatureError:
            if let api = e.apiError { return api.kind.exitCode }
            if e.isUsage { return ExitStatus.usage }
            switch e {
            // No account list: nothing to switch to before a login, as for every command that needs one.
            case .notLoggedIn, .loginPageFirst, .noAccountList: return ExitStatus.notLoggedIn
            case .cancelled: return ExitStatus.interrupted
            default: return ExitStatus.failure
            }
        case let e as FollowedError: return status(for: e.then)
        case is UsageError: return ExitStatus.usage
        case is CancellationError: return ExitStatus.interrupted
        case let e as SessionError:
            // A profile name that cannot be one is a bad value the user gave (2); the rest is the state's (1).
            if case .invalidProfileName = e { return ExitStatus.usage }
            return ExitStatus.failure
        default: return ExitStatus.failure
        }
    }
}
