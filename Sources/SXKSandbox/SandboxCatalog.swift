/// One menu permission the sandbox can grant: the URI the app's menu catalog keys on.
public struct SandboxPermission: Sendable, Equatable {
    public let uri: String
    public let name: String
    public let group: String

    public init(uri: String, name: String, group: String) {
        self.uri = uri
        self.name = name
        self.group = group
    }
}

/// Every permission URI the sandbox serves, with its Chinese name and group, and which roles get which.
public enum SandboxCatalog {
    public static let permissions: [SandboxPermission] = [
        SandboxPermission(uri: "home/order", name: "订单管理", group: "订单"),
        SandboxPermission(uri: "home/deposit-order", name: "定金订单", group: "订单"),
        SandboxPermission(uri: "home/write-off", name: "扫码核销", group: "订单"),
        SandboxPermission(uri: "home/statistics", name: "数据统计", group: "数据"),
        SandboxPermission(uri: "home/income", name: "收益明细", group: "数据"),
        SandboxPermission(uri: "home/scenic-queue", name: "景区排队", group: "运营"),
        SandboxPermission(uri: "home/location-report", name: "位置上报", group: "运营"),
        SandboxPermission(uri: "home/cloud-transfer", name: "云端传图", group: "作品"),
        SandboxPermission(uri: "home/album", name: "作品相册", group: "作品"),
        SandboxPermission(uri: "home/store-manage", name: "门店管理", group: "管理"),
        SandboxPermission(uri: "home/photographer-manage", name: "摄影师管理", group: "管理"),
        SandboxPermission(uri: "home/wallet", name: "我的钱包", group: "账户"),
        SandboxPermission(uri: "home/real-name", name: "实名认证", group: "账户"),
        SandboxPermission(uri: "home/settings", name: "设置", group: "账户"),
    ]

    /// The URIs each role code is granted, in menu order.
    public static let roleURIs: [String: [String]] = [
        "photographer": [
            "home/order", "home/statistics", "home/scenic-queue", "home/cloud-transfer", "home/location-report",
            "home/album", "home/income", "home/wallet", "home/real-name", "home/settings",
        ],
        "scenicAdmin": [
            "home/order", "home/statistics", "home/scenic-queue", "home/photographer-manage", "home/store-manage",
            "home/location-report", "home/write-off", "home/income", "home/settings",
        ],
        "storeAdmin": [
            "home/deposit-order", "home/order", "home/write-off", "home/statistics", "home/store-manage",
            "home/income", "home/wallet", "home/settings",
        ],
    ]

    public static let roleNames: [String: String] = [
        "photographer": "摄影师", "scenicAdmin": "景区管理员", "storeAdmin": "门店管理员",
    ]

    /// The permissions of a role code, in menu order (empty for an unknown role).
    public static func permissions(forRole roleCode: String) -> [SandboxPermission] {
        (roleURIs[roleCode] ?? []).compactMap { uri in permissions.first { $0.uri == uri } }
    }
}
