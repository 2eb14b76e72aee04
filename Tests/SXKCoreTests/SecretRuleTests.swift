import XCTest
@testable import SXKCore

/// The one rule for what names a secret, and the forms a live secret is found in.
final class SecretRuleTests: XCTestCase {
    /// Where the line is drawn: a name that is or ends in a secret word (case, `-`, `_` ignored) is
    /// secret; one that only holds such a word elsewhere is not.
    func testTheRuleOverNames() {
        let secret = [
            "Password", "password", "PASSWORD", "pass_word", "pass-word", "oldPassword", "newPassword", "new_password",
            "passwd", "pwd", "newPwd", "userPwd", "X-API-KEY", "X-Api-Key", "apiKey", "api_key", "refreshToken",
            "refresh_token", "access_token", "accessToken", "tempToken", "formalToken", "token", "Token", "TOKEN",
            "key_in_token", "client-secret", "client_secret", "clientSecret", "Authorization", "Proxy-Authorization",
            "authorization", "cookie", "Cookie", "set-cookie", "Set-Cookie", "session", "sessionId", "JSESSIONID",
            "credential", "credentials", "privateKey", "private_key", "secretKey", "aws_secret_access_key",
            "pin", "PIN", "userPin", "card_pin", "otp", "smsOtp", "X-Auth", "auth", "token_", "passphrase",
        ]
        for name in secret { XCTAssertTrue(Redaction.isSecretName(name), name) }
        let visible = [
            "passport", "passportNo", "tokenCount", "tokens", "token_type", "tokenExpiresIn", "passwordHint",
            "passwordPolicy", "sessionTimeout", "sessionCount", "cookiePolicy", "secretary", "authorName", "author",
            "spin", "oauth", "OAUTH", "shotp", "photographerName", "amount", "orderNo", "", "-", "keyboard",
            "monkey", "apikeyCount", "userName", "scenicName", "debug", "echo", "trail", "key", "id",
        ]
        for name in visible { XCTAssertFalse(Redaction.isSecretName(name), name) }
        XCTAssertTrue(Redaction.isSecretName(Substring("x-refresh-token")))
    }

    func testMembersAtAnyDepthAreMaskedButFlagsAndNullsKept() {
        let body: JSONValue = .object([
            "user": .object(["name": "a", "newPassword": "NEW-2", "pin": .int(1234)]),
            "list": .array([.object(["client_secret": "CS-1", "tokenCount": .int(3)])]),
            "session": .bool(true), "refresh_token": .null, "passport": "E123",
            "credentials": .object(["user": "u", "key": "k"]),
        ])
        let out = JSONWriter.string(Redaction.redact(body))
        for hidden in ["NEW-2", "1234", "CS-1", "\"u\""] { XCTAssertFalse(out.contains(hidden), out) }
        XCTAssertTrue(out.contains(#""session":true"#), out)
        XCTAssertTrue(out.contains(#""refresh_token":null"#), out)
        XCTAssertTrue(out.contains(#""passport":"E123""#), out)
        XCTAssertTrue(out.contains(#""tokenCount":3"#), out)
    }

    /// A row that names its value in a member (a key/value table's `field`, a change's `key`) hides
    /// the value as a member of that name would be hidden, so the table and JSON views agree.
    func testRowsThatNameTheirValueHideASecretOne() {
        let rows: JSONValue = .array([
            .object(["field": "3001_store_queue_password", "value": "hunter2"]),
            .object(["key": "x_token", "before": "OLD-TOKEN", "after": "NEW-TOKEN"]),
            .object(["field": "key_in_user_name", "value": "store3001"]),
            .object(["field": "token", "value": "–"]),
            .object(["key": "key_in_token", "value": "nil"]),
        ])
        let out = JSONWriter.string(Redaction.redact(rows))
        for hidden in ["hunter2", "OLD-TOKEN", "NEW-TOKEN"] { XCTAssertFalse(out.contains(hidden), out) }
        XCTAssertTrue(out.contains("store3001"), out)
        XCTAssertTrue(out.contains("–"), "a table's mark for none carries nothing: \(out)")
        XCTAssertTrue(out.contains(#""value":"nil""#), "an explanation's mark for none carries nothing: \(out)")
        // A raw body with such rows is written again, masked; other text stays byte for byte.
        let raw = #"{"code":0, "data":[{"key":"password","value":"hunter2"}]}"#
        XCTAssertFalse(Redaction.scrubNamedRows(raw).contains("hunter2"))
        XCTAssertEqual(Redaction.scrubNamedRows(#"{"key": "name",  "value":"x"}"#), #"{"key": "name",  "value":"x"}"#)
    }

    /// Typed items shown back mask a secret-named field, raw JSON field or header alike.
    func testTypedItemsAreMaskedByTheirName() {
        XCTAssertEqual(Redaction.maskWord("password=x"), "password=***")
        XCTAssertEqual(Redaction.maskWord(#"password:="x""#), "password:=***")
        XCTAssertEqual(Redaction.maskWord("X-Api-Key:abc"), "X-Api-Key:***")
        XCTAssertEqual(Redaction.maskWord("q=token:x"), "q=token:x")
        XCTAssertEqual(Redaction.maskWord("X-Trace:on"), "X-Trace:on")
        XCTAssertEqual(Redaction.maskWord("/api/x:y?password=hunter9"), "/api/x:y?password=***")
        XCTAssertEqual(Redaction.maskWord("/api/session:list"), "/api/session:list")
        XCTAssertEqual(Redaction.maskWord("10:30"), "10:30")
        // Every pair of a path's own query, its name read percent-decoded, not just the first.
        XCTAssertEqual(Redaction.maskWord("/api/x?a=1&refresh_token=RT9"), "/api/x?a=1&refresh_token=***")
        XCTAssertEqual(Redaction.maskWord("/api/x?pass%77ord=P1&b=2"), "/api/x?pass%77ord=***&b=2")
        XCTAssertEqual(Redaction.maskWord("/api/x?a=1&tokenCount=2"), "/api/x?a=1&tokenCount=2")
        // A `?` inside a header's or a JSON member's value is no query.
        XCTAssertEqual(Redaction.maskWord("X-Api-Key:zz?topsecret"), "X-Api-Key:***")
        XCTAssertEqual(Redaction.maskWord(#"{"password":"p?q"}"#), #"{"password":"***"}"#)
        XCTAssertEqual(Redaction.maskWord("keyword=a?b"), "keyword=a?b")
        XCTAssertEqual(Redaction.maskWord("keyword=a?password=x"), "keyword=a?password=x", "a value, not a query, on the wire")
        XCTAssertEqual(Redaction.maskWord("/x?password=a&x=1"), "/x?password=***&x=1", "the pairs after it are kept")
        // A URL inside another word is no typed query: the word's own rule applies.
        XCTAssertEqual(Redaction.maskWord("password=https://h/?q=x"), "password=***")
        XCTAssertEqual(Redaction.maskWord("Authorization:Bearer://a?b=x"), "Authorization:***")
        XCTAssertEqual(Redaction.maskWord(#"{"cb":"https://h/x?y=1","password":"p"}"#), #"{"cb":"https://h/x?y=1","password":"***"}"#)
        XCTAssertEqual(Redaction.maskWord("https://h/x?token=t&a=1"), "https://h/x?token=***&a=1")
        // A URL quoted back by a message: credentials and secret query values masked.
        XCTAssertEqual(Redaction.shownURL("http://user:Hunter2Pw@127.0.0.1:1/x"), "http://***@127.0.0.1:1/x")
        XCTAssertEqual(Redaction.shownURL("http://127.0.0.1:1/?a=1&token=abc123"), "http://127.0.0.1:1/?a=1&token=***")
        XCTAssertEqual(Redaction.shownURL("https://api.example.test/v1"), "https://api.example.test/v1")
    }

    /// The forms a server echoes a token back in: another case, base64 at any alignment (standard
    /// and URL alphabet), a prefix or any run of 16 characters.
    /// One split of a URL's query for every reader: pairs as written, a fragment apart; the masks take
    /// a secret-named pair's value in the query and in the fragment (`#access_token=…`).
    func testAQueryIsSplitOneWayAndMaskedInItsFragmentToo() {
        let parts = QueryText.split("/x?a=1&&b&c=&token=t0k#access_token=f1&z")
        XCTAssertEqual(parts.head, "/x")
        XCTAssertEqual(parts.query, "a=1&&b&c=&token=t0k")
        XCTAssertEqual(parts.fragment, "access_token=f1&z")
        XCTAssertEqual(QueryText.pairs(parts.query!).map { "\($0.name)=\($0.value ?? "nil")" }, ["a=1", "b=nil", "c=", "token=t0k"])
        XCTAssertNil(QueryText.split("/x#y").query)
        XCTAssertEqual(Redaction.maskedQuery("/x?a=1&token=t0k#access_token=f1&z"), "/x?a=1&token=***#access_token=***&z")
        XCTAssertEqual(Redaction.maskedQuery("/x#access_token=f1"), "/x#access_token=f1", "no query: left as written")
        XCTAssertTrue(Redaction.queryCarriesSecret("/x?a=1&Pass%77ord=x#y"))
        XCTAssertFalse(Redaction.queryCarriesSecret("/x?a=1&password=#token=x"), "an empty value is no secret; the fragment is not sent")
    }

    func testLiveSecretsInEchoedForms() {
        let token = "sxk_0123456789abcdef0123456789abcdef"
        let b64 = Base64.encode(Array(token.utf8)[...])
        let inside = Base64.encode(Array(("user:" + token).utf8)[...])
        let forms = [
            token, token.uppercased(), b64, b64.replacingAll("=", with: ""), inside,
            String(token.prefix(20)), String(token.dropFirst(7).prefix(16)), String(token.suffix(17)).uppercased(),
        ]
        for form in forms {
            let text = "echo: [" + form + "] done"
            let masked = Redaction.redact(text, secrets: [token])
            XCTAssertTrue(masked.hasPrefix("echo: ["), masked)
            XCTAssertTrue(masked.hasSuffix("] done"), masked)
            XCTAssertFalse(masked.contains(String(form.dropFirst(2).prefix(14))), "\(form) → \(masked)")
            XCTAssertTrue(Redaction.redact(.string(text), secrets: [token]) == .string(masked))
        }
        // 15 characters of it, or text sharing only a prefix, are left alone.
        let near = "x " + String(token.prefix(15)) + " y"
        XCTAssertEqual(Redaction.redact(near, secrets: [token]), near)
        // A short secret (a password) is matched whole in any case and as base64, not by pieces.
        XCTAssertEqual(Redaction.redact("sent pw-cap1 / PW-CAP1 / UFctQ0FQMQ==", secrets: ["PW-CAP1"]), "sent *** / *** / ***")
        XCTAssertEqual(Redaction.redact("PW-CA here", secrets: ["PW-CAP1"]), "PW-CA here")
        // Multi-byte text around a match survives whole.
        XCTAssertEqual(Redaction.redact("西湖" + token + "景区", secrets: [token]), "西湖***景区")
    }
}

extension SecretRuleTests {
    /// A token sent in a query string or echoed URL-encoded is found and masked decoded.
    func testAPercentEncodedSecretIsFoundAndMasked() {
        let token = "Q1w2E3r4T5y6U7i/O9p0A1s2D3f4G5h+J7k8L9z0X1c2V3b/N5m6Q7w8E9r0T1y="
        let matcher = SecretMatcher([token])
        let encoded = "Q1w2E3r4T5y6U7i%2FO9p0A1s2D3f4G5h%2BJ7k8L9z0X1c2V3b%2FN5m6Q7w8E9r0T1y%3D"
        let url = "https://app.example/cb?t=\(encoded)&x=1"
        XCTAssertTrue(matcher.holds(url))
        XCTAssertEqual(matcher.mask(url), "https://app.example/cb?t=***&x=1")
        XCTAssertFalse(matcher.holds("https://app.example/cb?t=a%20b&x=1"))
        XCTAssertEqual(matcher.mask("100%25 sure"), "100%25 sure")
    }
}

extension SecretRuleTests {
    /// Percent escapes are decoded once, in one pass over the bytes: nested escapes cost what plain
    /// text does, and a token beside an escape that is not UTF-8 (a URL cut mid-character) is found.
    func testPercentDecodingIsOneLinearPass() {
        let token = "hxc5d2c4ea38008f159d2de783a3f35017"
        let matcher = SecretMatcher([token])
        let nested = "%" + String(repeating: "25", count: 20_000) + "41"
        let started = Date()
        XCTAssertFalse(matcher.holds(nested))
        XCTAssertEqual(matcher.mask(nested), nested)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        let encoded = token.utf8.map { String(format: "%%%02X", $0) }.joined()
        XCTAssertTrue(matcher.holds("q=\(encoded)%FF"))
        XCTAssertEqual(matcher.mask("a=1&q=\(encoded)%E4%B8&b=2"), "a=1&q=***&b=2")
    }

    /// An answer still to be used keeps its number-like text whole (a phone that holds a numeric
    /// password's digits); a name that repeats the secret is masked.
    func testMaskingARepeatedSecretLeavesNumbersAlone() {
        let value: JSONValue = ["phone": "13800000004", "userId": "4001", "name": "千岛湖 pw:000000x", "token": "keep-000000x-token"]
        let masked = Redaction.maskingRepeated(value, secrets: ["000000x"])
        XCTAssertEqual(masked.objectValue?.string("phone"), "13800000004")
        XCTAssertEqual(masked.objectValue?.string("userId"), "4001")
        XCTAssertEqual(masked.objectValue?.string("name"), "千岛湖 pw:***")
        XCTAssertEqual(masked.objectValue?.string("token"), "keep-000000x-token")
    }
}
