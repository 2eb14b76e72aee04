import Foundation
import XCTest
import SXKCore
import SXKTestSupport
import SXKModels
@testable import SXKSession
import SXKFeatures
#if canImport(Glibc)
import Glibc
#endif

final class DefaultsImporterTests: XCTestCase {
    private let reportTime = Date(timeIntervalSince1970: 1_760_000_000)

    /// A device export as the app leaves it: lists as JSON Data (snake_case, as some builds encode them).
    private func deviceDefaults(withToken: Bool) -> [String: Any] {
        let roles = #"[{"role_code":"storeAdmin","role_name":"门店管理员","scenic_list":[{"scenic_id":3,"scenic_name":"千岛湖"}],"permissions":[{"uri":"store/orders","name":"门店订单"},{"uri":"store/writeoff","name":"核销"}]}]"#
        let items = #"[{"uri":"store/orders","name":"门店订单"},{"uri":"store/writeoff","name":"核销"}]"#
        let scenic = #"[{"scenicId":3,"scenicName":"千岛湖"}]"#
        var d: [String: Any] = [
            "key_last_login_username": "13800000004",
            "key_privacy_agreement_accepted": true,
            "key_in_user_id": 4003,
            "key_in_user_name": "store4003",
            "key_in_phone": "13800000004",
            "key_in_account_type": "store",
            "key_in_account_display_name": "千岛湖湖畔影棚",
            "key_in_role_code": "storeAdmin",
            "key_in_role_name": "门店管理员",
            "key_in_current_scenic_id": 3,
            "key_in_current_scenic_name": "千岛湖",
            "key_in_current_store_id": "301",
            "4003_store_key_role_permission_list": Data(roles.utf8),
            "4003_store_key_in_permission": Data(items.utf8),
            "4003_store_key_current_role_scenic_list": Data(scenic.utf8),
            "4003_store_key_online_status": true,
            "4003_store_key_last_location_report_time": reportTime,
            "4003_store_key_location_reminder_minutes": 30,
            "4003_store_role_storeAdmin_common_uris": ["store/orders"],
            "AppleLanguages": ["zh-Hans-CN"],
            "com.amap.privacy": 1,
        ]
        if withToken { d["key_in_token"] = Demo.token }
        return d
    }

    private func checkImported(_ store: AppStore, report: DefaultsImporter.Report, token: Bool) throws {
        XCTAssertEqual(report.unknownKeys.sorted(), ["AppleLanguages", "com.amap.privacy"])
        XCTAssertEqual(report.rejected, [])
        XCTAssertEqual(report.tokenImported, token)
        XCTAssertEqual(try store.token(), token ? Demo.token : nil)
        XCTAssertEqual(store.userId, 4003)
        XCTAssertEqual(store.accountCachePrefix, "4003_store")
        XCTAssertEqual(store.currentStoreId, 301)
        XCTAssertEqual(store.currentScenicName, "千岛湖")
        XCTAssertTrue(store.privacyAgreementAccepted)
        XCTAssertEqual(store.rolePermissionList().map(\.roleCode), ["storeAdmin"])
        XCTAssertEqual(store.rolePermissionList().first?.scenicList, [ScenicRef(scenicId: 3, scenicName: "千岛湖")])
        XCTAssertEqual(store.permissionItems().map(\.uri), ["store/orders", "store/writeoff"])
        XCTAssertEqual(store.roleScenicList(), [ScenicRef(scenicId: 3, scenicName: "千岛湖")])
        XCTAssertEqual(store.onlineStatus, true)
        XCTAssertEqual(store.lastLocationReportTime, reportTime)
        XCTAssertEqual(store.locationReminderMinutes, 30)
        XCTAssertEqual(store.commonMenuURIs(roleCode: "storeAdmin"), ["store/orders"])
        XCTAssertNil(store.defaults["AppleLanguages"], "unknown keys are listed, not stored")
        XCTAssertNil(store.defaults["key_in_token"], "the token never lands in defaults.json")
        let account = AccountContext()
        let permission = PermissionContext()
        XCTAssertTrue(store.restoreContexts(account: account, permission: permission))
        XCTAssertEqual(account.current.storeId, 301)
        XCTAssertEqual(permission.current.roleCode, "storeAdmin")
        XCTAssertEqual(permission.permissionURIs, ["store/orders", "store/writeoff"])
    }

    private func importBytes(_ bytes: [UInt8], name: String) throws -> (AppStore, DefaultsImporter.Report) {
        let dir = makeTempDir(self)
        let storage = try ProfileStorage(paths: try makePaths(dir, profile: "device"), warn: { _ in })
        // Leftovers from an earlier use of the profile are replaced.
        try storage.appStore.saveLogin(token: "tok_old_old_old_old", account: Demo.photographer, phone: "13800000001", privacyAccepted: false)
        let file = dir + "/" + name
        writeRaw(file, bytes, mode: 0o644)
        let report = try DefaultsImporter().importFile(file, into: storage.appStore)
        let reopened = try ProfileStorage(paths: try makePaths(dir, profile: "device"), warn: { _ in }).appStore
        XCTAssertNil(reopened.defaults["key_in_real_name"], "keys of the old state are gone")
        XCTAssertEqual(mode(storage.paths.defaultsFile), 0o600)
        return (reopened, report)
    }

    func testXMLPlist() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: deviceDefaults(withToken: false), format: .xml, options: 0)
        let (store, report) = try importBytes([UInt8](data), name: "defaults.plist")
        XCTAssertEqual(report.format, "xml plist")
        try checkImported(store, report: report, token: false)
    }

    func testBinaryPlistWithToken() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: deviceDefaults(withToken: true), format: .binary, options: 0)
        XCTAssertTrue(data.starts(with: Array("bplist".utf8)))
        let (store, report) = try importBytes([UInt8](data), name: "defaults.bplist")
        XCTAssertEqual(report.format, "binary plist")
        try checkImported(store, report: report, token: true)
    }

    func testJSONWithListsAsStringsAndBase64() throws {
        let roles = #"[{"roleCode":"storeAdmin","roleName":"门店管理员","scenicList":[{"scenicId":3,"scenicName":"千岛湖"}],"permissions":[{"uri":"store/orders","name":"门店订单"},{"uri":"store/writeoff","name":"核销"}]}]"#
        var object: JSONObject = [
            "key_last_login_username": "13800000004", "key_privacy_agreement_accepted": 1, "key_in_user_id": "4003",
            "key_in_user_name": "store4003", "key_in_phone": "13800000004", "key_in_account_type": "store",
            "key_in_account_display_name": "千岛湖湖畔影棚", "key_in_role_code": "storeAdmin", "key_in_role_name": "门店管理员",
            "key_in_current_scenic_id": 3, "key_in_current_scenic_name": "千岛湖", "key_in_current_store_id": 301,
        ]
        object["4003_store_key_role_permission_list"] = .string(roles)
        object["4003_store_key_in_permission"] = .string(Data(#"[{"uri":"store/orders","name":"门店订单"},{"uri":"store/writeoff","name":"核销"}]"#.utf8).base64EncodedString())
        object["4003_store_key_current_role_scenic_list"] = [["scenicId": 3, "scenicName": "千岛湖"]]
        object["4003_store_key_online_status"] = true
        object["4003_store_key_last_location_report_time"] = .double(reportTime.timeIntervalSince1970)
        object["4003_store_key_location_reminder_minutes"] = "30"
        object["4003_store_role_storeAdmin_common_uris"] = ["store/orders"]
        object["AppleLanguages"] = ["zh-Hans-CN"]
        object["com.amap.privacy"] = 1
        object["key_in_token"] = .string(Demo.token)
        let (store, report) = try importBytes(JSONWriter.bytes(.object(object), style: .pretty), name: "defaults.json")
        XCTAssertEqual(report.format, "json")
        try checkImported(store, report: report, token: true)
    }

    func testBadValueOfKnownKeyIsRejectedNotStored() throws {
        let object: JSONObject = ["key_in_user_id": 7, "key_in_current_scenic_id": ["x"], "7_scenic_key_in_permission": "nope"]
        let (store, report) = try importBytes(JSONWriter.bytes(.object(object)), name: "d.json")
        XCTAssertEqual(report.rejected.map(\.key), ["key_in_current_scenic_id", "7_scenic_key_in_permission"])
        XCTAssertEqual(report.importedKeys, ["key_in_user_id"])
        XCTAssertNil(store.currentScenicId)
        XCTAssertEqual(store.userId, 7)
    }

    /// A role entry whose `permissions` or `scenicList` is not a list (JSON text inside a string,
    /// encoded once more) is refused and named, not read as an empty list that would judge the role
    /// to have no permissions.
    func testARoleEntrysListOfAnotherTypeIsRefusedNotReadAsEmpty() throws {
        for (member, value) in [("permissions", JSONValue.string(#"[{"uri":"home/order","name":"订单"}]"#)), ("scenicList", .int(3))] {
            var role: JSONObject = ["roleCode": "storeAdmin", "scenicList": [["scenicId": 1, "scenicName": "西湖"]], "permissions": [["uri": "home/order", "name": "订单"]]]
            role[member] = value
            let object: JSONObject = ["key_in_user_id": 7, "7_store_key_role_permission_list": .string(JSONWriter.string(.array([.object(role)])))]
            let (store, report) = try importBytes(JSONWriter.bytes(.object(object)), name: "d.json")
            XCTAssertEqual(report.rejected.map(\.key), ["7_store_key_role_permission_list"], member)
            XCTAssertTrue(report.rejected.first?.reason.contains("field '\(member)' is ") == true, "\(report.rejected)")
            XCTAssertNil(store.defaults["7_store_key_role_permission_list"], member)
        }
    }

    /// JSON saved by an editor that puts a byte-order mark first reads as a plist with one does.
    func testJSONWithAByteOrderMark() throws {
        let object: JSONObject = ["key_in_user_id": 7, "key_in_account_type": "scenic"]
        let (store, report) = try importBytes([0xEF, 0xBB, 0xBF] + JSONWriter.bytes(.object(object)), name: "d.json")
        XCTAssertEqual(report.format, "json")
        XCTAssertEqual(store.userId, 7)
    }

    /// Only a text holding the token whole is a copy of it: an id that shares its digits is kept.
    func testOnlyAWholeCopyOfTheTokenIsLeftOut() throws {
        let object: JSONObject = ["key_in_token": "30013001", "key_in_user_id": 30013001, "key_in_user_name": "u30013001x",
                                  "key_in_account_type": "store", "key_in_avatar": "3001"]
        let (store, report) = try importBytes(JSONWriter.bytes(.object(object)), name: "d.json")
        XCTAssertEqual(report.rejected.map(\.key), ["key_in_user_name"])
        XCTAssertEqual(store.userId, 30013001)
        XCTAssertEqual(store.avatar, "3001")
        XCTAssertNil(store.userName)
        // A key named after the token is left out too: defaults.json would hold it in a name.
        let named: JSONObject = ["key_in_token": "stale-device-token-0123456789abcdef", "key_in_user_id": 3001, "key_in_account_type": "store",
                                 "3001_store_stale-device-token-0123456789abcdef": 1, "3001_store_queue_voice": true]
        let (kept, left) = try importBytes(JSONWriter.bytes(.object(named)), name: "n.json")
        XCTAssertEqual(left.rejected.map(\.key), ["3001_store_stale-device-token-0123456789abcdef"])
        XCTAssertFalse(kept.defaults.entries.contains { $0.key.contains("stale-device-token") })
        XCTAssertEqual(kept.defaults["3001_store_queue_voice"], .bool(true))
    }

    /// `true` is not user 1 or store 1: a boolean where an id belongs is rejected, not converted.
    func testABooleanIsNotAnId() throws {
        let object: JSONObject = ["key_in_user_id": true, "key_in_current_store_id": false, "key_in_current_scenic_id": 3]
        let (store, report) = try importBytes(JSONWriter.bytes(.object(object)), name: "d.json")
        XCTAssertEqual(report.rejected.map(\.key), ["key_in_user_id", "key_in_current_store_id"])
        XCTAssertEqual(report.rejected.first?.reason, "expected an integer, found a boolean")
        XCTAssertNil(store.userId)
        XCTAssertNil(store.currentStoreId)
        XCTAssertEqual(store.currentScenicId, 3)
        // A number no device stores as an id says which number it is.
        let (_, big) = try importBytes(Array("{\"key_in_current_store_id\": 99999999999999999999}".utf8), name: "e.json")
        XCTAssertEqual(big.rejected.first?.reason, "expected an integer, found 99999999999999999999 (past the 64-bit range a device stores)")
        let (_, written) = try importBytes(Array("{\"key_in_current_store_id\": 1.5, \"key_in_user_id\": null, \"key_in_current_scenic_id\": [1]}".utf8), name: "f.json")
        XCTAssertEqual(written.rejected.map(\.reason), ["expected an integer, found 1.5 (a device writes an integer as plain digits)",
                                                    "expected an integer, found null", "expected an integer, found an array"])
    }

    /// A boolean where a name or code belongs is refused and named, not stored as the text `true`;
    /// a number there (a phone written as digits) is its digits.
    func testABooleanIsNotAName() throws {
        let object: JSONObject = ["key_in_user_name": true, "key_in_role_code": false, "key_in_phone": .int(13800000003), "key_in_role_name": "门店管理员"]
        let (store, report) = try importBytes(JSONWriter.bytes(.object(object)), name: "d.json")
        XCTAssertEqual(report.rejected.map(\.key), ["key_in_user_name", "key_in_role_code"])
        XCTAssertEqual(report.rejected.first?.reason, "expected a string, found a boolean")
        XCTAssertNil(store.userName)
        XCTAssertNil(store.roleCode)
        XCTAssertEqual(store.phone, "13800000003")
        XCTAssertEqual(store.roleName, "门店管理员")
    }

    /// The keys are written before the token; a token that cannot be written (here its path is a
    /// folder) puts the keys back, so the profile never pairs one account's token with another's keys.
    func testATokenThatCannotBeWrittenPutsTheKeysBack() throws {
        let dir = makeTempDir(self)
        let storage = try ProfileStorage(paths: try makePaths(dir, profile: "device"), warn: { _ in })
        try storage.appStore.saveLogin(token: "tok_old_old_old_old", account: Demo.photographer, phone: "13800000001", privacyAccepted: false)
        let before = try XCTUnwrap(FileManager.default.contents(atPath: storage.paths.defaultsFile))
        unlink(storage.paths.tokenFile)
        XCTAssertEqual(mkdir(storage.paths.tokenFile, 0o700), 0)
        XCTAssertEqual(mkdir(storage.paths.tokenFile + "/keep", 0o700), 0)
        let object: JSONObject = ["key_in_user_id": 4003, "key_in_account_type": "store", "key_in_token": .string(Demo.token)]
        let file = dir + "/d.json"
        writeRaw(file, JSONWriter.bytes(.object(object)), mode: 0o644)
        XCTAssertThrowsError(try DefaultsImporter().importFile(file, into: storage.appStore))
        let after = try XCTUnwrap(FileManager.default.contents(atPath: storage.paths.defaultsFile))
        XCTAssertEqual(try JSONSerialization.jsonObject(with: after) as? NSDictionary, try JSONSerialization.jsonObject(with: before) as? NSDictionary,
                       "the keys of the failed import stayed")
    }

    /// A stored time no calendar shows (1e19 s, past the year 9999) is refused at the import, and
    /// were one stored anyway, it is shown as the number it is, not a trap.
    func testATimeOutsideTheCalendarIsRejected() throws {
        let object: JSONObject = ["key_in_user_id": 7, "7_scenic_key_last_location_report_time": .double(1e19)]
        let (_, report) = try importBytes(JSONWriter.bytes(.object(object)), name: "d.json")
        XCTAssertEqual(report.rejected.map(\.key), ["7_scenic_key_last_location_report_time"])
        XCTAssertTrue(report.rejected.first?.reason.hasPrefix("expected a time within the years 1–9999 in epoch seconds, found a number") == true,
                      "\(report.rejected)")
        XCTAssertFalse(report.rejected.first?.reason.contains("milliseconds") ?? true, "1e19 s is no count of milliseconds of a calendar year either")
        // Epoch milliseconds, as text or a number: said as the likely mistake, not taken for another time.
        for millis in [JSONValue.string("1796546280000"), .int(1_796_546_280_000)] {
            let (_, ms) = try importBytes(JSONWriter.bytes(.object(["key_in_user_id": 7, "7_scenic_key_last_location_report_time": millis])), name: "m.json")
            XCTAssertTrue(ms.rejected.first?.reason.contains("(a count of milliseconds? a device stores seconds)") == true, "\(ms.rejected)")
        }
        // ISO 8601 that names its zone is one instant, whatever the zone, and not a guess of Shanghai time.
        for text in ["2026-12-06T02:00:00Z", "2026-12-06T10:00:00+08:00", "2026-12-06T10:00:00.000+0800"] {
            let (stored, iso) = try importBytes(JSONWriter.bytes(.object(["key_in_user_id": 7, "7_scenic_key_last_location_report_time": .string(text)])), name: "i.json")
            XCTAssertEqual(iso.rejected.count, 0, "\(text): \(iso.rejected)")
            XCTAssertEqual(iso.readAsShanghaiTime, [], text)
            XCTAssertEqual(stored.defaults["7_scenic_key_last_location_report_time"]?.doubleValue, 1_796_522_400, text)
        }
        XCTAssertNil(WireDate.parseZonedISO8601("2026-12-06T10:00:00"), "no zone: not taken")
        XCTAssertNil(WireDate.parseZonedISO8601("2026-02-30T10:00:00Z"))
        XCTAssertEqual(LocalTime.human(Date(timeIntervalSince1970: 1e19)), "1e+19 s since 1970")
        XCTAssertEqual(LocalTime.iso(Date(timeIntervalSince1970: -.infinity)), "-inf s since 1970")
        XCTAssertEqual(WireDate.timestamp(Date(timeIntervalSince1970: .nan)), "nan s since 1970")
    }

    /// An export that claims a recent validation does not let a one-shot skip validating the import.
    func testTheValidationTimeIsNeverImported() throws {
        let object: JSONObject = ["key_in_user_id": 7, "sxk_session_validated_at": .double(Date().timeIntervalSince1970), "key_in_token": .string(Demo.token)]
        let (store, report) = try importBytes(JSONWriter.bytes(.object(object)), name: "d.json")
        XCTAssertEqual(report.rejected.map(\.key), ["sxk_session_validated_at"])
        XCTAssertNil(store.sessionValidatedAt)
        XCTAssertEqual(store.userId, 7)
    }

    func testMalformedFilesAreOneClearError() throws {
        let dir = makeTempDir(self)
        let storage = try ProfileStorage(paths: try makePaths(dir), warn: { _ in })
        try storage.appStore.setLastLoginUsername("13800000001")
        let binary = [UInt8](try PropertyListSerialization.data(fromPropertyList: deviceDefaults(withToken: true), format: .binary, options: 0))
        let arrayPlist = try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .xml, options: 0)
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "empty"),
            ("xml", Array("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8), "not a valid xml plist"),
            ("binary", Array(binary.prefix(binary.count / 2)), "binary plist"),
            ("json", Array("{\"key_in_user_id\": ".utf8), "neither a plist nor valid JSON"),
            ("jsonarray", Array("[1]".utf8), "expected an object"),
            ("plistarray", [UInt8](arrayPlist), "does not hold a dictionary"),
            // A token the app would open its main tab with, but that sxk cannot keep or send.
            ("spaced", Array("{\"key_in_token\": \"Bearer abcdefghijklmnop0123\"}".utf8), "key_in_token holds a token sxk cannot keep or send"),
            ("boolean", Array("{\"key_in_token\": false}".utf8), "key_in_token holds a boolean, not a token"),
            ("newline", Array("{\"key_in_token\": \"abcdefghijklmnop0123\\n\"}".utf8), "the app would open its main tab with it"),
            ("twice", Array("{\"key_in_user_id\": 3001, \"key_in_token\": \"\", \"key_in_user_id\": 2001}".utf8), "key 'key_in_user_id' appears more than once"),
            // In a plist too (either kind), as a device holds each key once.
            ("xmltwice", Array("<?xml version=\"1.0\"?><plist><dict><key>key_in_current_store_id</key><integer>102</integer><key>key_in_current_store_id</key><integer>101</integer></dict></plist>".utf8),
             "key 'key_in_current_store_id' appears more than once in the xml plist (a device holds each key once)"),
            ("utf16", [0xFF, 0xFE] + Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
             "the file is UTF-16 text (it starts with the byte order mark FF FE)"),
            ("binarytwice", BinaryPlistFixture.bplist([[0xD2, 1, 1, 2, 3], [0x51, 0x6B], [0x10, 1], [0x10, 2]]),
             "key 'k' appears more than once in the binary plist"),
        ]
        for (name, bytes, expected) in cases {
            let path = dir + "/" + name
            writeRaw(path, bytes)
            XCTAssertThrowsError(try DefaultsImporter().importFile(path, into: storage.appStore), name) { error in
                guard let error = error as? SessionError, case .badInput(let p, _) = error else { return XCTFail("\(name): \(error)") }
                XCTAssertEqual(p, path)
                XCTAssertTrue(error.description.contains(expected), "\(name): \(error.description)")
                XCTAssertFalse(error.description.contains("\n"))
            }
        }
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try DefaultsImporter().importFile(fifo, into: storage.appStore))
        XCTAssertThrowsError(try DefaultsImporter().importFile(dir + "/missing", into: storage.appStore))
        XCTAssertEqual(storage.appStore.lastLoginUsername, "13800000001", "a failed import changes nothing")
    }

    /// A malformed plist's error says where and why, in words of its own (nothing quoted from the file).
    func testMalformedPlistErrorsSayWhereAndWhy() throws {
        let dir = makeTempDir(self)
        let storage = try ProfileStorage(paths: try makePaths(dir), warn: { _ in })
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>key_in_user_id</key>
        \t<integer>7</integer>
        </array>
        </plist>

        """
        // {"a": a UID}: only keyed archives hold UIDs, never a defaults export.
        let uid = PropertyListTests.bplist([[0xD1, 1, 2], [0x51, 0x61], [0x80, 0x01]])
        let cases: [(String, [UInt8], String)] = [
            ("mismatch.plist", Array(xml.utf8), "not a valid xml plist (line 6: </array> closes <dict>)"),
            ("utf16.plist", Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist/>".utf8),
             "the xml plist uses what sxk does not read (line 1: the declared encoding is not UTF-8, the only one read)"),
            ("deep.plist", Array(("<plist>" + String(repeating: "<array>", count: 100_000)).utf8),
             "the xml plist nests deeper than 32 levels (the limit)"),
            ("cycle.bplist", PropertyListTests.bplist([[0xD1, 1, 0], [0x51, 0x61]]), "not a valid binary plist (an object contains itself)"),
            ("uid.bplist", uid, "the binary plist uses what sxk does not read (a UID, marker 0x80)"),
        ]
        for (name, bytes, expected) in cases {
            let path = dir + "/" + name
            writeRaw(path, bytes)
            XCTAssertThrowsError(try DefaultsImporter().importFile(path, into: storage.appStore), name) { error in
                XCTAssertEqual((error as? SessionError)?.description, "cannot import \(path): \(expected)")
            }
        }
        XCTAssertNil(storage.appStore.userId, "a failed import changes nothing")
    }
}
