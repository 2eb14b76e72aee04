import SXKCore

/// Prints JSON values: pretty on a terminal, compact (one line) otherwise.
public struct JSONOutput: Sendable {
    public let sink: any OutputSink
    public let pretty: Bool
    public init(sink: any OutputSink, pretty: Bool) {
        self.sink = sink
        self.pretty = pretty
    }

    public func print(_ value: JSONValue) {
        var bytes: [UInt8] = []
        JSONWriter.write(value, style: pretty ? .pretty : .compact, into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        sink.write(bytes: bytes)
    }
}
