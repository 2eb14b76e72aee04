import SXKCore
import SXKAPI

/// One home menu: the permission URI that unlocks it, its title and its group (HomeMenuCatalog).
public struct MenuEntry: Sendable, Equatable {
    public var uri: String
    public var title: String
    public var group: String
    /// False for a permission URI sxk's catalog does not know: still a permission, still a menu, titled
    /// by the permission's own name (docs/app-behaviour.md#menus).
    public var known: Bool

    public init(uri: String, title: String, group: String, known: Bool = true) {
        self.uri = uri; self.title = title; self.group = group; self.known = known
    }

    /// Titles are sxk's display aid (the app's HomeMenuCatalog is not in the seeds): always inferred.
    public var json: JSONValue {
        ["uri": .string(uri), "title": .string(title), "group": .string(group),
         "catalog": .string(known ? "known" : "unknown"), "titleBasis": .string(Basis.inferred.rawValue)]
    }
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

    /// One menu per permission URI, in the permission list's order (seed 000 §4.2: menus come from the
    /// permissions; the order is inferred, docs/app-behaviour.md#menus). The catalog only lends titles;
    /// a URI it does not know is a menu marked unknown, titled by the permission's name.
    public func visibleMenus(permissions: [PermissionItem]) -> [MenuEntry] {
        var seen = Set<String>()
        var visible: [MenuEntry] = []
        for p in permissions where seen.insert(p.uri).inserted {
            if let entry = entry(uri: p.uri) {
                visible.append(entry)
            } else {
                visible.append(MenuEntry(uri: p.uri, title: p.name.isEmpty ? p.uri : p.name, group: p.group ?? "", known: false))
            }
        }
        return visible
    }

    public func entry(uri: String) -> MenuEntry? { entries.first { $0.uri == uri } }
}
