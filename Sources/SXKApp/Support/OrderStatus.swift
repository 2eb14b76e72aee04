import SXKCore
import SXKModels
import SXKShell

/// `--status` (`OrderStatusCodes`): the code, the label the app shows or an English name.
enum OrderStatus {
    static var all: [(code: Int, label: String, name: String)] { OrderStatusCodes.all }

    /// The code for `text`, or a usage error listing what is accepted.
    static func code(_ text: String) throws -> Int {
        let t = text.trimming { $0 == " " }.lowercased()
        if let hit = all.first(where: { String($0.code) == t || $0.label == t || $0.name == t }) { return hit.code }
        let accepted = all.map { "\($0.code) \($0.label) \($0.name)" }.joined(separator: ", ")
        throw AppError.usage("unknown order status '\(text)'; use a code, label or name: \(accepted)")
    }

    /// Tab completion: names and labels, each described with its code.
    static func candidates(prefix: String) -> [CompletionCandidate] {
        all.flatMap { s in
            [CompletionCandidate(s.name, description: "\(s.code) \(s.label)"), CompletionCandidate(s.label, description: "\(s.code) \(s.name)"),
             CompletionCandidate(String(s.code), description: "\(s.label) \(s.name)")]
        }.filter { $0.value.hasPrefix(prefix) }
    }
}
