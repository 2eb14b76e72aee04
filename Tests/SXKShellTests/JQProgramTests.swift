import Foundation
import SXKCore
import XCTest
@testable import SXKShell

final class JQProgramTests: XCTestCase {
    /// A page as the sandbox answers it (`data` of an order list).
    static let page: [UInt8] = {
        let rows = (1...100).map { i -> JSONValue in
            .object(JSONObject([
                ("orderNo", .string("SX2026120101\(String(format: "%07d", i))")), ("status", .int(i % 4 + 1)),
                ("amount", .number(String(format: "%d.%02d", i * 3, i % 100))), ("customerName", .string(i == 7 ? "林\u{1B}[2J\u{202E}" : "客\(i)")),
            ]))
        }
        return JSONWriter.bytes(.object(JSONObject([("list", .array(rows)), ("total", .int(100)), ("page", .int(1))])))
    }()

    func testOrderNumbersOfAPageAreRawStrings() throws {
        let out = try JQProgram.compile(".list[].orderNo").run(on: Self.page)
        XCTAssertEqual(out.count, 100)
        XCTAssertEqual(out.first, .string("SX20261201010000001"))
        XCTAssertEqual(out.first?.text(), "SX20261201010000001")
    }

    func testNumbersObjectsAndPrettyText() throws {
        let p = try JQProgram.compile("{n: (.list | length), first: .list[0].amount, sum: ([.list[].status] | add)}")
        let out = try p.run(on: Self.page)
        XCTAssertEqual(out, [.value(.object(JSONObject([("n", .int(100)), ("first", .number("3.01")), ("sum", .int(250))])))])
        XCTAssertEqual(out[0].text(), #"{"n":100,"first":3.01,"sum":250}"#)
        XCTAssertEqual(out[0].text(style: .pretty), "{\n  \"n\": 100,\n  \"first\": 3.01,\n  \"sum\": 250\n}")
        XCTAssertEqual(try JQProgram.compile(".total * 2").run(on: Self.page), [.value(.int(200))])
    }

    func testSelectEmptyAndMultipleOutputs() throws {
        let selected = try JQProgram.compile(#".list[] | select(.status == 4 and .amount > 280) | .orderNo"#).run(on: Self.page)
        XCTAssertEqual(selected, [.string("SX20261201010000095"), .string("SX20261201010000099")])
        XCTAssertEqual(try JQProgram.compile("empty").run(on: Self.page), [])
        XCTAssertEqual(try JQProgram.compile(".list[] | select(.status == 9)").run(on: Self.page), [])
        XCTAssertEqual(try JQProgram.compile(".total, .page, null, true").run(on: Self.page),
                       [.value(.int(100)), .value(.int(1)), .value(.null), .value(.bool(true))])
    }

    func testUnicodeAndControlsInResults() throws {
        let out = try JQProgram.compile(".list[6].customerName").run(on: Self.page)
        XCTAssertEqual(out, [.string("林\u{1B}[2J\u{202E}")])
        // Raw output on a terminal is sanitized; piped it is the string itself.
        XCTAssertEqual(out[0].text(), "林\\x1b[2J\\u202e")
        XCTAssertEqual(out[0].text(sanitized: false), "林\u{1B}[2J\u{202E}")
        // As a JSON value the writer's escapes keep it inert.
        let wrapped = try JQProgram.compile("[.list[6].customerName, (\"西湖\" | length)]").run(on: Self.page)
        XCTAssertEqual(wrapped[0].text(), #"["林\u001b[2J\u202e",2]"#)
        XCTAssertEqual(try JQProgram.compile(#""a\nb""#).run(on: Array("null".utf8))[0].text(), "a\nb")
    }

    func testCompileErrorIsOneUsageLine() {
        for bad in [".list[", ".a | nosuchfunction", "import \"x\" as x; .", "include \"y\"; ."] {
            XCTAssertThrowsError(try JQProgram.compile(bad), bad) { error in
                guard let e = error as? JQError, case .compile(let message) = e else { return XCTFail("\(error)") }
                XCTAssertTrue(e.isUsage)
                XCTAssertFalse(message.contains("\n"), message)
                XCTAssertFalse(message.isEmpty)
                XCTAssertFalse(message.contains("compile error"), message)
            }
        }
        XCTAssertThrowsError(try JQProgram.compile(".list[")) { error in
            XCTAssertTrue("\(error)".hasPrefix("--jq: syntax error"), "\(error)")
        }
    }

    func testRuntimeErrorsAreOneLine() throws {
        let cases: [(String, String)] = [
            (".total.x", #"Cannot index number with string "x""#),
            (#"error("boom")"#, "boom"),
            (#"error({"why": 1})"#, #"{"why":1} (not a string)"#),
            ("input", "no more inputs"),
            (#""bye" | halt_error"#, "bye"),
        ]
        for (expression, expected) in cases {
            let program = try JQProgram.compile(expression)
            XCTAssertThrowsError(try program.run(on: Self.page), expression) { error in
                XCTAssertEqual(error as? JQError, .runtime(expected), expression)
                XCTAssertEqual((error as? JQError)?.isUsage, false)
            }
        }
        // A plain `halt` ends without output or error; `inputs` has nothing to give.
        XCTAssertEqual(try JQProgram.compile("halt").run(on: Self.page), [])
        XCTAssertEqual(try JQProgram.compile("[inputs]").run(on: Self.page), [.value(.array([]))])
        XCTAssertThrowsError(try JQProgram.compile(".").run(on: Array("{nope".utf8))) { error in
            guard case .invalidInput = error as? JQError else { return XCTFail("\(error)") }
        }
    }

    /// libjq prints nothing itself: compile errors, runtime errors, `stderr` and `debug` all stay off fd 2.
    func testLibjqWritesNothingToStderr() throws {
        let captured = try Self.capturingStderr {
            _ = try? JQProgram.compile(".a[")
            _ = try? JQProgram.compile("import \"m\" as m; .")
            _ = try? JQProgram.compile(".total.x").run(on: Self.page)
            _ = try? JQProgram.compile(".total | stderr | debug").run(on: Self.page)
        }
        XCTAssertEqual(captured, "")
    }

    /// One compiled program shared by threads: runs are serialised and each sees its own input.
    func testOneProgramRunsFromManyThreads() throws {
        let program = try JQProgram.compile(".n * 2")
        let failures = NSLockedCounter()
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            let out = try? program.run(on: Array("{\"n\":\(i)}".utf8))
            if out != [.value(.int(i * 2))] { failures.add() }
        }
        XCTAssertEqual(failures.value, 0)
    }

    func testResultsAsData() throws {
        let out = try JQProgram.compile(".list[0] | {orderNo, status}").run(on: Self.page)
        XCTAssertEqual(out.map(\.json), [.object(JSONObject([("orderNo", .string("SX20261201010000001")), ("status", .int(2))]))])
        XCTAssertEqual(try JQProgram.compile(".list[0].orderNo").run(on: .object(JSONObject([("list", .array([.object(JSONObject([("orderNo", .string("X"))]))]))]))), [.string("X")])
    }

    /// Runs `body` with fd 2 pointed at a pipe and returns what was written there.
    static func capturingStderr(_ body: () throws -> Void) throws -> String {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw NSError(domain: "pipe", code: 1) }
        let saved = dup(2)
        dup2(fds[1], 2)
        close(fds[1])
        defer {
            dup2(saved, 2)
            close(saved)
        }
        try body()
        fflush(nil)
        dup2(saved, 2)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let flags = fcntl(fds[0], F_GETFL)
        _ = fcntl(fds[0], F_SETFL, flags | O_NONBLOCK)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        close(fds[0])
        return String(decoding: out, as: UTF8.self)
    }
}

final class NSLockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

extension JQProgramTests {
    /// A program without end is stopped with one error at its limit of results, not left to take
    /// all memory; the program runs again afterwards.
    func testAProgramWithoutEndIsStopped() throws {
        let forever = try JQProgram.compile("repeat(1)")
        XCTAssertThrowsError(try forever.run(on: .int(1))) { error in
            XCTAssertEqual("\(error)", "--jq: more than 1000000 results; stopped")
        }
        XCTAssertEqual(try JQProgram.compile(".a").run(on: ["a": .int(2)]).count, 1)
    }
}
