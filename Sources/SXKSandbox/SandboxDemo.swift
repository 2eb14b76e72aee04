/// The demo accounts, for printing by `sxk-sandbox` and `sxk --sandbox` and for tests.
public enum SandboxDemo {
    /// Password of every demo phone.
    public static let password = SandboxDirectory.password

    public static let accounts: [(phone: String, userId: Int, accountType: String, roleCode: String, description: String)] =
        SandboxDirectory.accounts.map { account in
            (account.phone, account.userId, account.accountType, account.roleCode,
             "\(account.realName) · \(SandboxDirectory.displayName(account))")
        }

    /// A few lines listing phone, password and accounts.
    public static func summary() -> String {
        var lines = ["Demo accounts (password \(password)):"]
        for account in accounts {
            lines.append("  \(account.phone)  userId \(account.userId)  \(account.accountType)/\(account.roleCode)  \(account.description)")
        }
        return lines.joined(separator: "\n")
    }
}
