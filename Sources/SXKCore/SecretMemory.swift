import Synchronization

/// The live secrets this process sent besides the tokens the token store knows: every token handed
/// to a call (a login's temporary token, `compare`'s probe tokens) and the password of a login the
/// server accepted. A server may repeat one in any later answer (set-user echoing the password,
/// userinfo the temporary token), so each stays a secret for the rest of the process: masked in an
/// answer sxk keeps in a file before it is kept (`Endpoint.kept`), and in every view, trace and file
/// as it is shown or written. A value typed under a secret name into a raw `get`/`post` is masked
/// in that command's own output (`CommandOutput.secrets`), not remembered. Memory only.
public enum SecretMemory {
    /// The values, oldest first, and the matcher prepared for them (made again only when one is added).
    private static let held = Mutex<(list: [String], matcher: SecretMatcher?)>(([], nil))
    /// The newest kept: a run that types many secret items does not grow it (or its matcher) without bound.
    static let limit = 32
    /// A shorter value, or digits (a PIN, an OTP), is no secret of its own here: one that short turns
    /// up in ids, phones and amounts by chance, and would mask them for the rest of the process.
    public static let shortest = 6

    /// Whether `value` is kept: long enough and not number-like (`Redaction.isNumberLike`).
    public static func keeps(_ value: String) -> Bool {
        value.count >= shortest && value != "***" && !Redaction.isNumberLike(value)
    }

    public static func remember(_ values: [String]) {
        let kept = values.filter(keeps)
        guard !kept.isEmpty else { return }
        held.withLock { held in
            let new = kept.filter { !held.list.contains($0) }
            guard !new.isEmpty else { return }
            held.list += new
            if held.list.count > limit { held.list.removeFirst(held.list.count - limit) }
            held.matcher = nil
        }
    }

    /// Oldest first.
    public static var all: [String] { held.withLock { $0.list } }

    /// The prepared matcher of `all`, nil while it is empty: every answer is masked with it, so it is
    /// made once per added secret, not per request.
    public static var matcher: SecretMatcher? {
        held.withLock { held in
            guard !held.list.isEmpty else { return nil }
            if let matcher = held.matcher { return matcher }
            let matcher = SecretMatcher(held.list)
            held.matcher = matcher
            return matcher
        }
    }

    /// Forgets every value: for tests, which share one process.
    static func reset() { held.withLock { $0 = ([], nil) } }

    /// `text` with every remembered secret in it masked (the trace's lines, after their own masking).
    public static func mask(_ text: String) -> String {
        guard let matcher, matcher.holds(text) else { return text }
        return matcher.mask(text)
    }
}
