import Foundation
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
        var out: [KeyChange] = []
        for (key, value) in after where StoreKey.kind(of: key) != .sxk {
            let old = before.first { $0.key == key }?.value
            if old != value { out.append(KeyChange(key: key, before: old, after: value)) }
        }
        for (key, value) in before where StoreKey.kind(of: key) != .sxk && !after.contains(where: { $0.key == key }) {
            out.append(KeyChange(key: key, before: value, after: nil))
        }
        return out
    }

    /// Writes `changes` into `store` in one save (the snapshot stamp too, when anything changed).
    public static func apply(_ changes: [KeyChange], to store: AppStore) throws(SessionError) {
        guard !changes.isEmpty else { return }
        try store.batch { () throws(SessionError) in
            for change in changes { store.defaults.set(change.key, change.after) }
            store.defaults.set(StoreKey.snapshotSavedAt, .double((store.wallClock.now().timeIntervalSince1970 * 1000).rounded() / 1000))
        }
    }
}

/// A stored key's value as a person reads it: JSON as stored, except that a time key (epoch seconds,
/// as the app stores them) shows the local time with its offset and the stored number after it.
public enum KeyValueText {
    public static func human(_ value: JSONValue, key: String) -> String {
        let stored = JSONWriter.string(value)
        guard StoreKey.valueType(of: key) == .time, let seconds = value.doubleValue else { return stored }
        return "\(LocalTime.human(Date(timeIntervalSince1970: seconds))) (\(stored))"
    }
}
