import FoundationEssentials
import SXKCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which certificate authorities TLS trusts. Verification itself is never optional.
///
/// By default the system's **hashed** certificate directory (`CURLOPT_CAPATH`, links named by
/// subject hash that `update-ca-certificates` keeps): OpenSSL then reads only the certificates a
/// chain needs, instead of parsing the whole bundle (~140 certificates, tens of milliseconds) for
/// every process. The bundle file is used only where no hashed directory exists.
/// `SSL_CERT_FILE` and `SSL_CERT_DIR` replace the file and the directory as they do for OpenSSL;
/// `--cacert FILE` (`SXK_CACERT`) trusts exactly that file, like `curl --cacert`.
public struct TrustStore: Sendable, Equatable {
    /// `CURLOPT_CAINFO`; nil loads no bundle.
    public var caFile: String?
    /// `CURLOPT_CAPATH`; nil uses no directory.
    public var caDirectory: String?

    public init(caFile: String?, caDirectory: String?) {
        self.caFile = caFile
        self.caDirectory = caDirectory
    }

    static let systemDirectories = ["/etc/ssl/certs", "/etc/pki/tls/certs", "/etc/openssl/certs", "/usr/local/share/certs"]
    static let systemBundles = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem",
        "/etc/ssl/ca-bundle.pem", "/usr/local/share/certs/ca-root-nss.crt",
    ]

    /// The trust for `caCert` (from `--cacert` / `SXK_CACERT`) or, without it, the system's.
    /// Relative paths are made absolute here, in the folder sxk was started in: a connection holder
    /// (`KeptConnection`), which runs in `/`, is given the same files.
    public static func resolve(caCert: String?, environment: [String: String]) -> TrustStore {
        let trust = caCert.flatMap { $0.isEmpty ? nil : TrustStore(caFile: $0, caDirectory: nil) } ?? system(environment: environment)
        return TrustStore(caFile: trust.caFile.map(PathText.absolute), caDirectory: trust.caDirectory.map(PathText.absolute))
    }

    /// What a change to the trusted files changes: each one's device, inode, size and modification time
    /// (a folder's changes when a certificate link is added or removed). Empty for no files.
    public var filesSignature: String {
        var signature = ""
        for path in [caFile, caDirectory] {
            var st = stat()
            guard let path else { signature += "-;"; continue }
            if stat(path, &st) != 0 { signature += "?;"; continue }
            signature += "\(st.st_dev).\(st.st_ino).\(st.st_size).\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec);"
        }
        return signature
    }

    public static func system(environment: [String: String] = ProcessEnvironment.current()) -> TrustStore {
        var file = environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        var directory = environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        // Images that export SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt (many CI and cloud images do)
        // would make every start parse the whole bundle again. update-ca-certificates writes the hashed
        // links and then moves the new bundle into the folder, so while the bundle is not newer than the
        // folder both hold the same certificates and the folder alone is the same trust, read lazily. A
        // bundle edited by hand afterwards (`cat corp-ca.crt >> …`) is newer: then it is read as given.
        if let named = file, let folder = hashedFolderOfSystemBundle(named), directory == nil || sameFile(directory!, folder) {
            file = nil
            directory = folder
        }
        if file != nil || directory != nil { return TrustStore(caFile: file, caDirectory: directory) }
        if let hashed = systemDirectories.first(where: isHashedDirectory) { return TrustStore(caFile: nil, caDirectory: hashed) }
        return TrustStore(caFile: systemBundles.first { access($0, R_OK) == 0 }, caDirectory: nil)
    }

    /// The hashed system folder that holds `path` when `path` is that folder's system bundle
    /// (e.g. /etc/ssl/certs/ca-certificates.crt, through any symlinks); nil for any other file.
    static func hashedFolderOfSystemBundle(_ path: String) -> String? {
        for bundle in systemBundles where sameFile(path, bundle) {
            let folder = PathText.folder(of: bundle)
            if systemDirectories.contains(folder), isHashedDirectory(folder), !isNewer(bundle, than: folder) { return folder }
        }
        return nil
    }

    /// True when `a` was modified after `b` (nanoseconds), or either cannot be read.
    static func isNewer(_ a: String, than b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(a, &x) == 0, stat(b, &y) == 0 else { return true }
        if x.st_mtim.tv_sec != y.st_mtim.tv_sec { return x.st_mtim.tv_sec > y.st_mtim.tv_sec }
        return x.st_mtim.tv_nsec > y.st_mtim.tv_nsec
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(a, &x) == 0, stat(b, &y) == 0 else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// True when `path` holds at least one `XXXXXXXX.N` subject-hash link (what OpenSSL looks up).
    static func isHashedDirectory(_ path: String) -> Bool {
        guard let dir = opendir(path) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if isHashName(name) { return true }
        }
        return false
    }

    static func isHashName(_ name: [UInt8]) -> Bool {
        guard name.count >= 10, name[8] == UInt8(ascii: "."), name[9...].allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        return name[..<8].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
