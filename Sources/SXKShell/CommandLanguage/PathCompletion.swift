#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files and folders for a `.path` value (`import-defaults FILE`, `har save FILE`), read from the
/// local folder the typed prefix names: the one completion that reads the disk, never the network.
enum PathCompletion {
    /// At most this many names from one folder, so Tab in a huge folder stays quick.
    static let limit = 2000

    /// The entries of the prefix's folder whose name starts as the prefix's last part does, each with
    /// the folder part as typed; a folder ends in `/` and continues the word. Dot files only when the
    /// part starts with a dot; `~/` reads the home folder and stays as typed.
    static func candidates(prefix: String, home: String? = getenv("HOME").map { String(cString: $0) }) -> [CompletionCandidate] {
        let typedFolder: String
        let namePrefix: String
        if let slash = prefix.lastIndex(of: "/") {
            typedFolder = String(prefix[...slash])
            namePrefix = String(prefix[prefix.index(after: slash)...])
        } else {
            typedFolder = ""
            namePrefix = prefix
        }
        let folder = typedFolder.isEmpty ? "." : ValueCheck.expanded(typedFolder, kind: .path, home: home)
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var found: [CompletionCandidate] = []
        while found.count < limit, let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." || !name.hasPrefix(namePrefix) { continue }
            if name.hasPrefix("."), !namePrefix.hasPrefix(".") { continue }
            var st = stat()
            let isFolder = stat(folder + "/" + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            var candidate = CompletionCandidate(typedFolder + name + (isFolder ? "/" : ""))
            candidate.continues = isFolder
            found.append(candidate)
        }
        return found.sorted { $0.value < $1.value }
    }
}
