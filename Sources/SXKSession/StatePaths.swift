import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a profile's state lives: `<root>/<profile>/{token,defaults.json,history,.lock}`, and the config folder.
public struct StatePaths: Sendable, Equatable {
    /// The state root (`--state-dir`, `SXK_STATE_DIR`, `$XDG_STATE_HOME/sxk` or `~/.local/state/sxk`).
    public let root: String
    public let profile: String
    /// `$XDG_CONFIG_HOME/sxk` or `~/.config/sxk`.
    public let configDir: String

    public init(root: String, profile: String, configDir: String) throws(SessionError) {
        try StatePaths.validateProfileName(profile)
        self.root = root
        self.profile = profile
        self.configDir = configDir
    }

    public var profileDir: String { root + "/" + profile }
    /// The formal token only, nothing else.
    public var tokenFile: String { profileDir + "/token" }
    /// Every other UserDefaults-like key, as one JSON object.
    public var defaultsFile: String { profileDir + "/defaults.json" }
    /// libedit history, written by the shell layer.
    public var historyFile: String { profileDir + "/history" }
    /// The accounts of the last login (ids, names, types, roles; never a token), for account switches
    /// in a later process.
    public var accountsFile: String { profileDir + "/accounts.json" }
    public var lockFile: String { profileDir + "/.lock" }

    /// Resolves the paths from options and environment. `stateDir` and `profile` are the command-line
    /// values (nil when not given); `envName` is the default profile (`defaultProfile(for:)`).
    public static func resolve(
        stateDir: String?, profile: String?, envName: String,
        environment: [String: String] = ProcessEnvironment.current()
    ) throws(SessionError) -> StatePaths {
        func nonEmpty(_ key: String) -> String? {
            guard let value = environment[key], !value.isEmpty else { return nil }
            return value
        }
        let home = nonEmpty("HOME") ?? passwdHome() ?? "/tmp"
        let root: String
        if let dir = stateDir, !dir.isEmpty {
            root = absolute(dir)
        } else if let dir = nonEmpty("SXK_STATE_DIR") {
            root = absolute(dir)
        } else if let xdg = nonEmpty("XDG_STATE_HOME"), xdg.hasPrefix("/") {
            root = xdg + "/sxk"
        } else {
            root = home + "/.local/state/sxk"
        }
        let config: String
        if let xdg = nonEmpty("XDG_CONFIG_HOME"), xdg.hasPrefix("/") {
            config = xdg + "/sxk"
        } else {
            config = home + "/.config/sxk"
        }
        let name = (profile?.isEmpty == false ? profile : nil) ?? nonEmpty("SXK_PROFILE") ?? envName
        return try StatePaths(root: trimSlashes(root), profile: name, configDir: config)
    }

    /// The profile an environment uses unless one is named: its name (`test`, `release`, `sandbox`),
    /// but a backend given by URL (`customURL`) gets its own from host and port (`127.0.0.1-8080`),
    /// so two backends never share, and expire, one session.
    public static func defaultProfile(environmentName: String, customURL: URL?) -> String {
        guard let url = customURL else { return environmentName }
        var host = (url.host ?? "host").lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        // One safe file name: letters, digits, `.`, `_`, `-` (IPv6 colons become `_`), no `..`.
        // Each `.` right after a `.` becomes `_` as the name is made, so `..` reads `._` and `...` reads `._.`.
        var bytes: [UInt8] = []
        for s in host.unicodeScalars.prefix(100) {
            switch s {
            case "a"..."z", "0"..."9", "-", "_": bytes.append(UInt8(s.value))
            case ".": bytes.append(bytes.last == UInt8(ascii: ".") ? UInt8(ascii: "_") : UInt8(ascii: "."))
            default: bytes.append(UInt8(ascii: "_"))
            }
        }
        var safe = String(decoding: bytes, as: UTF8.self)
        if safe.hasPrefix("-") || safe.hasPrefix(".") || safe.isEmpty { safe = "_" + safe }
        return "\(safe)-\(port)"
    }

    /// A profile name is one path component, not starting with `-`, with no `..`, and nothing a listing
    /// would show other than it is: no control character (C0 or C1), format character (a bidi override
    /// shows the name reversed, a zero-width space not at all), space other than the ASCII one, space at
    /// either end, or U+FFFD (a byte that was not UTF-8). Names of earlier versions that fit this (`a b`,
    /// `a:b`) still open.
    /// Checked on the bytes the file system sees: a `/` or `..` with a combining mark after it is one
    /// Character of its own, but still a separator or a `..` in the path.
    public static func validateProfileName(_ name: String) throws(SessionError) {
        // A plain loop: a generic sequence over the bytes (a `zip`) has its type made at run time, ≈ 0.1 ms.
        var separator = false, previous: UInt8 = 0
        for byte in name.utf8 {
            if byte == UInt8(ascii: "/") || (byte == UInt8(ascii: ".") && previous == UInt8(ascii: ".")) { separator = true }
            previous = byte
        }
        let bad =
            name.isEmpty || name.utf8.count > 128 || separator || name == "."
            || name.hasPrefix("-") || name.unicodeScalars.contains { !isProfileScalar($0) }
            // A space at either end is not seen in a listing (`a ` reads as `a`, ` ` as nothing).
            || name.hasPrefix(" ") || name.hasSuffix(" ")
        if bad { throw .invalidProfileName(name) }
    }

    private static func isProfileScalar(_ s: Unicode.Scalar) -> Bool {
        if s.isASCII { return s.value >= 0x20 && s.value != 0x7F }
        if s == "\u{FFFD}" { return false }
        switch s.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return false
        default: return true
        }
    }

    /// Removes a profile folder that holds nothing but its lock file (a profile made for a write
    /// that then failed); a folder holding anything else is left as it is.
    public static func removeEmptyProfile(_ profileDir: String) {
        guard let dir = opendir(profileDir) else { return }
        var others = false
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if name != Array(".".utf8), name != Array("..".utf8), name != Array(".lock".utf8) { others = true }
        }
        closedir(dir)
        guard !others else { return }
        unlink(profileDir + "/.lock")
        rmdir(profileDir)
    }

    private static func absolute(_ path: String) -> String { PathText.absolute(path) }

    private static func trimSlashes(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    private static func passwdHome() -> String? {
        guard let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir else { return nil }
        return String(cString: dir)
    }
}
