import FoundationEssentials
import SXKCore

/// Which proxy libcurl takes from the environment for a URL, by its own rule, so an error can name
/// the proxy it was refused (libcurl itself does the proxying; nothing here changes where bytes go).
///
/// libcurl reads `http_proxy` (lower case only, for plain http: a CGI server sets `HTTP_PROXY` from
/// a request header), `https_proxy` / `HTTPS_PROXY`, then `all_proxy` / `ALL_PROXY`; a host matched
/// by `no_proxy` / `NO_PROXY` (`*`, a name or its parent domain, an address) goes direct.
enum ProxyChoice {
    static func proxy(for url: URL, environment: [String: String] = ProcessEnvironment.current()) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let names = scheme == "http" ? ["http_proxy"] : ["\(scheme)_proxy", "\(scheme.uppercased())_PROXY"]
        guard let proxy = (names + ["all_proxy", "ALL_PROXY"]).lazy.compactMap(value).first else { return nil }
        if let skip = value("no_proxy") ?? value("NO_PROXY") {
            for entry in skip.split(separator: ",").map({ $0.trimming(\.isBlank).lowercased() }) {
                var name = Substring(entry)
                if name == "*" { return nil }
                if name.hasPrefix(".") { name = name.dropFirst() }
                if !name.isEmpty, host == name || host.hasSuffix("." + name) { return nil }
            }
        }
        return shown(proxy)
    }

    /// The proxy as an error line shows it: credentials in it (`user:pass@`) masked.
    static func shown(_ proxy: String) -> String { Redaction.shownURL(proxy) }
}
