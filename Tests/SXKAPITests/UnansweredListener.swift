import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port where a new connection never completes: the listen queue (backlog 0) is
/// already full with one connection nobody accepts, so Linux drops further SYNs and a client's
/// connect waits as it would for a host that does not answer.
final class UnansweredListener {
    let port: UInt16
    private let listenFD: Int32
    private let parkedFD: Int32

    init() throws {
        (listenFD, port) = try LoopbackTestServer.listen(backlog: 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        // The one connection the queue holds; it completes at once (the kernel answers the SYN).
        parkedFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(parkedFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(parkedFD); close(listenFD); throw POSIXError(.ECONNREFUSED) }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit {
        close(parkedFD)
        close(listenFD)
    }
}
