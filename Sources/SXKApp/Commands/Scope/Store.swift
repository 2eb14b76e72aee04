import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    enum Store: AppCommand {
        static let spec = CommandSpec(
            "store", summary: "list stores of the current scenic or switch store scope",
            discussion: "The list is fetched afresh each time. A store account's own store is marked OWN; switching to another one is done but warns, since the server refuses it that store's orders and statistics. - goes back to the store before the last switch (kept per profile).",
            arguments: [ArgumentSpec("ID|NAME|-", kind: .provider("store"), optional: true, summary: "store id or unique name prefix, or - for the one before")],
            flags: tableOutput,
            examples: ["store", "store 302", "store 梅峰", "store -"]
        )
        static let needsServer = true

        static func writesSnapshot(_ command: ParsedCommand) -> Bool { !command.positionals.isEmpty }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.store(command)
        }
    }
}

extension AppCommands {
    fileprivate func store(_ command: ParsedCommand) async throws -> CommandOutput {
        let scope = try host.features().scope
        // The list is fetched afresh each time, a switch too: a store renamed on the server shows
        // its new name in the confirmation and the prompt, not the one a list fetched earlier had.
        let rows: [StoreRow]
        let hadList = !services.contexts.account.current.stores.isEmpty
        var fresh: [StoreRow]?
        var failure: FeatureError?
        var stale: [String] = []
        do { fresh = try await scope.stores(refresh: true) } catch { failure = error }
        if let fresh {
            rows = fresh
            StoreListCache.remember(services.contexts.account.current.stores, in: services.storage)
        } else {
            // Unreachable: the list this shell fetched last still serves, said once.
            guard let failure, failure.apiError?.kind == .network, hadList else { throw failure ?? FeatureError.notLoggedIn }
            stale = ["store list not refreshed (\(failure)); using the one fetched earlier in this shell"]
            rows = try await scope.stores(refresh: false)
        }
        let own = (try? host.features().auth)?.ownStoreId()
        if var query = command.positionals.first {
            if query == "-" { query = try scope.previous(.store) }
            var output = change(try await scope.selectStore(query))
            output.warnings = stale + output.warnings
            // Taken (the app's store picker would offer it), but said at once: the server answers
            // this account's requests for any other store with 无权限访问该门店.
            if let own, let chosen = services.contexts.account.current.storeId, chosen != own {
                let name = rows.first { $0.store.storeId == own }.map { " " + TerminalText.sanitize($0.store.storeName) } ?? ""
                output.warnings.append("store \(chosen) is not this account's own store (\(own)\(name)): the server will refuse its orders and statistics — `store -` goes back")
            }
            return output
        }
        let records: [JSONValue] = rows.map { row in
            var o: JSONObject = ["storeId": .int(row.store.storeId), "storeName": .string(row.store.storeName)]
            if let scenicId = row.store.scenicId { o["scenicId"] = .int(scenicId) }
            if let address = row.store.address { o["address"] = .string(address) }
            o["current"] = .bool(row.isCurrent)
            if let own { o["own"] = .bool(row.store.storeId == own) }
            return .object(o)
        }
        var output = CommandOutput(data: .array(records))
        output.warnings = stale
        // A current store the list lacks (another scenic's, or an imported state's): no row is marked, said why.
        if let current = AppModel.currentStore(services.contexts.account.current.storeId), !rows.contains(where: \.isCurrent) {
            output.notes.append("(the current store \(current) is not among the stores listed here)")
        }
        if records.isEmpty { output.notes.append("(no stores in the current scenic)"); return output }
        // No valid scenic chosen: the list is every store the server sent, not one scenic's; the
        // app's home asks for none then (its store step needs a scenic > 0).
        let account = services.contexts.account.current
        if AppModel.validScenic(account.scenicId) == nil {
            output.notes.append("(no valid current scenic: every store the server sent, of all scenic areas; the app's home loads none until a scenic is chosen)")
        }
        var columns = [Self.currentColumn, OutputColumn("storeId", "ID", alignment: .right, priority: 90, cuttable: false),
                       OutputColumn("storeName", "STORE", priority: 80)]
        if own != nil {
            columns.append(OutputColumn("own", "OWN", priority: 85, cuttable: false) { $0.objectValue?["own"] == .bool(true) ? "yes" : "" })
        }
        output.table(columns + [OutputColumn("address", priority: 30)], records)
        return output
    }
}
