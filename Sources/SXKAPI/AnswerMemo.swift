import Synchronization

/// The successful answers to declared GET endpoints within one command, set by the shell around it
/// (`AnswerMemo.$current`): an identical GET later in the same command (same URL, query and token) is
/// given the answer already read instead of another round trip — the session's validation asks for
/// userinfo and the store list just before `profile` or `store` asks for them again. Only answers
/// (not errors), only the declared endpoints' GETs (a raw `get` always sends), and only for the
/// command: the next command, and every `watch` run, asks again. A POST in the command forgets them.
public final class AnswerMemo: Sendable {
    @TaskLocal public static var current: AnswerMemo?

    private let answers = Mutex<[String: APIResponse]>([:])

    public init() {}

    static func key(url: String, token: String?) -> String { url + "\u{0}" + (token ?? "") }

    func answer(_ key: String) -> APIResponse? { answers.withLock { $0[key] } }

    func keep(_ response: APIResponse, _ key: String) { answers.withLock { $0[key] = response } }

    /// A request that may change what the server answers (a POST) makes every kept answer stale.
    func forget() { answers.withLock { $0.removeAll() } }
}
