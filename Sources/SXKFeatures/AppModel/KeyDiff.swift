import FoundationEssentials
import SXKCore
import SXKSession

/// One key a replay would write: its value before and after (nil = absent).
public struct KeyChange: Sendable, Equatable {
    public var key: String
    public var before: JSONValue?
    public var after: JSONValue?

    public init(key: String, before: JSONValue?, after: JSONValue?) {
        self.key = key; self.before = before; self.after = after
    }

    public var json: JSONValue {
        ["key": .string(key), "before": before ?? .null, "after": after ?? .null]
    }

    /// `key: 1 → nil`; a time key's epoch seconds read as a local time (`KeyValueText`).
    public var line: String {
        func text(_ v: JSONValue?) -> String { v.map { KeyValueText.human($0, key: key) } ?? "nil" }
        return "\(key): \(text(before)) → \(text(after))"
    }
}

/// The difference between the stored state and a replay's scratch copy, and writing it back.
public enum KeyDiff {
    /// Keys whose value differs, in the scratch copy's order, then keys it removed. sxk's own
    /// `sxk_…` keys are not the app's and are left out.
    public static func between(stored: DefaultsStore, scratch: DefaultsStore) -> [KeyChange] {
        let before = stored.entries
        let after = scratch.entries
        // By key, once: an export may hold 100,000 keys, and a search of the list for each is quadratic.
        let beforeByKey = Dictionary(before.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let afterKeys = Set(after.map(\.key))
        var out: [KeyChange] = []
        for (key, value) in after where StoreKey.kind(of: key) != .sxk {
            let old = beforeByKey[key]
            if old != value { out.append(KeyChange(key: key, before: old, after: value)) }
        }
        for (key, value) in before where StoreKey.kind(of: key) != .sxk && !afterKeys.contains(key) {
            out.append(KeyChange(key: key, before: value, after: nil))
        }
        return out
    }

    /// `between` the stored keys, plus the token (`key_in_token`, masked) when the scratch copy's
    /// differs: a replay in which the server rejected it clears it, as the app clears the login state.
    public static func between(stored: AppStore, scratch: AppStore) -> [KeyChange] {
        var out = between(stored: stored.defaults, scratch: scratch.defaults)
        let before = (try? stored.token()) ?? nil, after = (try? scratch.token()) ?? nil
        if before != after {
            func masked(_ token: String?) -> JSONValue? { token.map { .string(Redaction.maskToken($0)) } }
            out.insert(KeyChange(key: StoreKey.token, before: masked(before), after: masked(after)), at: 0)
        }
        return out
    }

    /// Writes `changes` into `store` in one save (the snapshot stamp too, when anything changed). A
    /// removed `key_in_token` removes the token file: the diff shown is the diff written. (A replay
    /// never sets a token, so a token change is only ever a removal; a token another process stored
    /// since this one's session took the file is not removed: `AppStore.write`.)
    public static func apply(_ changes: [KeyChange], to store: AppStore) throws(SessionError) {
        guard !changes.isEmpty else { return }
        let removesToken = changes.contains { $0.key == StoreKey.token && $0.after == nil }
        let values = changes.filter { $0.key != StoreKey.token }.map { (key: $0.key, value: $0.after) }
            + [(key: StoreKey.snapshotSavedAt, value: AppStore.timeValue(store.wallClock.now()))]
        try store.write(values, token: removesToken ? .remove : nil)
    }
}

/// A stored key's value as a person reads it: JSON as stored, except that a time key (epoch seconds,
/// as the app stores them) shows the local time with its offset and the stored number after it.
/// Secret members are masked at any depth, in an object as in JSON text kept as a string, by the
/// rule of the JSON views: the text is written before any view could see its members.
public enum KeyValueText {
    public static func human(_ value: JSONValue, key: String) -> String {
        let stored = text(value)
        guard StoreKey.valueType(of: key) == .time, let seconds = value.doubleValue else { return stored }
        return "\(LocalTime.human(Date(timeIntervalSince1970: seconds))) (\(stored))"
    }

    /// The value as stored, in JSON, its secret members masked.
    public static func text(_ value: JSONValue) -> String {
        if case .string(let s) = value { return JSONWriter.string(.string(Redaction.scrubMembers(s))) }
        return JSONWriter.string(Redaction.redact(value))
    }
}
