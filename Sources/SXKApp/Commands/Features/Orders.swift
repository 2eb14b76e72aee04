import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    /// `orders`: one page as a table with a paging footer, or `--all` streamed page by page.
    enum Orders: AppCommand {
        static let spec = CommandSpec(
            "orders", summary: "orders of the current role (photographer, scenic admin, store deposit orders)",
            flags: [
                FlagSpec("role", value: roles, valueName: "ROLE", summary: "role whose endpoint to use (default: current)"),
                FlagSpec("status", value: .provider("order-status"), valueName: "S", summary: "order status: code, label (已完成) or name (completed)"),
                FlagSpec("keyword", value: .string, valueName: "Q", summary: "search order no., customer or photographer"),
                FlagSpec("page", value: .int, valueName: "N", summary: "page number (from 1)"),
                FlagSpec("page-size", value: .int, valueName: "N", summary: "rows per page (1-100)"),
                FlagSpec("all", summary: "walk every page, streaming rows"),
                limit,
            ] + listOutput,
            examples: ["orders", "orders --role storeAdmin --status 2", "orders --all --ndjson | jq .orderNo"]
        )
        static let needsServer = true
        static let comparable = true

        /// `--all` writes the walk's rows as they arrive, not one screen to redraw.
        static func watchRefusal(_ command: ParsedCommand) -> String? {
            command.has("all") ? "watch repeats one page: `orders --all` walks every page as a stream (use --page-size or --limit)" : nil
        }

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.orders(command)
        }
    }
}

extension AppCommands {
    fileprivate func orders(_ command: ParsedCommand) async throws -> CommandOutput {
        let feature = try host.features().orders
        let role = command.option("role")
        let filter = OrderFilter(status: try command.option("status").map(OrderStatus.code), keyword: command.option("keyword"))
        let page = try Self.number(command, "page", in: 1...Int.max) ?? 1
        let pageSize = try Self.number(command, "page-size", in: OrdersFeature.pageSizes)
        let limit = try format(command).limit
        if command.has("all") {
            if command.option("page") != nil { throw AppError.usage("--all walks every page; --page does not apply") }
            return try streamOrders(feature, role: role, filter: filter, pageSize: pageSize ?? OrdersFeature.walkPageSize, limit: limit)
        }
        let result = try await feature.fetchPage(role: role, page: page, pageSize: pageSize ?? OrdersFeature.defaultPageSize, filter: filter)
        let scope = roleScope(result.endpoint)
        let p = result.page
        var output = dataOutput(result.response)
        output.table(OrderColumns.columns(deposit: result.endpoint.isDeposit), p.list.map(\.raw))
        if p.list.isEmpty, let total = p.total, total > 0 {
            if let pageCount = p.pageCount, p.page > pageCount {
                // Past the last page: exit 0 with the empty table, and one line saying where the pages end.
                output.warnings.append("page \(p.page) is past the last page (\(pageCount)); \(Formatting.count(total, "order")) in all")
            } else if p.pageCount == nil, p.page > 1 {
                // A short page whose answer gives no page size: how many pages there are is not known,
                // but an empty one of a list that has rows is past its end.
                output.warnings.append("page \(p.page) is past the last page; \(Formatting.count(total, "order")) in all")
            } else {
                // The answer contradicts itself (`"list": null` beside a total): said, not explained away.
                output.warnings.append("the server listed no orders on page \(p.page) though its total is \(Formatting.count(total, "order"))")
            }
        }
        if let total = p.total, let pageCount = p.pageCount {
            output.line("page \(p.page)/\(Formatting.count(pageCount)) · \(Formatting.count(total, "order")) · \(result.endpoint.roleCode)")
        } else if let total = p.total {
            output.line("page \(p.page) · \(Formatting.count(total, "order")) · \(result.endpoint.roleCode)")
        } else {
            output.line("page \(p.page) · \(Formatting.count(p.list.count, "order")) on it, no total in the answer · \(result.endpoint.roleCode)")
        }
        if let line = scope?.warning(outside: scope?.countOutside(p.list.map(\.raw)) ?? 0) { output.warnings.append(line) }
        return output
    }

    /// `--all`: rows reach the renderer as each page arrives; memory holds the page being printed and the
    /// few fetched ahead of it (`PageWalker.ahead`), whatever the total.
    private func streamOrders(_ feature: OrdersFeature, role: String?, filter: OrderFilter, pageSize: Int, limit: Int?) throws -> CommandOutput {
        let endpoint = try feature.endpoint(role: role)
        let scope = roleScope(endpoint)
        let counter = OutsideCounter()
        var output = CommandOutput()
        output.stream = RowStream(columns: OrderColumns.columns(deposit: endpoint.isDeposit)) { emit in
            let outcome = try await feature.walkAll(role: role, pageSize: pageSize, filter: filter, limit: limit) { rows, progress in
                if let scope { counter.add(scope.countOutside(rows.map(\.raw))) }
                let line = "\(Formatting.count(progress.pages, "page")) · \(Formatting.count(progress.rows, of: progress.total, "row")) · \(Formatting.count(Int(progress.rowsPerSecond))) rows/s"
                return emit(rows.map(\.raw), line)
            }
            let p = outcome.progress
            let outside = scope.flatMap { $0.warning(outside: counter.value) }
            var end = RowStream.End(status: ExitStatus.ok, warnings: outside.map { [$0] } ?? [])
            switch outcome.stop {
            case .cancelled:
                end.status = ExitStatus.interrupted
                end.interruption = "interrupted after \(Formatting.count(p.rows, of: p.total, "row")) (\(Formatting.count(p.pages, "page")))"
            case .repeated:
                // Rows a script would take for the list's, and are not: a failure it must see.
                end.status = ExitStatus.failure
                end.warnings.append("--all stopped at page \(p.pages + 1): the server answered it with the same rows as page \(p.pages) (it does not page this list); \(Formatting.count(p.rows, "order")) printed")
            case .emptyBeforeTotal:
                end.status = ExitStatus.failure
                end.warnings.append("--all stopped at page \(p.pages + 1): the server listed no orders there though its total is \(Formatting.count(p.total ?? 0, "order")); \(Formatting.count(p.rows, "order")) printed, the list is partial")
            case .completed, .limit, .stoppedByCaller:
                // Not String(format:): its first call looks up a protocol conformance across the whole
                // binary's conformance records, after the last page and before the exit.
                end.notes = ["\(Formatting.count(p.rows, of: p.total, "order")) · \(Formatting.count(p.pages, "page")) · \(JSONWriter.format(p.elapsed, digits: 2)) s"]
            }
            return end
        }
        return output
    }
}

/// The order table's columns. Priorities: order no., status and amount stay longest; scenic and
/// photographer go first on a narrow terminal. Identifiers, amounts, times and masked phones are never cut.
enum OrderColumns {
    static let orderNo = OutputColumn("orderNo", "ORDER NO", priority: 100, cuttable: false) { $0.objectValue?.string("orderNo") ?? "" }
    static let status = OutputColumn("statusText", "STATUS", priority: 90) { row in
        let o = row.objectValue
        return o?.string("statusText") ?? o?.int("status").map(String.init) ?? ""
    }
    static let amount = OutputColumn("amount", "AMOUNT", alignment: .right, priority: 85, cuttable: false) {
        Formatting.yuan($0.objectValue?.field("amount"))
    }
    // A Shanghai wall time on the wire, shown by the README "Times" rule (local zone, with its offset).
    static let created = OutputColumn("createTime", "CREATED", priority: 70, cuttable: false) {
        $0.objectValue?.string("createTime").map { LocalTime.human(wire: $0) } ?? ""
    }
    // A masked phone cut mid-value (`151****00…`) reads as another number: whole or hidden.
    static let customer = OutputColumn("customerPhone", "CUSTOMER", priority: 60, cuttable: false) { $0.objectValue?.string("customerPhone") ?? "" }
    static let scenic = OutputColumn("scenicName", "SCENIC", priority: 30) { $0.objectValue?.string("scenicName") ?? "" }
    static let photographer = OutputColumn("photographerName", "PHOTOGRAPHER", priority: 20) { $0.objectValue?.string("photographerName") ?? "" }
    static let deposit = OutputColumn("depositAmount", "DEPOSIT", alignment: .right, priority: 80, cuttable: false) {
        Formatting.yuan($0.objectValue?.field("depositAmount"))
    }
    static let writeOff = OutputColumn("writeOffStatus", "WRITE-OFF", priority: 50) { row in
        let o = row.objectValue
        return o?.string("writeOffStatusText") ?? o?.int("writeOffStatus").map(String.init) ?? ""
    }
    static let store = OutputColumn("storeName", "STORE", priority: 30) { $0.objectValue?.string("storeName") ?? "" }

    static func columns(deposit isDeposit: Bool) -> [OutputColumn] {
        isDeposit
            ? [orderNo, status, amount, deposit, writeOff, created, customer, store]
            : [orderNo, status, amount, created, customer, scenic, photographer]
    }
}
