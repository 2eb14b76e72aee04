import SXKCore

/// A recorded request as a `curl` command line a POSIX shell runs as is: every word single-quoted,
/// the token header as `"token: $SXK_TOKEN"` unless the token is revealed.
struct CurlCommand {
    let request: RecordedRequest
    let revealToken: Bool

    /// One option per line, joined by ` \` continuations.
    func render() -> String {
        var words: [String] = ["curl"]
        switch request.method {
        case "GET": break
        case "POST" where request.body != nil: break
        default: words.append("-X " + CurlCommand.quote(request.method))
        }
        var lines = [(words + [CurlCommand.quote(request.url)]).joined(separator: " ")]
        for field in request.headers {
            if field.name.lowercased() == "token" {
                lines.append("-H " + (revealToken ? CurlCommand.quote("\(field.name): \(field.value)") : "\"\(field.name): $SXK_TOKEN\""))
            } else if Redaction.isSecretName(field.name) {
                lines.append("-H " + CurlCommand.quote("\(field.name): ***"))
            } else {
                lines.append("-H " + CurlCommand.quote("\(field.name): \(field.value)"))
            }
        }
        if let body = request.body { lines.append("--data-raw " + CurlCommand.quote(body)) }
        return lines.joined(separator: " \\\n  ") + "\n"
    }

    /// POSIX single quotes: `it's` → `'it'\''s'`.
    static func quote(_ word: String) -> String {
        "'" + word.replacingAll("'", with: "'\\''") + "'"
    }
}
