import SXKCore

/// Prints JSON values: pretty on a terminal, compact (one line) otherwise. With a recorder, the
/// value printed is also kept as the command's data (`$_`, `let`).
public struct JSONOutput: Sendable {
    public let sink: any OutputSink
    public let pretty: Bool
    public let recorder: CommandData?
    public init(sink: any OutputSink, pretty: Bool, recorder: CommandData? = nil) {
        self.sink = sink
        self.pretty = pretty
        self.recorder = recorder
    }

    public func print(_ value: JSONValue) {
        recorder?.keep(value)
        var bytes: [UInt8] = []
        JSONWriter.write(value, style: pretty ? .pretty : .compact, into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        sink.write(bytes: bytes)
    }
}
