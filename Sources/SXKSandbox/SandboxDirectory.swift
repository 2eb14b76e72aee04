/// A scenic area of the demo data.
struct SandboxScenic: Sendable {
    let id: Int
    let name: String
}

/// A store of the demo data.
struct SandboxStore: Sendable {
    let id: Int
    let name: String
    let scenicId: Int
    let address: String
}

/// A role an account can act in, with the scenic areas it covers.
struct SandboxRole: Sendable {
    let roleCode: String
    let scenicIds: [Int]
    var roleName: String { SandboxCatalog.roleNames[roleCode] ?? roleCode }
}

/// One selectable account (a V9ScenicUser or V9StoreUser) behind a phone.
struct SandboxAccount: Sendable {
    let userId: Int
    let accountType: String
    let phone: String
    let userName: String
    let realName: String
    let avatar: String
    /// The account's own role first.
    let roles: [SandboxRole]
    let storeIds: [Int]
    let realNameStatus: Int
    let idCardNo: String
    let bankCard: (bankName: String, cardNo: String)?

    var roleCode: String { roles[0].roleCode }
    var roleName: String { roles[0].roleName }
    var scenicId: Int { roles[0].scenicIds[0] }
    var scenicIds: [Int] { roles[0].scenicIds }

    func hasRole(_ code: String) -> Bool { roles.contains { $0.roleCode == code } }
}

/// The fixed demo directory (README.md, Sandbox): scenic areas, stores, phones and their accounts.
enum SandboxDirectory {
    static let password = "sandbox123"

    static let scenics: [SandboxScenic] = [
        SandboxScenic(id: 1, name: "西湖景区"),
        SandboxScenic(id: 2, name: "灵隐寺"),
        SandboxScenic(id: 3, name: "千岛湖"),
    ]

    static let stores: [SandboxStore] = [
        SandboxStore(id: 101, name: "断桥摄影店", scenicId: 1, address: "杭州市西湖区北山街断桥东侧"),
        SandboxStore(id: 102, name: "苏堤旅拍馆", scenicId: 1, address: "杭州市西湖区苏堤南口"),
        SandboxStore(id: 103, name: "雷峰塔影像馆", scenicId: 1, address: "杭州市西湖区南山路15号"),
        SandboxStore(id: 201, name: "灵隐禅心摄影", scenicId: 2, address: "杭州市西湖区法云弄1号"),
        SandboxStore(id: 301, name: "千岛湖湖畔影棚", scenicId: 3, address: "淳安县千岛湖镇新安东路88号"),
        SandboxStore(id: 302, name: "梅峰观岛摄影", scenicId: 3, address: "淳安县梅峰岛景区入口"),
    ]

    static let accounts: [SandboxAccount] = [
        SandboxAccount(
            userId: 1001, accountType: "scenic", phone: "13800000001", userName: "西湖小林", realName: "林晓峰",
            avatar: "https://static.sandbox.local/avatar/1001.png",
            roles: [SandboxRole(roleCode: "photographer", scenicIds: [1])], storeIds: [],
            realNameStatus: 2, idCardNo: "330106********1234", bankCard: ("招商银行", "6225 **** **** 8801")),
        SandboxAccount(
            userId: 2001, accountType: "scenic", phone: "13800000002", userName: "陈主管", realName: "陈静怡",
            avatar: "https://static.sandbox.local/avatar/2001.png",
            roles: [SandboxRole(roleCode: "scenicAdmin", scenicIds: [1, 2]), SandboxRole(roleCode: "photographer", scenicIds: [1])],
            storeIds: [], realNameStatus: 2, idCardNo: "330102********2468", bankCard: ("中国工商银行", "6222 **** **** 2001")),
        SandboxAccount(
            userId: 3001, accountType: "store", phone: "13800000003", userName: "断桥王店长", realName: "王建国",
            avatar: "https://static.sandbox.local/avatar/3001.png",
            roles: [SandboxRole(roleCode: "storeAdmin", scenicIds: [1])], storeIds: [101],
            realNameStatus: 0, idCardNo: "", bankCard: nil),
        SandboxAccount(
            userId: 4001, accountType: "scenic", phone: "13800000004", userName: "千岛湖雨桐", realName: "赵雨桐",
            avatar: "https://static.sandbox.local/avatar/4001.png",
            roles: [SandboxRole(roleCode: "photographer", scenicIds: [3])], storeIds: [],
            realNameStatus: 2, idCardNo: "330127********3579", bankCard: nil),
        SandboxAccount(
            userId: 4002, accountType: "scenic", phone: "13800000004", userName: "千岛湖雨桐", realName: "赵雨桐",
            avatar: "https://static.sandbox.local/avatar/4001.png",
            roles: [SandboxRole(roleCode: "scenicAdmin", scenicIds: [3])], storeIds: [],
            realNameStatus: 2, idCardNo: "330127********3579", bankCard: nil),
        SandboxAccount(
            userId: 4003, accountType: "store", phone: "13800000004", userName: "千岛湖雨桐", realName: "赵雨桐",
            avatar: "https://static.sandbox.local/avatar/4001.png",
            roles: [SandboxRole(roleCode: "storeAdmin", scenicIds: [3])], storeIds: [301],
            realNameStatus: 2, idCardNo: "330127********3579", bankCard: nil),
    ]

    static func scenic(_ id: Int) -> SandboxScenic? { scenics.first { $0.id == id } }
    static func store(_ id: Int) -> SandboxStore? { stores.first { $0.id == id } }
    static func account(_ userId: Int) -> SandboxAccount? { accounts.first { $0.userId == userId } }
    static func accounts(phone: String) -> [SandboxAccount] { accounts.filter { $0.phone == phone } }

    /// `西湖景区 · 摄影师` or `断桥摄影店 · 门店管理员`: what the account chooser shows.
    static func displayName(_ account: SandboxAccount) -> String {
        if let storeId = account.storeIds.first, let store = store(storeId) { return "\(store.name) · \(account.roleName)" }
        return "\(scenic(account.scenicId)?.name ?? "") · \(account.roleName)"
    }
}
