import SXKCore
import SXKAPI

/// One home menu: the permission URI that unlocks it, its title and its group (HomeMenuCatalog).
public struct MenuEntry: Sendable, Equatable {
    public var uri: String
    public var title: String
    public var group: String

    public init(uri: String, title: String, group: String) {
        self.uri = uri; self.title = title; self.group = group
    }

    public var json: JSONValue { ["uri": .string(uri), "title": .string(title), "group": .string(group)] }
}

/// The home menu catalog: maps permission URIs to menus, in catalog order (seed 000 §4.2 `visibleMenus(from:)`).
public struct MenuCatalog: Sendable, Equatable {
    public var entries: [MenuEntry]

    public init(_ entries: [MenuEntry]) { self.entries = entries }

    /// Reads `[{"uri","title","group"}]` (the SXKApp resource); entries without a uri are an error.
    public init(json: JSONValue) throws(FieldError) {
        let items = try json.requireArray("menu catalog")
        var out: [MenuEntry] = []
        out.reserveCapacity(items.count)
        for item in items {
            let o = try item.requireObject("menu")
            let uri = try o.requireString("uri")
            out.append(MenuEntry(uri: uri, title: o.string("title") ?? uri, group: o.string("group") ?? ""))
        }
        entries = out
    }

    /// Menus whose URI is among the permissions, in catalog order; a permission the catalog does not
    /// know becomes a menu titled by the permission's name so nothing the server grants is hidden.
    public func visibleMenus(permissions: [PermissionItem]) -> [MenuEntry] {
        let granted = Set(permissions.map(\.uri))
        var visible = entries.filter { granted.contains($0.uri) }
        let known = Set(entries.map(\.uri))
        var seen = Set<String>()
        for p in permissions where !known.contains(p.uri) && seen.insert(p.uri).inserted {
            visible.append(MenuEntry(uri: p.uri, title: p.name, group: p.group ?? ""))
        }
        return visible
    }

    public func entry(uri: String) -> MenuEntry? { entries.first { $0.uri == uri } }
}
