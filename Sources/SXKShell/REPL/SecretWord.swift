import SXKCore

/// Words that could carry a secret, for the history filter and the masked command text: a
/// `NAME=value`, `NAME:=JSON` or `Name:value` word or a JSON member whose name is a secret name (`Token=…`, `new_password=…`,
/// `{"Pwd": …}`), by the same rule as every other sink.
enum SecretWord {
    /// Whether `name` names a secret by the one rule (`Redaction.isSecretName`).
    static func isSecretName(_ name: Substring) -> Bool { Redaction.isSecretName(name) }

    /// `password=…`, `password:=…`, `X-Password:…` (any case), or JSON with a secret-named member at any depth.
    static func carriesSecret(_ word: String) -> Bool {
        if let query = Redaction.typedQuery(word) { return Redaction.queryCarriesSecret("?" + query) }
        if Redaction.secretItemValueStart(word) != nil { return true }
        if let value = jsonValue(word) { return holdsSecretMember(value) }
        // An item of another name whose value is a path with a secret pair, or such JSON (`cb=/y?token=…`, `data:={…}`).
        guard let start = Redaction.itemValueStart(word) else { return false }
        let value = String(word[start...])
        if let query = Redaction.typedQuery(value) { return Redaction.queryCarriesSecret("?" + query) }
        return jsonValue(value).map(holdsSecretMember) ?? false
    }

    private static func jsonValue(_ word: String) -> JSONValue? {
        guard word.hasPrefix("{") || word.hasPrefix("[") else { return nil }
        return try? JSONParser.parse(word)
    }

    private static func holdsSecretMember(_ value: JSONValue) -> Bool {
        // A path or URL value with a secret pair in its query, as a typed path is read.
        if let text = value.stringValue, let query = Redaction.typedQuery(text) { return Redaction.queryCarriesSecret("?" + query) }
        if let object = value.objectValue {
            return object.entries.contains { isSecretName(Substring($0.key)) || holdsSecretMember($0.value) }
        }
        if let array = value.arrayValue { return array.contains(where: holdsSecretMember) }
        return false
    }
}
