import FoundationEssentials
import SXKCore

/// Where a command line ran: the profile, role, scenic area and store, kept with its history entry.
public struct HistoryContext: Sendable, Equatable {
    public var profile: String
    public var environment: String?
    public var role: String?
    public var scenicId: String?
    public var scenicName: String?
    public var storeId: String?
    /// Seconds since 1970 when the line was entered.
    public var time: Int?

    public init(profile: String, environment: String? = nil, role: String? = nil, scenicId: String? = nil,
                scenicName: String? = nil, storeId: String? = nil, time: Int? = nil) {
        self.profile = profile
        self.environment = environment
        self.role = role
        self.scenicId = scenicId
        self.scenicName = scenicName
        self.storeId = storeId
        self.time = time
    }

    /// Same profile, role, scenic and store (`history --here`); names, environment and time aside.
    public func sameScope(as other: HistoryContext) -> Bool {
        profile == other.profile && role == other.role && scenicId == other.scenicId && storeId == other.storeId
    }

    /// `test storeAdmin@西湖景区/101`, as in the prompt; `test (logged out)` without a role.
    public var label: String {
        guard let role else { return profile + " (logged out)" }
        var text = profile + " " + role
        if let scenic = scenicName ?? scenicId { text += "@" + scenic }
        if let storeId { text += "/" + storeId }
        return text
    }

    var json: JSONValue {
        var o: JSONObject = ["profile": .string(profile)]
        if let environment { o["env"] = .string(environment) }
        if let role { o["role"] = .string(role) }
        if let scenicId { o["scenicId"] = .string(scenicId) }
        if let scenicName { o["scenicName"] = .string(scenicName) }
        if let storeId { o["storeId"] = .string(storeId) }
        if let time { o["at"] = .int(time) }
        return .object(o)
    }

    init?(json: JSONValue) {
        guard let o = json.objectValue, let profile = o["profile"]?.stringValue else { return nil }
        self.init(profile: profile, environment: o["env"]?.stringValue, role: o["role"]?.stringValue,
                  scenicId: o["scenicId"]?.stringValue, scenicName: o["scenicName"]?.stringValue,
                  storeId: o["storeId"]?.stringValue, time: o["at"]?.intValue)
    }
}

/// One history line and, when known, where it ran.
public struct HistoryEntry: Sendable, Equatable {
    public var line: String
    public var context: HistoryContext?
    public init(line: String, context: HistoryContext? = nil) {
        self.line = line
        self.context = context
    }

    /// The context rides at the end of the stored line as a shell comment (`<TAB>#@sxk {…}`), so
    /// the file stays an ordinary libedit history: any libedit program loads it, and a line
    /// recalled by an older sxk still runs the same command (the comment is ignored).
    static let marker = "\t#@sxk "

    /// The text written to the history file.
    var stored: String {
        guard let context else { return line }
        return line + Self.marker + JSONWriter.string(context.json)
    }

    /// Splits a line read from the history file; a line without a valid context stays as it is.
    init(stored: String) {
        guard let range = stored.ranges(of: Self.marker).last,
              let json = try? JSONParser.parse(String(stored[range.upperBound...])),
              let context = HistoryContext(json: json) else {
            self.init(line: stored)
            return
        }
        self.init(line: String(stored[..<range.lowerBound]), context: context)
    }
}
