import SXKAPI
import SXKCore
import SXKSession

/// Every failure of the feature layer as one line for the user. API failures are wrapped once,
/// with the operation as context, and stay reachable through `apiError` so the app can map exit codes.
public enum FeatureError: Error, Sendable, Equatable, CustomStringConvertible {
    // Login form (seed 000 §3.3), each rule its own case.
    case invalidPhone(String)
    case emptyPassword
    case privacyNotAccepted
    /// The login answer held no account to choose.
    case noAccounts
    /// `--account ID|INDEX` or switch-account named no account of this login.
    case accountNotFound(String, available: [String])
    /// A bare id that is both a scenic and a store account of this login.
    case ambiguousAccount(String, choices: [String])
    /// No login in this shell has a list of accounts (switch-account before login).
    case noAccountList
    case notLoggedIn
    /// A stored state without a token: the app opens the login page, so there is no home to replay.
    case loginPageFirst
    // Scope.
    case unknownRole(String, valid: [String])
    case roleNotHeld(String, held: [String])
    case noRole
    /// No role stored: the common menus listed are those of the role the next home takes (`next`).
    case commonMenusNeedRole(next: String)
    case noScenicSelected
    case noStoreSelected
    /// `role -` and the like with nothing switched from yet.
    case noPrevious(String)
    case scenicNotFound(String, available: [String])
    case ambiguousScenic(String, matches: [String])
    case storeNotFound(String, available: [String])
    case ambiguousStore(String, matches: [String])
    /// The role's endpoint family is not one the app has (orders/stats exist for three roles only).
    case unsupportedRole(String, feature: String)
    // Dates.
    case invalidDate(String)
    case invalidDateRange(from: String, to: String)
    case conflictingDateOptions
    // Home.
    case invalidReminderMinutes(Int)
    case menuNotVisible(String)
    case invalidPageArguments(String)
    /// An API failure with what the feature was doing when it happened.
    case api(APIError, context: String)
    /// The operation was cancelled (Ctrl-C).
    case cancelled
    /// Any other failure, as its one line.
    case failed(String)
    /// set-user answered with another account than the one a probe asked for (the line says which).
    case otherAccountAnswered(String)
    /// A state file could not be written or read; the message is the session layer's line.
    case storageFailed(String)

    /// Names in the lists (accounts, scenics, stores) come from the server and queries from the user:
    /// both pass `TerminalText.sanitize`, since this line reaches a terminal.
    public var description: String {
        let safe = TerminalText.sanitize
        switch self {
        case .invalidPhone(let p):
            // A phone mistyped is worth showing; any other word may be a password typed in its place.
            guard Redaction.TypedInPlace.phone.mayShow(p) else {
                return "phone is not valid (what was typed is not shown: it is not a phone number mistyped, and may be a password): 11 digits starting with 1"
            }
            let shown = p.count > 20 ? String(p.prefix(20)) + "…" : p
            return "phone '\(safe(shown))' is not valid: 11 digits starting with 1"
        case .emptyPassword: return "password must not be empty"
        case .privacyNotAccepted: return "the privacy agreement must be accepted (--accept-privacy)"
        case .noAccounts: return "login returned no account"
        case .accountNotFound(let query, let available):
            // An account is an id, a list number or ID:TYPE; any other word may be a password typed in its place.
            guard Redaction.TypedInPlace.account.mayShow(query) else {
                return "no such account in this login (what was typed is not shown: it is not an id or list number, and may be a password); choose one of: \(safe(available.joined(separator: ", ")))"
            }
            return "no account '\(safe(query))' in this login; choose one of: \(safe(available.joined(separator: ", ")))"
        case .ambiguousAccount(let id, let choices):
            return "account \(safe(id)) is both \(safe(choices.joined(separator: " and "))) — say which (e.g. \(safe(choices.first ?? id)))"
        case .noAccountList: return "no account list in this shell — run `login` first"
        case .notLoggedIn: return "not logged in — run `login`"
        case .loginPageFirst:
            return "no token: the app opens the login page, so the home never runs (seed 000 §1) — `boot` replays that launch"
        case .unknownRole(let code, let valid):
            return "unknown role '\(safe(code))'; valid roles: \(valid.isEmpty ? "(none)" : safe(valid.joined(separator: ", ")))"
        case .roleNotHeld(let code, let held):
            return "this account does not hold role '\(safe(code))'; it holds: \(held.isEmpty ? "(none)" : safe(held.joined(separator: ", ")))"
        case .noRole: return "no role selected — run `role CODE`"
        case .otherAccountAnswered(let line): return line
        case .commonMenusNeedRole(let next):
            return "no role stored: `menus common` lists the role the next home takes, \(safe(next)) \(Rules.roleMatch.marker); choose it with `role \(safe(next))` to change its common menus"
        case .noScenicSelected: return "no scenic selected — run `scenic ID`"
        case .noStoreSelected: return "no store selected — run `store ID`"
        case .noPrevious(let kind): return "no previous \(kind) to go back to in this profile"
        case .scenicNotFound(let query, let available):
            return "no scenic '\(safe(query))' for this role; choose one of: \(available.isEmpty ? "(none)" : safe(available.joined(separator: ", ")))"
        case .ambiguousScenic(let query, let matches):
            return "scenic '\(safe(query))' is ambiguous: \(safe(matches.joined(separator: ", ")))"
        case .storeNotFound(let query, let available):
            return "no store '\(safe(query))' in this scenic; choose one of: \(available.isEmpty ? "(none)" : safe(available.joined(separator: ", ")))"
        case .ambiguousStore(let query, let matches):
            return "store '\(safe(query))' is ambiguous: \(safe(matches.joined(separator: ", ")))"
        case .unsupportedRole(let role, let feature):
            return "\(feature) has no endpoint for role '\(safe(role))' (photographer, scenicAdmin, storeAdmin)"
        case .invalidDate(let text): return "date '\(safe(text))' is not a valid yyyy-MM-dd day"
        case .invalidDateRange(let from, let to): return "--from \(safe(from)) is after --to \(safe(to))"
        case .conflictingDateOptions: return "use either --period or --from/--to, not both"
        case .invalidReminderMinutes(let m):
            let range = LocationStateStore.reminderMinutes
            return "reminder minutes must be between \(range.lowerBound) and \(range.upperBound), or 0 to turn it off (got \(m))"
        case .menuNotVisible(let uri): return "menu '\(safe(uri))' is not visible for this role's permissions"
        case .invalidPageArguments(let why): return safe(why)
        case .api(let error, let context):
            // A context that only repeats the path the error names already adds nothing
            // (`GET /api/x: …`, never `/api/x: GET /api/x: …`).
            let redundant = context.isEmpty || context == error.request?.path || context == error.request?.description
            return redundant ? error.description : "\(context): \(error)"
        case .storageFailed(let line): return safe(line)
        case .cancelled: return "cancelled"
        case .failed(let line): return safe(line)
        }
    }

    /// A page walk met an answer naming another page than the one it asked for.
    public static func pageNotAsked(asked: Int, answered: Int) -> FeatureError {
        .failed("the server answered page \(answered) when asked for page \(asked): it does not page this list as asked; stopped there")
    }

    /// The API failure underneath, for exit codes (session expired → 3, network → 4).
    public var apiError: APIError? {
        if case .api(let e, _) = self { return e }
        return nil
    }

    /// True for errors the user fixes by changing arguments (exit 2 in the shell).
    public var isUsage: Bool {
        switch self {
        case .invalidPhone, .emptyPassword, .privacyNotAccepted, .accountNotFound, .ambiguousAccount, .unknownRole, .roleNotHeld,
            .scenicNotFound, .ambiguousScenic, .storeNotFound, .ambiguousStore, .invalidDate, .invalidDateRange,
            .conflictingDateOptions, .invalidReminderMinutes, .invalidPageArguments:
            return true
        default:
            return false
        }
    }

    var isSessionExpired: Bool { apiError?.kind == .sessionExpired }

    /// Cancelled (Ctrl-C), whether the task saw it (`cancelled`) or the transfer did (an API error of that kind).
    public var isCancelled: Bool { self == .cancelled || apiError?.kind == .cancelled }

    /// Runs one call, its error wrapped once with `context` (`from`).
    static func catching<T>(_ context: String, _ body: () async throws -> T) async throws(FeatureError) -> T {
        do { return try await body() } catch { throw from(error, context: context) }
    }

    /// Any error of a call as this layer's error, wrapped once with `context`.
    static func from(_ error: any Error, context: String) -> FeatureError {
        switch error {
        case let e as FeatureError: return e
        case let e as APIError: return .api(e, context: context)
        case let e as SessionError: return .storage(e)
        case is CancellationError: return .cancelled
        default: return .failed("\(context): \(error)")
        }
    }

    /// Wraps an API error once with context; passes a FeatureError through unchanged.
    static func wrap(_ error: any Error, _ context: String) -> any Error {
        if let e = error as? APIError { return FeatureError.api(e, context: context) }
        if let e = error as? SessionError { return FeatureError.storage(e) }
        return error
    }
}

extension FeatureError {
    /// A state file could not be read or written (lock held, disk full…).
    static func storage(_ error: SessionError) -> FeatureError { .storageFailed(error.description) }
}
