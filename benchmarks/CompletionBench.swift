// Completion latency per Tab, in-process: CompletionEngine (SXKShell) over a session holding
// 1,000 scenic areas and 10,000 stores with Chinese names (SXKSession contexts).
//
// Not a package target: `benchmarks/run` compiles it with swiftc against the release build's
// modules and object files. The provider below makes the same calls as SXKApp's internal
// `CompletionValues` for "scenic" and "store" (SXKShell.IdNameCompletion over the lists the app model
// offers, one cache per list as AppServices holds), so the work per Tab is the app's.
// Prints one line per case: `name<TAB>p50_ms<TAB>p99_ms<TAB>max_ms<TAB>candidates`.
import Foundation
import SXKFeatures
import SXKModels
import SXKSession
import SXKShell

/// SXKApp.CompletionValues' "scenic" and "store" cases over real contexts.
struct BenchValues: CompletionValueProvider, @unchecked Sendable {
    let account: AccountContext
    let permission: PermissionContext
    let scenicCompletion = IdNameCompletion()
    let storeCompletion = IdNameCompletion()

    func completions(for provider: String, prefix: String) -> [CompletionCandidate] {
        switch provider {
        case "scenic":
            let list = AppModel.scenicsToChoose(permission.current)
            return scenicCompletion.candidates(from: list, prefix: prefix) { (String($0.scenicId), $0.scenicName) }
        case "store":
            let current = account.current
            return storeCompletion.candidates(from: current.stores, discriminator: current.scenicId, prefix: prefix) {
                AppModel.offersStore($0, scenicId: current.scenicId) ? (String($0.storeId), $0.storeName) : nil
            }
        default:
            return []
        }
    }
}

let places = ["西湖", "灵隐", "千岛湖", "黄山", "九寨沟", "张家界", "丽江古城", "鼓浪屿", "乌镇", "周庄"]
let kinds = ["摄影店", "旅拍馆", "影像馆", "影棚", "写真馆"]

var scenicList: [ScenicRef] = []
for i in 1...1_000 {
    scenicList.append(ScenicRef(scenicId: i, scenicName: "\(places[i % places.count])\(i)号景区"))
}
var stores: [Store] = []
for i in 1...10_000 {
    // scenicId nil: every store is "in" the current scenic area (the worst case for the filter).
    stores.append(Store(storeId: 100_000 + i, storeName: "\(places[i % places.count])\(kinds[i % kinds.count])\(i)店", scenicId: nil))
}
let permission = PermissionContext()
var pstate = PermissionContext.State()
pstate.scenicList = scenicList
permission.replace(with: pstate)
let account = AccountContext()
account.setStores(stores)
let provider = BenchValues(account: account, permission: permission)

let specs: [CommandSpec] = [
    CommandSpec("scenic", summary: "list the role's scenic areas or switch scenic scope",
                arguments: [ArgumentSpec("ID|NAME", kind: .provider("scenic"), optional: true, summary: "scenic id or unique name prefix")],
                flags: [FlagSpec("json", summary: "print the decoded data as JSON")]),
    CommandSpec("store", summary: "list stores of the current scenic or switch store scope",
                arguments: [ArgumentSpec("ID|NAME", kind: .provider("store"), optional: true, summary: "store id or unique name prefix")],
                flags: [FlagSpec("json", summary: "print the decoded data as JSON")]),
] + Builtins.specs
let engine = CompletionEngine(specs: specs)

/// One Tab as LibeditLineReader.complete() does it: candidates, then the common prefix;
/// `list` adds the second Tab's CandidateList.format.
func tab(_ line: String, list: Bool) -> Int {
    let r = engine.complete(line: line, cursor: line.utf8.count, provider: provider)
    var n = r.candidates.count
    if n > 1 {
        n += r.commonPrefix.utf8.count
        if list { n += CandidateList.format(r.candidates, width: 100, color: false).utf8.count }
    }
    return r.candidates.count + (n > Int.max - 1 ? 1 : 0)
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200
let cases: [(String, String, Bool)] = [
    ("store <Tab> (20,000 candidates)", "store ", false),
    ("store 西湖<Tab> (Chinese prefix)", "store 西湖", false),
    ("store 1000<Tab> (id prefix)", "store 1000", false),
    ("store <Tab><Tab> (list shown)", "store ", true),
    ("scenic 黄山<Tab>", "scenic 黄山", false),
    ("st<Tab> (command name)", "st", false),
]
for (name, line, list) in cases {
    for _ in 0..<5 { _ = tab(line, list: list) }  // warm-up
    var samples: [Double] = []
    var count = 0
    for _ in 0..<runs {
        let t0 = now()
        count = tab(line, list: list)
        samples.append(Double(now() - t0) / 1e6)
    }
    samples.sort()
    let p50 = samples[samples.count / 2]
    let p99 = samples[min(samples.count - 1, Int((Double(samples.count) * 0.99).rounded(.up)) - 1)]
    print("\(name)\t\(String(format: "%.3f", p50))\t\(String(format: "%.3f", p99))\t\(String(format: "%.3f", samples.last!))\t\(count)")
}
