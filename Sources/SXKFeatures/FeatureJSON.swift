import SXKCore
import SXKAPI

// `--json` forms of the facades' local answers (API answers print their `data` as received).

extension RoleRow {
    public var json: JSONValue {
        ["roleCode": .string(code), "roleName": .string(name), "scenicCount": .int(scenicCount),
         "permissionCount": .int(permissionCount), "current": .bool(isCurrent)]
    }
}

extension ScenicRow {
    public var json: JSONValue {
        ["scenicId": .int(scenic.scenicId), "scenicName": .string(scenic.scenicName), "current": .bool(isCurrent)]
    }
}

extension StoreRow {
    public var json: JSONValue {
        var o: JSONObject = ["storeId": .int(store.storeId), "storeName": .string(store.storeName)]
        o["scenicId"] = store.scenicId.map { .int($0) } ?? .null
        if let address = store.address { o["address"] = .string(address) }
        o["current"] = .bool(isCurrent)
        return .object(o)
    }
}

extension ScopeChange {
    public var json: JSONValue {
        [
            "roleCode": roleCode.map { .string($0) } ?? .null, "roleName": roleName.map { .string($0) } ?? .null,
            "scenicId": scenic.map { .int($0.scenicId) } ?? .null, "scenicName": scenic.map { .string($0.scenicName) } ?? .null,
            "storeId": storeId.map { .int($0) } ?? .null, "notes": .array(notes.map { .string($0) }),
        ]
    }
}

extension AccountRow {
    /// The account's canonical form plus its 1-based index and the current mark.
    public var json: JSONValue {
        var o = account.json.objectValue ?? JSONObject()
        o.entries.insert((key: "index", value: .int(index)), at: 0)
        o["current"] = .bool(isCurrent)
        return .object(o)
    }
}

extension CommonMenus {
    public var json: JSONValue {
        ["key": .string(key), "uris": .array(uris.map { .string($0) }), "menus": .array(menus.map(\.json)), "defaulted": .bool(defaulted)]
    }
}

