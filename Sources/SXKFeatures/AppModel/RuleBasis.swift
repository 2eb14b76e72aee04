import SXKCore

/// Whether a verdict rests on the app's documents or on sxk's own choice where they are silent.
public enum Basis: String, Sendable, Equatable {
    /// The seeds state the rule (seed file and section in `source`).
    case documented
    /// The seeds are silent; sxk chose (the docs/app-behaviour.md section in `source` says why).
    case inferred
}

/// The basis of one step or verdict and where it is stated: `seed 000 §4.4`, or a section of
/// docs/app-behaviour.md for an inferred rule.
public struct RuleBasis: Sendable, Equatable {
    public var basis: Basis
    public var source: String

    public init(_ basis: Basis, _ source: String) {
        self.basis = basis; self.source = source
    }

    public static func seed(_ section: String) -> RuleBasis { RuleBasis(.documented, section) }
    /// An inferred rule, explained in docs/app-behaviour.md under `anchor`.
    public static func inferred(_ anchor: String) -> RuleBasis { RuleBasis(.inferred, "docs/app-behaviour.md#\(anchor)") }

    /// `[documented: seed 000 §4.2]`: the visible marker in text output.
    public var marker: String { "[\(basis.rawValue): \(source)]" }

    /// Adds `"basis"` and `"source"` to a step's JSON object.
    func annotate(_ value: JSONValue) -> JSONValue {
        guard case .object(var o) = value else { return value }
        o["basis"] = .string(basis.rawValue)
        o["source"] = .string(source)
        return .object(o)
    }
}

/// The rule references used by `home`, `boot`, `explain` and `context diff`, in one place so a rule
/// cites the same section everywhere.
public enum Rules {
    public static let launch = RuleBasis.seed("seed 000 §1")
    public static let root = RuleBasis.seed("seed 000 §1")
    public static let loginForm = RuleBasis.seed("seed 000 §3.1")
    public static let loginConfig = RuleBasis.seed("seed 000 §3.2")
    public static let loginFlow = RuleBasis.seed("seed 000 §3.3, §7.1")
    public static let mainTab = RuleBasis.seed("seed 000 §4.1")
    public static let locationRestore = RuleBasis.seed("seed 000 §4.2, §6.3")
    public static let displayState = RuleBasis.seed("seed 000 §4.2")
    /// What counts as "a valid scenic": > 0 (the seed says only "无有效景区时清空").
    public static let validScenic = RuleBasis.inferred("valid-scenic")
    public static let permissionLoad = RuleBasis.seed("seed 000 §4.2")
    /// No entry for the current role: empty permissions, never another role's.
    public static let roleMatch = RuleBasis.inferred("permissions")
    public static let commonMenus = RuleBasis.seed("seed 000 §6.2")
    /// A stored empty list is a record ("没有常用应用记录时" names no empty one): no default is written over it.
    public static let emptyCommonMenusRecord = RuleBasis.inferred("menus")
    /// Which 4 menus become the default: the first 4 of the permission list, in its order.
    public static let commonMenuChoice = RuleBasis.inferred("menus")
    /// Menu titles from sxk's catalog (a display aid).
    public static let menuTitles = RuleBasis.inferred("menus")
    public static let storeLoad = RuleBasis.seed("seed 000 §4.3")
    public static let dialogPriority = RuleBasis.seed("seed 000 §4.4")
    public static let permissionDialog = RuleBasis.inferred("dialogs")
    public static let scenicDialog = RuleBasis.inferred("dialogs")
    public static let simplifiedTop = RuleBasis.inferred("dialogs")
    public static let locationCallCondition = RuleBasis.seed("seed 000 §4.4")
    /// No stored user id: no location detail call (its `staff_id` is the user id; the seed names no other).
    public static let locationNeedsUserId = RuleBasis.inferred("location")
    public static let locationTimeoutDecision = RuleBasis.inferred("location")
    /// Reminder minutes stored as 0 or less count as not set (the seed: "本地设置了位置提醒分钟数").
    public static let reminderUnset = RuleBasis.inferred("location")
    /// A last report ahead of the clock: the countdown counts the whole 2 hours from now.
    public static let futureReport = RuleBasis.inferred("location")
    public static let profileReload = RuleBasis.seed("seed 000 §5.3")
    /// A photographer's real-name and bank-card calls sent beside userinfo (the seed: after it).
    public static let profileSideCalls = RuleBasis.inferred("profile")
    /// A failed permission load (not a rejected token) keeps the stored permissions (the seed is silent).
    public static let failedPermissionLoad = RuleBasis.inferred("permissions")
    public static let storage = RuleBasis.seed("seed 000 §6.1")
    public static let scopeJoiner = RuleBasis.inferred("storage")
    public static let missingAccountType = RuleBasis.inferred("storage")
    /// "When needed" (必要时) read as: when the current role's entry matched.
    public static let roleNameWrite = RuleBasis.inferred("permissions")
    /// The location detail's `staff_id` is the stored user id (the seed writes `staff_id=...`).
    public static let staffId = RuleBasis.inferred("location")
    /// An expired token: `sessionDidExpire` clears the login state and shows the login page.
    public static let sessionExpiry = RuleBasis.seed("seed 000 §1, §2")
    /// The account field sxk fills from the login phone when the account carries none.
    public static let loginPhone = RuleBasis.inferred("login")
    /// A role switch writes the role code and name (sxk's `role`; the seeds describe no role switch).
    public static let roleSwitch = RuleBasis.inferred("scope-switches")
    /// A key in an account's scope that sxk does not model (the queue-calling settings).
    public static let unmodelledKey = RuleBasis.inferred("storage")
    /// A time key given as text in an export (a device stores a Date): read in the backend's zone.
    public static let importedTextTime = RuleBasis.inferred("storage")
    /// Offline, the stored role-permission list stands in for the forced load's answer.
    public static let offlineStandIn = RuleBasis.inferred("replays")
    /// A device snapshot inspected on a copy.
    public static let snapshot = RuleBasis.inferred("snapshots")
    /// `switch-account` in a new process reuses the formal token for set-user.
    public static let switchAccountToken = RuleBasis.inferred("switch-account")
}
