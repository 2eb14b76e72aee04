import Foundation
import SXKAPI
import SXKCore
import SXKFeatures
import SXKSession
import SXKShell

/// `orders`: one page as a table with a paging footer, or `--all` streamed page by page.
extension AppCommands {
    func orders(_ command: ParsedCommand) async throws -> Int32 {
        let feature = try host.features().orders
        let role = command.option("role")
        let filter = OrderFilter(status: command.option("status").flatMap(Int.init), keyword: command.option("keyword"))
        let limit = command.option("limit").flatMap(Int.init)
        if command.has("all") {
            let pageSize = command.option("page-size").flatMap(Int.init) ?? 100
            return try await streamOrders(feature, role: role, filter: filter, pageSize: pageSize, limit: limit, command: command)
        }
        let page = command.option("page").flatMap(Int.init) ?? 1
        let pageSize = command.option("page-size").flatMap(Int.init) ?? OrdersFeature.defaultPageSize
        let result = try await feature.fetchPage(role: role, page: page, pageSize: pageSize, filter: filter)
        let scope = orderScope(result.endpoint)
        let outside = scope?.countOutside(result.page.list.map(\.raw)) ?? 0
        defer { warnOutOfScope(outside, scope) }
        var rows = result.page.list
        if let limit { rows = Array(rows.prefix(max(0, limit))) }
        if command.has("raw") {
            _ = try printData(result.response, command)
            return ExitStatus.ok
        }
        // The page's data with its list cut to --limit: one shape for --json, $_ and let.
        if emit(Self.limitedPage(Redaction.redact(result.response.data), limit: limit), command) { return ExitStatus.ok }
        if command.has("ndjson") { writeNDJSON(rows); return ExitStatus.ok }
        let columns = try OrderColumns.select(command.option("columns"), deposit: result.endpoint.isDeposit)
        io.stdout.write(io.table(columns.map(\.column)).render(rows.map { order in columns.map { $0.value(order) } }))
        let p = result.page
        io.stdout.line("page \(p.page)/\(Formatting.count(p.pageCount)) · \(Formatting.count(p.total)) orders · \(result.endpoint.roleCode)")
        return ExitStatus.ok
    }

    /// `--all`: rows reach stdout as each page arrives; memory holds a page at a time.
    private func streamOrders(
        _ feature: OrdersFeature, role: String?, filter: OrderFilter, pageSize: Int, limit: Int?, command: ParsedCommand
    ) async throws -> Int32 {
        let json = wantsJSON(command) && !command.has("ndjson")
        let ndjson = command.has("ndjson")
        let endpoint = try feature.endpoint(role: role)
        let columns = try OrderColumns.select(command.option("columns"), deposit: endpoint.isDeposit)
        let scope = orderScope(endpoint)
        var outside = 0
        defer { warnOutOfScope(outside, scope) }
        let showProgress = io.terminal.stderrIsTerminal
        let stdout = io.stdout
        var widths: [Int]?
        var first = true
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64 * 1024)
        let table = io.table(columns.map(\.column))
        if json { stdout.write("[") }
        let outcome = try await feature.walkAll(role: role, pageSize: pageSize, filter: filter, limit: limit) { rows, progress in
            if let scope { outside += scope.countOutside(rows.map(\.raw)) }
            buffer.removeAll(keepingCapacity: true)
            if json || ndjson {
                for order in rows {
                    if json { buffer.append(contentsOf: first ? "\n" .utf8 : ",\n".utf8) }
                    JSONWriter.write(Redaction.redact(order.raw), into: &buffer)
                    if ndjson { buffer.append(0x0A) }
                    first = false
                }
                stdout.write(bytes: buffer)
            } else {
                let cells = rows.map { order in columns.map { $0.value(order) } }
                // Column widths are fixed by the first page so later pages line up without buffering.
                if widths == nil {
                    let w = table.widths(for: cells)
                    widths = w
                    stdout.write(table.renderLine(columns.map(\.column.header), widths: w, header: true) + "\n")
                }
                for row in cells { stdout.write(table.renderLine(row, widths: widths ?? []) + "\n") }
            }
            stdout.flush()
            if showProgress {
                io.stderr.write("\r\u{1B}[K\(progress.pages) pages · \(Formatting.count(progress.rows))/\(Formatting.count(progress.total)) rows · \(Formatting.count(Int(progress.rowsPerSecond))) rows/s")
            }
            return !((stdout as? StandardOutput)?.isBroken ?? false)
        }
        if json { stdout.write(first ? "]\n" : "\n]\n") }
        stdout.flush()
        if showProgress { io.stderr.write("\r\u{1B}[K") }
        let p = outcome.progress
        switch outcome.stop {
        case .cancelled:
            io.stderr.write("interrupted after \(Formatting.count(p.rows)) of \(Formatting.count(p.total)) rows (\(p.pages) pages)\n")
            return ExitStatus.interrupted
        case .completed, .limit, .stoppedByCaller:
            if !json && !ndjson {
                io.stderr.write("\(Formatting.count(p.rows)) of \(Formatting.count(p.total)) orders · \(p.pages) pages · \(String(format: "%.2f", p.elapsed)) s\n")
            }
            return ExitStatus.ok
        }
    }

    func writeNDJSON(_ orders: [Order]) {
        var buffer: [UInt8] = []
        for order in orders {
            JSONWriter.write(Redaction.redact(order.raw), into: &buffer)
            buffer.append(0x0A)
        }
        io.stdout.write(bytes: buffer)
    }
}

/// The order table's columns; `--columns` picks by key, and any field of the row may be named.
struct OrderColumns: Sendable {
    let key: String
    let column: TableRenderer.Column
    let value: @Sendable (Order) -> String

    static let standard: [OrderColumns] = [
        OrderColumns(key: "orderNo", column: .init("ORDER NO", truncatable: false)) { $0.orderNo },
        OrderColumns(key: "statusText", column: .init("STATUS")) { $0.statusText ?? $0.status.map(String.init) ?? "" },
        OrderColumns(key: "amount", column: .init("AMOUNT", alignment: .right, truncatable: false)) { Formatting.yuan($0.amount) },
        OrderColumns(key: "createTime", column: .init("CREATED", truncatable: false)) { $0.createTime ?? "" },
        OrderColumns(key: "customerPhone", column: .init("CUSTOMER")) { $0.customerPhone ?? "" },
        OrderColumns(key: "scenicName", column: .init("SCENIC")) { $0.scenicName ?? "" },
        OrderColumns(key: "photographerName", column: .init("PHOTOGRAPHER")) { $0.photographerName ?? "" },
    ]

    static let deposit: [OrderColumns] = [
        standard[0], standard[1], standard[2],
        OrderColumns(key: "depositAmount", column: .init("DEPOSIT", alignment: .right, truncatable: false)) { Formatting.yuan($0.depositAmount) },
        OrderColumns(key: "writeOffStatus", column: .init("WRITE-OFF")) { o in
            o.raw.objectValue?.string("writeOffStatusText") ?? o.writeOffStatus.map(String.init) ?? ""
        },
        standard[3], standard[4],
        OrderColumns(key: "storeName", column: .init("STORE")) { $0.storeName ?? "" },
    ]

    static func select(_ spec: String?, deposit: Bool) throws -> [OrderColumns] {
        let defaults = deposit ? Self.deposit : Self.standard
        guard let spec, !spec.isEmpty else { return defaults }
        let known = Self.standard + Self.deposit
        return try spec.split(separator: ",").map { raw in
            let key = raw.trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw AppError.usage("--columns has an empty column name") }
            if let column = known.first(where: { $0.key.lowercased() == key.lowercased() }) { return column }
            // Any other field of the row, shown as received.
            return OrderColumns(key: key, column: .init(key.uppercased())) { order in
                guard let v = order.raw.objectValue?.field(key) else { return "" }
                return v.stringValue ?? JSONWriter.string(v)
            }
        }
    }
}
