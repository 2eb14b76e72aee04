import SXKCore
import SXKFeatures
import SXKShell

extension Commands {
    /// `profile`: the "mine" tab.
    enum Profile: AppCommand {
        static let spec = CommandSpec(
            "profile", summary: "userinfo written back; photographers also get real-name and bank card, concurrently",
            flags: dataOutput
        )
        static let needsServer = true

        static func run(_ command: ParsedCommand, _ app: AppCommands) async throws -> CommandOutput {
            try await app.profile(command)
        }
    }
}

extension AppCommands {
    fileprivate func profile(_ command: ParsedCommand) async throws -> CommandOutput {
        let report = try await host.features().profile.reload()
        var o: JSONObject = ["userInfo": report.userInfo.response.data, "writtenBack": .array(report.writtenBack.map { .string($0) })]
        if let r = report.realName { o["realName"] = (try? r.get().response.data) ?? .null }
        if let b = report.bankCard { o["bankCard"] = (try? b.get().response.data) ?? .null }
        o["calls"] = .array(report.calls.map(\.json))
        var output = CommandOutput(data: .object(o))
        output.raw = [report.userInfo.response.bodyText]
        if case .success(let r)? = report.realName { output.raw?.append(r.response.bodyText) }
        if case .success(let r)? = report.bankCard { output.raw?.append(r.response.bodyText) }
        let u = report.userInfo.value
        var rows: [[String]] = [
            ["userName", u.userName ?? "–"], ["realName", u.realName ?? "–"],
            ["phone", u.phone.map(Redaction.maskPhone) ?? "–"], ["roleName", u.roleName ?? "–"], ["avatar", u.avatar ?? "–"],
        ]
        switch report.realName {
        case .success(let r)?: rows.append(["real-name", "\(r.value.statusText)\(r.value.idCardNo.map { " · \($0)" } ?? "")"])
        case .failure(let e)?: rows.append(["real-name", "error: \(e)"])
        case nil: break
        }
        switch report.bankCard {
        case .success(let b)?:
            let card = "\(b.value.bankName ?? "") \(b.value.cardNo ?? "")"
            switch b.value.bound {
            case true?: rows.append(["bank card", card])
            case false?: rows.append(["bank card", "not bound"])
            case nil:
                let sent = (b.value.raw.objectValue?.field("bound")?.stringValue).map { " (bound \($0))" } ?? ""
                rows.append(["bank card", "unknown: the answer has no readable bound\(sent)" + (card.trimming(\.isWhitespace).isEmpty ? "" : " · " + card)])
            }
        case .failure(let e)?: rows.append(["bank card", "error: \(e)"])
        case nil: break
        }
        output.table(Self.fieldColumns("PROFILE"), rows.map { ["field": .string($0[0]), "value": .string($0[1])] })
        if !report.writtenBack.isEmpty {
            // A device snapshot's writes are held and dropped with the command: said as what the app would write.
            let held = services.storage.appStore.isDeviceSnapshot
            output.notes.append("\(held ? "the app would write back (not written: a device snapshot)" : "written back"): \(report.writtenBack.joined(separator: ", "))")
        }
        if report.isPhotographer {
            output.notes.append("real-name and bank card loaded \(report.sideCallsOverlapped ? "beside userinfo, read as if asked after it (the app asks them once userinfo answered) \(Rules.profileSideCalls.marker)" : "one after the other")")
        }
        return output
    }
}
