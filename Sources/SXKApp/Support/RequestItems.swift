import SXKCore

/// The words after `get PATH` / `post PATH`, read as HTTPie reads them: `k=v` a string field,
/// `k:=JSON` a raw JSON value (`n:=1`, `ok:=true`, `ids:='[1,2]'`), `Name:value` a request header.
/// The separator that comes first in the word decides, so `q=a:b` is a field and `X-A:b=c` a header.
struct RequestItems {
    var fields: [(key: String, value: JSONValue)] = []
    var headers: [(name: String, value: String)] = []

    /// `sendsBody`: the words are a POST's (a JSON body is one word alone), else a GET's query.
    static func parse(_ words: [String], sendsBody: Bool) throws -> RequestItems {
        var items = RequestItems()
        for word in words {
            // `post /x '{"a":1}' b=2`: a JSON body, whole or not, is not an item (its `"a":` is no header);
            // `'[x]=1'` is an item whose key starts with a bracket.
            if word.hasPrefix("{") || (word.hasPrefix("[") && !word.contains("=")) {
                if !sendsBody { throw AppError.usage("get sends no body: give the query as items (k=v, k:=JSON)") }
                do { _ = try JSONParser.parse(word) } catch {
                    throw AppError.usage("body is not valid JSON: \(error)")
                }
                throw AppError.usage("a JSON body is sent alone: put the other fields in it, or give every field as an item (k=v, k:=JSON)")
            }
            let equals = word.firstIndex(of: "=")
            let colon = word.firstIndex(of: ":")
            if let colon, equals == nil || colon < equals! {
                let next = word.index(after: colon)
                if next < word.endIndex, word[next] == "=" {
                    let key = String(word[..<colon])
                    guard !key.isEmpty else { throw AppError.usage("expected key:=JSON, got '\(word)'") }
                    let text = String(word[word.index(after: next)...])
                    do { items.fields.append((key, try JSONParser.parse(text))) } catch {
                        throw AppError.usage("\(key):= takes a JSON value (1, true, null, \"text\", [..], {..}), got '\(text)'")
                    }
                } else {
                    items.headers.append(try header(name: String(word[..<colon]), value: String(word[next...]), word: word))
                }
            } else if let equals, equals != word.startIndex {
                items.fields.append((String(word[..<equals]), .string(String(word[word.index(after: equals)...]))))
            } else {
                throw AppError.usage("expected key=value, key:=JSON or Header:value, got '\(word)'")
            }
        }
        return items
    }

    /// A header as the wire takes it: a token name, a value without CR, LF or NUL (which would
    /// end the header and start another the user never wrote).
    private static func header(name: String, value: String, word: String) throws -> (name: String, value: String) {
        let tokenChars = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(tokenChars.contains) else {
            throw AppError.usage("'\(name)' is not a header name (letters, digits and !#$%&'*+-.^_`|~), in '\(word)'")
        }
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw AppError.usage("header \(name): a value must not hold CR, LF or NUL")
        }
        return (name, value.trimming(\.isBlank))
    }

    /// The fields as a query: strings as they are, other scalars as their JSON text (`page:=2` → `2`).
    func query() throws -> [(String, String)] {
        try fields.map { field in
            switch field.value {
            case .string(let s): return (field.key, s)
            case .array, .object: throw AppError.usage("\(field.key): a query parameter takes a string or a scalar, not \(JSONWriter.string(field.value))")
            default: return (field.key, JSONWriter.string(field.value))
            }
        }
    }

    /// The fields as one JSON object (a POST body).
    var object: JSONValue { .object(JSONObject(fields.map { (key: $0.key, value: $0.value) })) }
}
