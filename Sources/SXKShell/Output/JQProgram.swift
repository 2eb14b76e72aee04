import CJQ
import FoundationEssentials
import SXKCore

/// Why a `--jq` expression did not give results: a compile error is the user's to fix (exit 2),
/// the others are failures of the run (exit 1), a libjq that cannot be loaded included. Each message
/// is one line, without jq's `jq: error:`.
public enum JQError: Error, Sendable, Equatable, CustomStringConvertible {
    case compile(String)
    case runtime(String)
    /// The data handed to the program was not JSON (cannot happen for data sxk wrote itself).
    case invalidInput(String)
    /// libjq could not be loaded (the loader's reason and the package to install).
    case unavailable(String)

    public var description: String {
        switch self {
        case .compile(let m): return "--jq: \(TerminalText.sanitize(m))"
        case .runtime(let m): return "--jq: \(TerminalText.sanitize(m))"
        case .invalidInput(let m): return "--jq: input is not JSON: \(TerminalText.sanitize(m))"
        case .unavailable(let m): return "--jq: \(TerminalText.sanitize(m))"
        }
    }

    /// True for compile errors: the expression must change (usage, exit 2).
    public var isUsage: Bool { if case .compile = self { return true } else { return false } }
}

/// One result of a jq program, printed the way `gh --jq` prints it: a string raw, anything else as JSON.
public enum JQOutput: Sendable, Equatable {
    case string(String)
    case value(JSONValue)

    /// The text to print (without the newline). A string is raw; with `sanitized` (the default, for a
    /// terminal) its controls are escaped as `TerminalText.sanitizeLines` does. Values are JSON from
    /// `JSONWriter`, whose escapes already keep controls inert.
    public func text(style: JSONWriter.Style = .compact, sanitized: Bool = true) -> String {
        switch self {
        case .string(let s): return sanitized ? TerminalText.sanitizeLines(s) : s
        case .value(let v): return JSONWriter.string(v, style: style)
        }
    }

    /// The result as data (for `let NAME = CMD --jq …`, `$_`).
    public var json: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .value(let v): return v
        }
    }
}

/// A compiled jq program on Debian's libjq. Compiling costs ~15 ms (jq 1.6 compiles its builtins
/// each time), so the compiled state is kept and reused for every run, one run at a time.
/// jq 1.6 reads numbers as doubles: integers past 2^53 lose digits, as with the `jq` binary.
public struct JQProgram: Sendable {
    public let expression: String
    private let machine: JQMachine

    /// Compiles `expression`; a syntax or name error is `JQError.compile` with jq's first line.
    public static func compile(_ expression: String) throws(JQError) -> JQProgram {
        JQProgram(expression: expression, machine: try JQMachine(expression))
    }

    private init(expression: String, machine: JQMachine) {
        self.expression = expression
        self.machine = machine
    }

    /// Runs the program on one JSON text and returns every output (`empty` gives none).
    public func run(on json: [UInt8]) throws(JQError) -> [JQOutput] {
        try machine.run(json)
    }

    /// Runs the program on data already decoded (written with `JSONWriter`, then parsed by jq).
    public func run(on value: JSONValue) throws(JQError) -> [JQOutput] {
        try machine.run(JSONWriter.bytes(value))
    }
}

/// Owns one `jq_state` and the messages its error callback collects; `run` is serialised by a lock.
private final class JQMachine: @unchecked Sendable {
    private var state: OpaquePointer?
    private let lock = Lock()
    /// Messages jq reported through its error callback during the current compile or run.
    fileprivate var messages: [String] = []

    /// Builtins that would reach outside the program: `stderr` writes to the process's stderr
    /// directly, `input`/`inputs` have no input source here. Prepended on the first line, so jq's
    /// line numbers in error messages stay the user's.
    private static let prelude = #"def stderr: .; def input: error("no more inputs"); def inputs: empty; "#

    init(_ expression: String) throws(JQError) {
        guard sxk_jq_load() == 0 else { throw .unavailable(String(cString: sxk_jq_load_error())) }
        guard let jq = sxk_jq_init() else { throw .runtime("cannot start jq (out of memory)") }
        state = jq
        sxk_jq_set_error_cb(jq, jqErrorCallback, Unmanaged.passUnretained(self).toOpaque())
        sxk_jq_no_library_path(jq)
        guard sxk_jq_compile(jq, JQMachine.prelude + expression) != 0 else {
            let message = messages.isEmpty ? "cannot compile '\(expression)'" : messages.joined(separator: "; ")
            throw .compile(message)
        }
        messages = []
    }

    deinit {
        if state != nil { sxk_jq_teardown(&state) }
    }

    /// Results one run gathers at most.
    static let outputLimit = 1_000_000

    func run(_ json: [UInt8]) throws(JQError) -> [JQOutput] {
        lock.lock()
        defer { lock.unlock() }
        messages = []
        let input = json.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { sxk_jv_parse_sized($0.baseAddress, Int32(clamping: $0.count)) }
        }
        if sxk_jv_get_kind(input) == JV_KIND_INVALID {
            throw .invalidInput(JQMachine.takeMessage(input) ?? "not valid JSON")
        }
        sxk_jq_start(state, input, 0)
        var outputs: [JQOutput] = []
        while true {
            let result = sxk_jq_next(state)
            if sxk_jv_get_kind(result) != JV_KIND_INVALID {
                // The results are gathered before any is printed: a program without end (`repeat(1)`)
                // is stopped with one line, not left to take all memory.
                guard outputs.count < Self.outputLimit else {
                    sxk_jv_free(result)
                    throw .runtime("more than \(Self.outputLimit) results; stopped")
                }
                outputs.append(try JQMachine.output(result))
                continue
            }
            if let message = JQMachine.takeMessage(result) { throw .runtime(message) }
            if sxk_jq_halted(state) != 0, let message = haltMessage() { throw .runtime(message) }
            if let message = messages.first { throw .runtime(message) }
            return outputs
        }
    }

    /// `halt_error`'s message when the program stopped with a non-zero code; nil for a plain `halt`.
    private func haltMessage() -> String? {
        let code = sxk_jq_get_exit_code(state)
        let failed = sxk_jv_get_kind(code) == JV_KIND_NUMBER ? sxk_jv_number_value(code) != 0 : false
        sxk_jv_free(code)
        let message = sxk_jq_get_error_message(state)
        guard failed else { sxk_jv_free(message); return nil }
        switch sxk_jv_get_kind(message) {
        case JV_KIND_INVALID, JV_KIND_NULL:
            sxk_jv_free(message)
            return "halted"
        case JV_KIND_STRING:
            return JQMachine.string(message).trimming(\.isNewline)
        default:
            return JQMachine.dump(message)
        }
    }

    /// The message of an invalid value (consumed), or nil when it carries none (the end of output).
    static func takeMessage(_ invalid: jv) -> String? {
        guard sxk_jv_invalid_has_msg(sxk_jv_copy(invalid)) != 0 else { sxk_jv_free(invalid); return nil }
        let message = sxk_jv_invalid_get_msg(invalid)
        if sxk_jv_get_kind(message) == JV_KIND_STRING { return string(message) }
        return dump(message) + " (not a string)"
    }

    /// One output value (consumed) as a raw string or decoded JSON.
    static func output(_ value: jv) throws(JQError) -> JQOutput {
        if sxk_jv_get_kind(value) == JV_KIND_STRING { return .string(string(value)) }
        let text = dump(value)
        do {
            return .value(try JSONParser.parse(Array(text.utf8)))
        } catch {
            throw .runtime("result is not JSON sxk can read: \(text.prefix(80))")
        }
    }

    /// A jv string's UTF-8 bytes (embedded NULs kept) as a Swift string; consumes `value`.
    static func string(_ value: jv) -> String {
        let count = Int(sxk_jv_string_length_bytes(sxk_jv_copy(value)))
        let text = sxk_jv_string_value(value).map {
            $0.withMemoryRebound(to: UInt8.self, capacity: count) { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) }
        } ?? ""
        sxk_jv_free(value)
        return text
    }

    /// Compact JSON text of a valid value; consumes `value`.
    static func dump(_ value: jv) -> String {
        guard sxk_jv_get_kind(value) != JV_KIND_INVALID else { sxk_jv_free(value); return "null" }
        return string(sxk_jv_dump_string(value, 0))
    }

    /// jq's compile messages, one line each: `jq: error: syntax error, … at <top-level>, line 1:` and
    /// the program echoed below it; the echo and the `jq: N compile error(s)` tally are dropped.
    fileprivate func report(_ text: String) {
        guard let first = text.split(separator: "\n", omittingEmptySubsequences: true).first else { return }
        var line = String(first)
        if line.hasPrefix("jq: error: ") { line.removeFirst("jq: error: ".count) }
        if line.hasPrefix("jq: "), line.hasSuffix("compile error") || line.hasSuffix("compile errors") { return }
        while line.hasSuffix(":") || line.hasSuffix(" ") { line.removeLast() }
        messages.append(line)
    }
}

/// jq's error callback: owns `message` (frees it) and hands its text to the machine in `context`.
private let jqErrorCallback: jq_msg_cb = { context, message in
    guard let context else { sxk_jv_free(message); return }
    let machine = Unmanaged<JQMachine>.fromOpaque(context).takeUnretainedValue()
    let text = sxk_jv_get_kind(message) == JV_KIND_STRING ? JQMachine.string(message) : JQMachine.dump(message)
    machine.report(text)
}
