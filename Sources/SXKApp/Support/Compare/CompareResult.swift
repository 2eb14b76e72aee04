import SXKAPI
import SXKCore
import SXKShell

/// One row of the compare matrix.
struct CompareResult {
    var target: CompareTarget
    /// `session` (the shell's own token) or `set-user` (a token asked for this command only).
    var tokenSource: String
    var method: String?
    var path: String?
    var query: [(String, String)] = []
    var status: Int?
    var code: String?
    var msg: String?
    var data: JSONValue?
    var elapsedMs: Double?
    /// No answer at all (network), or no request (set-user refused, no scope for the role).
    var problem: String?
    var noAnswer = false
    var diff = CompareDiff.baseline
    /// The token set-user gave for this identity (masked in the output, never kept).
    var probeToken: String?

    var rows: Int? { data.flatMap(CompareDiff.rows)?.count }
    var total: Int? { data?.objectValue.flatMap(PageRule.total) }

    /// `/api/app/store/order/list storeId=301`: the path and its scope parameters.
    var requestSummary: String {
        guard let path else { return "–" }
        let names = [Endpoint.Parameter.scenicId, .storeId].flatMap { [$0.name, JSONObject.snakeCase($0.name)] }
        let scope = query.filter { names.contains($0.0) }
        return ([path] + scope.map { "\($0.0)=\($0.1)" }).joined(separator: " ")
    }

    /// Status, code and message of a failed answer; no answer at all is marked as such.
    mutating func fill(with error: APIError) {
        status = error.request?.status
        switch error {
        case .serverCode(let code, let msg, _):
            self.code = code
            self.msg = msg
        case .sessionExpired(let cause, _):
            if let code = cause.code {
                self.code = code
                msg = cause.message
            }
            problem = "session expired for this identity (\(cause))"
        case .network:
            noAnswer = true
            problem = AppCommands.shortMessage(error)
        default:
            problem = AppCommands.shortMessage(error)
        }
    }
}
