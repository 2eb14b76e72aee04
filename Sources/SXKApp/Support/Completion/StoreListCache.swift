import SXKCore
import SXKModels
import SXKSession
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The last store list the server sent, kept in the profile (`stores.json`, 0600) for Tab
/// completion only. The app keeps no store list (it fetches one when it needs it), so a one-shot
/// `sxk __complete` has no other source for store names; nothing else reads this file: `store` and
/// home always fetch the list afresh.
enum StoreListCache {
    static func path(_ paths: StatePaths) -> String { paths.profileDir + "/stores.json" }

    /// Keeps `stores` when they differ from what is kept; a failure costs only completion (no warning).
    /// Not fsynced: a login writes it after its last answer, and the two syncs would be ≈ 1 ms of that
    /// login for a file a lost write costs nothing but names to Tab.
    static func remember(_ stores: [Store], in storage: ProfileStorage) {
        // Compared as kept: without the addresses, which the file leaves out.
        let kept = stores.map { Store(storeId: $0.storeId, storeName: $0.storeName, scenicId: $0.scenicId) }
        // A device snapshot's folder changes only when the user says so, sxk's own files too.
        guard !kept.isEmpty, !storage.appStore.isDeviceSnapshot, read(storage) != kept else { return }
        let value: JSONValue = ["stores": .array(kept.map { store in
            var o: JSONObject = ["storeId": .int(store.storeId), "storeName": .string(store.storeName)]
            if let scenicId = store.scenicId { o["scenicId"] = .int(scenicId) }
            return .object(o)
        })]
        let file = storage.file, target = path(storage.paths)
        try? storage.lock.withLock { () throws(SessionError) in
            try file.writeAtomically(target, bytes: JSONWriter.bytes(value) + [0x0A], durable: false)
        }
    }

    /// What is kept; empty when there is nothing (or it is unreadable: completion just has less).
    /// Parsed once per version of the file (device, inode, size, modification time): a Tab in a
    /// shell that has fetched no list reads a list of thousands only when it changed.
    static func read(_ storage: ProfileStorage) -> [Store] {
        let target = path(storage.paths)
        var st = stat()
        let version = lstat(target, &st) == 0
            ? [UInt64(st.st_dev), UInt64(st.st_ino), UInt64(bitPattern: Int64(st.st_size)), UInt64(bitPattern: Int64(st.st_mtim.tv_sec)), UInt64(st.st_mtim.tv_nsec)]
            : nil
        if let version, let hit = memo.withLock({ $0?.path == target && $0?.version == version ? $0?.stores : nil }) { return hit }
        guard case .loaded(let bytes, _)? = try? storage.file.read(target, kind: .state),
              let items = (try? JSONParser.parse(bytes, maxDepth: 6))?.objectValue?["stores"]?.arrayValue else { return [] }
        let stores = items.compactMap { try? Store(json: $0) }
        parses.add(1, ordering: .relaxed)
        if let version { memo.withLock { $0 = (target, version, stores) } }
        return stores
    }

    private static let memo = Mutex<(path: String, version: [UInt64], stores: [Store])?>(nil)
    /// How many times a file was parsed (tests: once per version).
    static let parses = Atomic<Int>(0)
}
