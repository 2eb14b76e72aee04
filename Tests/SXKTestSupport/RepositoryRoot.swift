import Foundation

/// The repository's root folder, found by walking up from a test file's path to the folder that holds
/// `Package.swift`: a test file can move to another folder without counting its levels.
public enum RepositoryRoot {
    public static func url(from file: String = #filePath) -> URL {
        var folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) { return folder }
            folder.deleteLastPathComponent()
        }
        preconditionFailure("no Package.swift above \(file)")
    }

    /// A path inside the repository: `RepositoryRoot.file("README.md")`.
    public static func file(_ relative: String, from file: String = #filePath) -> URL {
        url(from: file).appendingPathComponent(relative)
    }
}
