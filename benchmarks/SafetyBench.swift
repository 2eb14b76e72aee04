// Terminal-safety and --jq figures, in-process: `TerminalText.sanitize` over typical table cells,
// the JSON writer over the same text, and `JQProgram` on a 100-row order page. Compiled by
// benchmarks/jq-compare with swiftc against .build/release (not a package target). Prints TSV:
// name, value, unit. Usage: SafetyBench PAGE_FILE (the page is written there for the `jq` binary).
import Foundation
import SXKCore
import SXKShell

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func best(_ runs: Int, _ body: () -> Void) -> Double { (0..<runs).map { _ in seconds(body) }.min()! }

let n = 1_000_000
let ascii = (0..<1000).map { "SX2026120101\(String(format: "%07d", $0))" }
let cjk = (0..<1000).map { ["西湖景区", "断桥摄影店 · 门店管理员", "林晓峰", "已完成", "千岛湖湖畔影棚"][$0 % 5] + String($0) }
let hostile = (0..<1000).map { "林\u{1B}[2J\($0)\u{202E}" }

for (name, cells) in [("ascii", ascii), ("cjk", cjk), ("hostile", hostile)] {
    var bytes = 0
    let t = best(5) {
        bytes = 0
        for i in 0..<n { bytes &+= TerminalText.sanitize(cells[i % cells.count]).utf8.count }
    }
    print("sanitize \(name) cells\t\(Int(Double(n) / t))\tcells/s")
}
for (name, cells) in [("ascii", ascii), ("cjk", cjk)] {
    var out: [UInt8] = []
    out.reserveCapacity(40 * n)
    let t = best(5) {
        out.removeAll(keepingCapacity: true)
        for i in 0..<n { JSONWriter.writeString(cells[i % cells.count], into: &out) }
    }
    print("JSON writeString \(name)\t\(Int(Double(n) / t))\tstrings/s")
}

// A 100-row page shaped like the sandbox's order list.
let rows = (1...100).map { i -> JSONValue in
    .object(JSONObject([
        ("orderId", .int(10_000_000 + i)), ("orderNo", .string("SX2026120101\(String(format: "%07d", i))")),
        ("status", .int(i % 4 + 1)), ("statusText", .string(["待支付", "已支付", "已完成", "已退款"][i % 4])),
        ("amount", .number(String(format: "%d.%02d", i * 3, i % 100))), ("createTime", .string("2026-12-01 06:33:38")),
        ("customerName", .string("客户\(i)")), ("customerPhone", .string("151****0083")), ("scenicName", .string("西湖景区")),
        ("photographerName", .string("林晓峰")),
    ]))
}
let page = JSONWriter.bytes(.object(JSONObject([("list", .array(rows)), ("total", .int(2000)), ("page", .int(1)), ("pageSize", .int(100))])))
if CommandLine.arguments.count > 1 { _ = FileManager.default.createFile(atPath: CommandLine.arguments[1], contents: Data(page)) }

let expression = ".list[].orderNo"
let compileRun = best(20) { _ = try! JQProgram.compile(expression).run(on: page) }
let program = try! JQProgram.compile(expression)
let runOnly = best(200) { _ = try! program.run(on: page) }
print("JQProgram compile+run 100 rows\t\(String(format: "%.3f", compileRun * 1000))\tms")
print("JQProgram run 100 rows (compiled)\t\(String(format: "%.3f", runOnly * 1000))\tms")
