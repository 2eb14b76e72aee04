/// The demo accounts, for printing by `sxk-sandbox` and `sxk --sandbox` and for tests.
public enum SandboxDemo {
    /// Password of every demo phone.
    public static let password = SandboxDirectory.password

    public static let accounts: [(phone: String, userId: Int, accountType: String, roleCode: String, description: String)] =
        SandboxDirectory.accounts.map { account in
            (account.phone, account.userId, account.accountType, account.roleCode,
             "\(account.realName) · \(SandboxDirectory.displayName(account))")
        }

    /// Each demo login phone once, in directory order (a phone may hold several accounts).
    public static var phones: [String] {
        var seen = Set<String>()
        return accounts.map(\.phone).filter { seen.insert($0).inserted }
    }

    /// A few lines listing password, then each phone once with its accounts under it.
    public static func summary() -> String {
        var lines = ["Demo logins (password \(password)):"]
        for phone in phones {
            for (index, account) in accounts.filter({ $0.phone == phone }).enumerated() {
                let lead = index == 0 ? phone : String(repeating: " ", count: phone.count)
                lines.append("  \(lead)  userId \(account.userId)  \(account.accountType)/\(account.roleCode)  \(account.description)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
