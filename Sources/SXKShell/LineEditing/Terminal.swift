#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Facts about where input comes from and output goes, and whether colour is wanted.
public struct Terminal: Sendable, Equatable {
    public var stdinIsTerminal: Bool
    public var stdoutIsTerminal: Bool
    public var stderrIsTerminal: Bool
    /// Width in columns of the output terminal (80 when unknown).
    public var width: Int
    public var colorEnabled: Bool
    /// Colour on stderr (the error and warning labels): the same choices as `colorEnabled`, with
    /// stderr, not stdout, the terminal that must be there.
    public var stderrColorEnabled: Bool
    public var utf8: Bool
    /// The terminal moves the cursor and clears the screen (false under `TERM=dumb`): no pager,
    /// and `watch` prints its runs one after another instead of redrawing.
    public var cursorControl = true

    public init(stdinIsTerminal: Bool, stdoutIsTerminal: Bool, stderrIsTerminal: Bool, width: Int, colorEnabled: Bool,
                stderrColorEnabled: Bool = false, utf8: Bool = true) {
        self.stdinIsTerminal = stdinIsTerminal
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
        self.width = width
        self.colorEnabled = colorEnabled
        self.stderrColorEnabled = stderrColorEnabled
        self.utf8 = utf8
    }

    /// A non-terminal with colour off and 80 columns (tests, pipes).
    public static let plain = Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: false, width: 80, colorEnabled: false)

    /// Whether `NO_COLOR` asks for no colour: set and not empty (no-color.org: an empty value is unset).
    public static func noColor(_ environment: [String: String]) -> Bool {
        !(environment["NO_COLOR"] ?? "").isEmpty
    }

    /// Looks at the real file descriptors and environment. Colour is off with `--no-color`,
    /// with `NO_COLOR` set (not empty), with `TERM=dumb`, or when the stream is not a terminal
    /// (stdout for the data, stderr for the labels of errors and warnings).
    public static func detect(noColorFlag: Bool = false, environment: [String: String]) -> Terminal {
        let inTTY = isatty(0) == 1, outTTY = isatty(1) == 1, errTTY = isatty(2) == 1
        let dumb = environment["TERM"] == "dumb"
        let wanted = !noColorFlag && !Self.noColor(environment) && !dumb
        var terminal = Terminal(stdinIsTerminal: inTTY, stdoutIsTerminal: outTTY, stderrIsTerminal: errTTY,
                                width: currentWidth(environment: environment), colorEnabled: wanted && outTTY,
                                stderrColorEnabled: wanted && errTTY, utf8: localeIsUTF8())
        terminal.cursorControl = !dumb
        return terminal
    }

    /// TIOCGWINSZ on stdout, then stderr, then `COLUMNS`, then 80.
    public static func currentWidth(environment: [String: String]) -> Int {
        for fd: Int32 in [1, 2, 0] {
            var ws = winsize()
            if ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 { return Int(ws.ws_col) }
        }
        if let cols = environment["COLUMNS"].flatMap(Int.init), cols > 0 { return cols }
        return 80
    }

    /// Whether the C library's character type locale is UTF-8 (needed for libedit to edit Chinese).
    public static func localeIsUTF8() -> Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    /// Makes the C library classify characters as the user's locale does (libedit edits Chinese with it),
    /// falling back to C.UTF-8 so wide characters work. The character type only: sxk localises nothing
    /// else, so numbers, times and the C library's messages keep the C locale, and a start opens one
    /// locale file, not one per category.
    public static func adoptUTF8Locale() {
        setlocale(LC_CTYPE, "")
        if !localeIsUTF8() { setlocale(LC_CTYPE, "C.UTF-8") }
    }
}

/// SGR colours and styles for tables, prompts and messages.
public enum TextStyle: String, Sendable, Equatable {
    case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta = "35", cyan = "36"

    public var escape: String { "\u{1B}[\(rawValue)m" }
    public static let reset = "\u{1B}[0m"

    /// `text` wrapped in this style when colour is on.
    public func apply(_ text: String, enabled: Bool) -> String { enabled ? escape + text + TextStyle.reset : text }
}
