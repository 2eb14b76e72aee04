import SXKCore

/// One stored value a launch step reads: the key as the app names it and what the profile holds.
public struct StoredRead: Sendable, Equatable {
    public var key: String
    /// The value for `--json`: the stored scalar, `null` when absent, the masked token, or `{"count": n}` for a list.
    public var value: JSONValue
    /// The value as text: `true`, `nil`, `abcd…wxyz`, `12 permissions`.
    public var text: String

    public init(key: String, value: JSONValue, text: String) {
        self.key = key; self.value = value; self.text = text
    }

    public var line: String { "\(key) = \(text)" }
}

/// One SDK decision of `AppDelegate.didFinishLaunching` (seed 000 §1).
public struct SDKDecision: Sendable, Equatable {
    /// `Umeng`, `WeChat`, `AMap`.
    public var name: String
    /// The app's call, e.g. `UmengBootstrap.configureIfNeeded()`.
    public var call: String
    public var initialised: Bool
    /// The rule in English, and the seed's own words.
    public var rule: String
    public var seed: String
    /// Why this launch does or does not initialise it, from the values read.
    public var reason: String
    public var reads: [StoredRead]
    /// The app model's rule behind the decision (`AppModel.launchSDKs`).
    public var model: ModelRule

    public var json: JSONValue {
        model.basis.annotate([
            "name": .string(name), "call": .string(call), "initialised": .bool(initialised),
            "rule": .string(rule), "seed": .string(seed), "reason": .string(reason), "reads": readsJSON(reads),
        ])
    }
}

/// The root screen `AppRouter.makeRootViewController()` picks (seed 000 §1 SceneDelegate).
public enum RootScreen: String, Sendable, Equatable {
    case loginPage
    case mainTab

    /// The view controller the app makes.
    public var controller: String {
        switch self {
        case .loginPage: return "UINavigationController(rootViewController: LoginViewController())"
        case .mainTab: return "MainTabBarController"
        }
    }
}

/// Which root screen, and why.
public struct RootDecision: Sendable, Equatable {
    public var screen: RootScreen
    public var reason: String
    public var reads: [StoredRead]

    public var json: JSONValue {
        Rules.root.annotate(["screen": .string(screen.rawValue), "controller": .string(screen.controller), "reason": .string(reason), "reads": readsJSON(reads)])
    }
}

/// A backend call the first screen makes, with what it reads from storage and where its answer goes.
public struct BootCall: Sendable, Equatable {
    /// Position among the calls the first screen makes (from 1).
    public var order: Int
    public var method: String
    public var path: String
    /// The app's call chain, e.g. `HomeViewModel.loadPermissions(api:force: true) -> HomeAPI.rolePermissions()`.
    public var caller: String
    /// The condition under which the app makes it (`always` for the unconditional ones).
    public var condition: String
    public var reads: [StoredRead]
    /// What the app keeps of the answer (AppStore keys, or memory only).
    public var stores: [String]

    public var json: JSONValue {
        [
            "order": .int(order), "method": .string(method), "path": .string(path), "caller": .string(caller),
            "condition": .string(condition), "reads": readsJSON(reads), "stores": .array(stores.map { .string($0) }),
        ]
    }
}

/// One step of the first screen: the app's name for it, what it reads, the calls it makes, what it
/// would store and what it decides.
public struct BootStep: Sendable, Equatable {
    public var name: String
    public var reads: [StoredRead]
    public var calls: [BootCall]
    public var stores: [String]
    public var notes: [String]
    /// True when the step's condition does not hold for this state (its call is not made).
    public var skipped: Bool
    public var rule: RuleBasis

    public init(name: String, rule: RuleBasis, reads: [StoredRead] = [], calls: [BootCall] = [], stores: [String] = [], notes: [String] = [], skipped: Bool = false) {
        self.name = name; self.rule = rule; self.reads = reads; self.calls = calls; self.stores = stores; self.notes = notes; self.skipped = skipped
    }

    public var json: JSONValue {
        rule.annotate([
            "name": .string(name), "skipped": .bool(skipped), "reads": readsJSON(reads),
            "calls": .array(calls.map(\.json)), "stores": .array(stores.map { .string($0) }),
            "notes": .array(notes.map { .string($0) }),
        ])
    }
}

/// The whole cold start for one stored state (seed 000 §1 and §7): launch SDKs, root screen, the
/// first screen's steps and its API calls in order. Nothing in it was sent to a server.
public struct BootTrace: Sendable, Equatable {
    public var sdks: [SDKDecision]
    public var root: RootDecision
    /// `login page` or `home`.
    public var firstScreen: String
    public var steps: [BootStep]
    /// The dialogs the home screen would evaluate (main tab only), predicted from the stored state.
    public var checks: [DialogCheck]
    /// One line: what this user sees and which calls go out.
    public var verdict: String
    /// What the home's first appearance would write (main tab only; from an offline home replay on a
    /// copy), empty until `BootReplay.replay(apply:)` fills it.
    public var changes: [KeyChange] = []
    /// True when `changes` were written (`apply`).
    public var applied = false
    /// True when the home's first call is answered by a rejection this process saw: login page, no dialog.
    public var sessionExpired = false

    /// The home dialog, as every view gives it (null on the login page).
    public var dialogAnswer: JSONValue { HomeTrace.dialogAnswer(checks: checks, expired: sessionExpired) }

    /// The first screen's calls in the order the app makes them.
    public var calls: [BootCall] { steps.flatMap(\.calls) }

    public var json: JSONValue {
        [
            "launch": [
                "sdks": .array(sdks.map(\.json)),
                "backendCalls": .int(0),
                "note": .string(BootReplay.launchNote),
            ],
            "root": root.json,
            "firstScreen": ["name": .string(firstScreen), "steps": .array(steps.map(\.json))],
            "calls": .array(calls.map(\.json)),
            "dialogs": .array(checks.map(\.json)),
            "dialog": dialogAnswer, "sessionExpired": .bool(sessionExpired),
            "verdict": .string(verdict),
            "coldStart": BootReplay.coldStartNote.json,
            "changes": .array(changes.map(\.json)),
            "applied": .bool(applied),
        ]
    }
}

func readsJSON(_ reads: [StoredRead]) -> JSONValue {
    .object(JSONObject(reads.map { (key: $0.key, value: $0.value) }))
}
