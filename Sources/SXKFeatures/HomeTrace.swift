import SXKCore

/// The dialog the home screen would show after `initialize` (seed 000 §4.4), in priority order.
public enum HomeDialog: String, Sendable, Equatable {
    case permission
    case scenic
    case locationTimeout
}

/// One step of the `HomeViewModel.initialize` replay: what it read, called and stored.
public struct HomeStep: Sendable, Equatable {
    /// The app's name for the step, e.g. `locationStateStore.restoreStateIfNeeded()`.
    public var name: String
    public var reads: [String]
    public var calls: [CallRecord]
    public var stores: [String]
    /// What the step decided or why it was skipped.
    public var notes: [String]
    public var skipped: Bool

    public init(name: String, reads: [String] = [], calls: [CallRecord] = [], stores: [String] = [], notes: [String] = [], skipped: Bool = false) {
        self.name = name; self.reads = reads; self.calls = calls; self.stores = stores; self.notes = notes; self.skipped = skipped
    }

    public var json: JSONValue {
        [
            "name": .string(name), "skipped": .bool(skipped),
            "reads": .array(reads.map { .string($0) }), "calls": .array(calls.map(\.json)),
            "stores": .array(stores.map { .string($0) }), "notes": .array(notes.map { .string($0) }),
        ]
    }
}

/// One dialog condition as evaluated, in priority order.
public struct DialogCheck: Sendable, Equatable {
    public var dialog: HomeDialog
    public var show: Bool
    public var reason: String
    /// False when a higher-priority dialog already won, so this one was not evaluated.
    public var evaluated: Bool

    public var json: JSONValue {
        ["dialog": .string(dialog.rawValue), "evaluated": .bool(evaluated), "show": .bool(show), "reason": .string(reason)]
    }
}

/// The whole replay: steps, the dialog checks, and the verdict.
public struct HomeTrace: Sendable, Equatable {
    public var steps: [HomeStep]
    public var checks: [DialogCheck]
    /// The dialog the app would show, or nil.
    public var dialog: HomeDialog?
    /// One line: which dialog and why, or why none.
    public var verdict: String

    public var calls: [CallRecord] { steps.flatMap(\.calls) }

    public var json: JSONValue {
        [
            "steps": .array(steps.map(\.json)), "dialogs": .array(checks.map(\.json)),
            "dialog": dialog.map { .string($0.rawValue) } ?? .null, "verdict": .string(verdict),
        ]
    }
}
