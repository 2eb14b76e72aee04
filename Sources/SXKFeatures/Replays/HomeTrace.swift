import SXKCore

/// The dialog the home screen would show after `initialize` (seed 000 §4.4), in priority order.
public enum HomeDialog: String, Sendable, Equatable, CaseIterable {
    case permission
    case scenic
    case locationTimeout
}

/// One backend call of a replay, in the order the app makes it: made (with its record) or, offline
/// or when the app would not need it, listed as not made with the reason.
public struct ReplayCall: Sendable, Equatable {
    public var order: Int
    public var method: String
    public var path: String
    /// False with `--offline`: the stored answer (if any) stood in for it.
    public var made: Bool
    public var record: CallRecord?
    public var note: String?
    /// The exit status its failure stands for (4 no answer, 1 an error answer); nil when it was
    /// answered, not made, or answered by a rejected token (which the replay follows as the app does).
    public var failureStatus: Int32?

    public var ok: Bool { record?.ok ?? false }
    public var error: String? { record?.error ?? (made ? nil : note) }
    public var ms: Double { record?.ms ?? 0 }

    public var json: JSONValue {
        var o: JSONObject = ["order": .int(order), "method": .string(method), "path": .string(path), "made": .bool(made)]
        if let record {
            o["ok"] = .bool(record.ok)
            o["ms"] = .decimal(record.ms, digits: 1)
            if let error = record.error { o["error"] = .string(error) }
        }
        if let note { o["note"] = .string(note) }
        return .object(o)
    }
}

/// One step of the `HomeViewModel.initialize` replay: what it read, called and would store, and the
/// basis of what it decided.
public struct HomeStep: Sendable, Equatable {
    /// The app's name for the step, e.g. `locationStateStore.restoreStateIfNeeded()`.
    public var name: String
    public var reads: [String]
    public var calls: [ReplayCall]
    public var stores: [String]
    /// What the step decided or why it was skipped.
    public var notes: [String]
    public var skipped: Bool
    public var rule: RuleBasis
    /// The keys the step changed on the replay's copy (recorded by the engine, not read from `stores`).
    public var writes: [String] = []
    /// The basis of which keys it writes, when that is not the step's own (the expiry's key list).
    public var writesRule: RuleBasis?
    /// The stored values as the step found them, after the steps before it (what `boot` shows it reading).
    public var readState: [String: JSONValue] = [:]

    public init(name: String, rule: RuleBasis, reads: [String] = [], calls: [ReplayCall] = [], stores: [String] = [], notes: [String] = [], skipped: Bool = false) {
        self.name = name; self.rule = rule; self.reads = reads; self.calls = calls; self.stores = stores; self.notes = notes; self.skipped = skipped
    }

    public var json: JSONValue {
        rule.annotate([
            "name": .string(name), "skipped": .bool(skipped),
            "reads": .array(reads.map { .string($0) }), "calls": .array(calls.map(\.json)),
            "stores": .array(stores.map { .string($0) }), "notes": .array(notes.map { .string($0) }),
        ])
    }
}

/// One dialog condition as evaluated, in priority order, with the basis of its condition.
public struct DialogCheck: Sendable, Equatable {
    public var dialog: HomeDialog
    public var show: Bool
    public var reason: String
    /// False when a higher-priority dialog already won, so this one was not evaluated.
    public var evaluated: Bool
    /// True when it depends on an answer that was not had (the location detail offline, or failed).
    public var undecided = false
    public var rule: RuleBasis

    /// `show`, `no`, `not evaluated` or `undecided`.
    public var state: String { !evaluated ? "not evaluated" : show ? "SHOW" : undecided ? "undecided" : "no" }

    public init(dialog: HomeDialog, show: Bool, reason: String, evaluated: Bool, rule: RuleBasis) {
        self.dialog = dialog; self.show = show; self.reason = reason; self.evaluated = evaluated; self.rule = rule
    }

    public var json: JSONValue {
        rule.annotate(["dialog": .string(dialog.rawValue), "evaluated": .bool(evaluated), "show": .bool(show),
                       "undecided": .bool(undecided), "reason": .string(reason)])
    }
}

/// The whole replay: steps, the dialog checks, the calls in order, the key diff, and the verdict.
public struct HomeTrace: Sendable, Equatable {
    public var steps: [HomeStep]
    public var checks: [DialogCheck]
    /// The dialog the app would show, or nil.
    public var dialog: HomeDialog?
    /// One line: which dialog and why, or why none.
    public var verdict: String
    /// The basis of the verdict: inferred as soon as an inferred condition decided it.
    public var verdictRule: RuleBasis
    /// True when no call was made (`--offline`, or no token).
    public var offline: Bool
    /// What the app would write, key by key (sxk's own snapshot stamp left out).
    public var changes: [KeyChange]
    /// True when `changes` were written to the profile (`--apply`).
    public var applied: Bool
    /// True when the server rejected the token during the replay: the app goes back to the login page.
    public var sessionExpired = false

    public init(steps: [HomeStep], checks: [DialogCheck], dialog: HomeDialog?, verdict: String, verdictRule: RuleBasis,
                offline: Bool, changes: [KeyChange], applied: Bool, sessionExpired: Bool = false) {
        self.steps = steps; self.checks = checks; self.dialog = dialog; self.verdict = verdict; self.verdictRule = verdictRule
        self.offline = offline; self.changes = changes; self.applied = applied; self.sessionExpired = sessionExpired
    }

    public var calls: [ReplayCall] { steps.flatMap(\.calls) }

    /// The step whose write `key` holds at the end of the replay: the last one that changed it.
    public func writer(of key: String) -> HomeStep? { steps.last { $0.writes.contains(key) } }

    /// The exit status of a replay whose calls did not all get an answer to follow: 4 when one got
    /// none (unreachable, timeout), else 1 when one got an error answer, else 0. The replay still
    /// shows what the app would do with what it got.
    public var failureStatus: Int32 {
        let failed = calls.compactMap(\.failureStatus)
        return failed.contains(4) ? 4 : failed.isEmpty ? 0 : 1
    }

    /// `failureStatus` said on stderr, one line per call behind it, so a script sees why the run failed
    /// without reading the replay.
    public var failureLines: [String] {
        calls.sorted { $0.order < $1.order }.filter { $0.failureStatus != nil }.map {
            // The error names the request (`GET /api/…: HTTP 502 …`).
            "the app's call #\($0.order) failed: \($0.error ?? "\($0.method) \($0.path): no answer"); the replay shows what the app does then"
        }
    }

    /// The one answer every view gives for a state: the dialog's name, `undecided` when it rests on an
    /// answer not had (the location detail offline), or null for none.
    public var dialogAnswer: JSONValue { Self.dialogAnswer(checks: checks, expired: sessionExpired) }

    static func dialogAnswer(checks: [DialogCheck], expired: Bool) -> JSONValue {
        if expired { return .null }
        if let shown = checks.first(where: { $0.show }) { return .string(shown.dialog.rawValue) }
        return checks.contains { $0.undecided } ? .string("undecided") : .null
    }

    public var json: JSONValue {
        [
            "dialog": dialogAnswer, "sessionExpired": .bool(sessionExpired),
            "offline": .bool(offline), "applied": .bool(applied),
            "steps": .array(steps.map(\.json)), "calls": .array(calls.map(\.json)),
            "dialogs": .array(checks.map(\.json)),
            "verdict": verdictRule.annotate(["text": .string(verdict)]),
            "changes": .array(changes.map(\.json)),
        ]
    }
}
