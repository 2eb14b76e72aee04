import SXKShell

extension AppCommands {
    /// A two-column FIELD / VALUE table (whoami, profile, keys).
    static func fieldColumns(_ header: String = "FIELD") -> [OutputColumn] {
        [OutputColumn("field", header, priority: 90, cuttable: false), OutputColumn("value", "VALUE", priority: 80)]
    }
}
