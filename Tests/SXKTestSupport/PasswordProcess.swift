import Foundation

/// A program started with one line on its standard input (a login's `--password-stdin`), its output
/// discarded: running, for a test that watches it or signals it.
public enum PasswordProcess {
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String],
                             line: String = "sandbox123") throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        try? input.fileHandleForWriting.close()
        return process
    }
}
