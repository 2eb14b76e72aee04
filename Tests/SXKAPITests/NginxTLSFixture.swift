import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real TLS terminator for the https cases: certificates made now by the `openssl` CLI (a test
/// CA, a good server certificate for 127.0.0.1/localhost, an expired one, one for another name,
/// a self-signed one) and nginx (a child of the test, loopback ports only) proxying to a plain
/// http upstream on loopback. Its access log names, per request, the port, nginx's connection
/// number, the requests on that connection, whether the TLS session was resumed and the protocol.
final class NginxTLSFixture {
    enum Site: String, CaseIterable { case h2, h1, expired, wrongName, selfSigned }

    let directory: String
    private(set) var ports: [Site: UInt16] = [:]
    private var nginxPID: pid_t = 0

    var caFile: String { directory + "/ca.pem" }

    func url(_ site: Site, host: String = "127.0.0.1") -> URL { URL(string: "https://\(host):\(ports[site]!)")! }

    /// nil when nginx or openssl is missing (`make test` installs both: see the Makefile's `test-deps`).
    static func nginxPath() -> String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first { access($0, X_OK) == 0 }
    }

    init(upstreamPort: UInt16) throws {
        guard let nginx = Self.nginxPath() else { throw FixtureError.missing("nginx") }
        directory = NSTemporaryDirectory() + "sxk-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        try Self.shell(Self.certificateScript, directory)
        for site in Site.allCases { ports[site] = try Self.freePort() }
        try nginxConfig(upstreamPort: upstreamPort).write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        nginxPID = try Self.spawn(nginx, ["-p", directory, "-c", directory + "/nginx.conf", "-e", directory + "/error.log"])
        for site in Site.allCases where !Self.waitForListener(ports[site]!) {
            let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
            stop()
            throw FixtureError.notStarted("nginx did not listen on \(site): \(log)")
        }
    }

    func stop() {
        guard nginxPID > 0 else { return }
        kill(nginxPID, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<200 where waitpid(nginxPID, &status, WNOHANG) == 0 { usleep(10_000) }
        if waitpid(nginxPID, &status, WNOHANG) == 0 {
            kill(nginxPID, SIGKILL)
            waitpid(nginxPID, &status, 0)
        }
        nginxPID = 0
        // XCTest keeps test case objects (and so fixtures) alive to the end: clean up here.
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct LogLine: Equatable {
        var port: UInt16
        var connection: Int
        var connectionRequests: Int
        /// "r" for a resumed TLS session, "." for a full handshake.
        var sessionReused: String
        var proto: String
        var uri: String
    }

    /// The access log so far (nginx writes each line when the request ends).
    /// The log once it holds at least `count` lines for `port`: nginx writes a line after the answer
    /// has gone out, so the client can read it before the line is there (at most 2 s of waiting).
    func log(atLeast count: Int, port: UInt16?) -> [LogLine] {
        let deadline = Date().addingTimeInterval(2)
        while true {
            let lines = log()
            if lines.filter({ $0.port == port }).count >= count || Date() > deadline { return lines }
            usleep(10_000)
        }
    }

    func log() -> [LogLine] {
        let text = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count == 6, let port = UInt16(f[0]), let c = Int(f[1]), let n = Int(f[2]) else { return nil }
            return LogLine(port: port, connection: c, connectionRequests: n, sessionReused: f[3], proto: f[4], uri: f[5])
        }
    }

    private func nginxConfig(upstreamPort: UInt16) -> String {
        // The HTTP/1.1 site speaks TLS 1.2, whose session exists when the handshake ends. A TLS 1.3 session
        // comes in a ticket the server writes after the handshake, so whether the second connection of a
        // concurrent pair (started once the first one's handshake is done) finds it raced the server's write.
        func server(_ site: Site, cert: String, http2: Bool) -> String {
            """
                server {
                    listen 127.0.0.1:\(ports[site]!) ssl\(http2 ? " http2" : "");\(site == .h1 ? "\n            ssl_protocols TLSv1.2;" : "")
                    ssl_certificate \(directory)/\(cert).pem;
                    ssl_certificate_key \(directory)/\(cert).key;
                    location / {
                        proxy_pass http://backend;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_buffering off;
                    }
                }

            """
        }
        let d = directory
        return """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(d)/nginx.pid;
        error_log \(d)/error.log warn;
        events { worker_connections 256; }
        http {
            log_format sxk '$server_port $connection $connection_requests $ssl_session_reused $server_protocol $request_uri';
            access_log \(d)/access.log sxk;
            client_body_temp_path \(d)/tmp/body;
            proxy_temp_path \(d)/tmp/proxy;
            fastcgi_temp_path \(d)/tmp/fastcgi;
            uwsgi_temp_path \(d)/tmp/uwsgi;
            scgi_temp_path \(d)/tmp/scgi;
            ssl_session_cache shared:SSL:1m;
            proxy_read_timeout 60s;
            upstream backend { server 127.0.0.1:\(upstreamPort); keepalive 8; }
        \(server(.h2, cert: "good", http2: true))\(server(.h1, cert: "good", http2: false))\(server(.expired, cert: "expired", http2: true))\(server(.wrongName, cert: "wrong", http2: true))\(server(.selfSigned, cert: "self", http2: true))}
        """
    }

    enum FixtureError: Error { case missing(String), notStarted(String), command(String) }

    /// A CA, certificates signed by it (good: 127.0.0.1 and localhost; wrong: another name;
    /// expired: valid only on 2020-01-01) and a self-signed certificate, all P-256.
    static let certificateScript = #"""
    set -e
    cd "$1"
    k() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
    k ca.key
    openssl req -x509 -new -key ca.key -out ca.pem -subj "/CN=sxk test CA" -days 2 -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > good.ext
    printf 'subjectAltName=DNS:wrong.example\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > wrong.ext
    for name in good wrong expired; do k $name.key; openssl req -new -key $name.key -out $name.csr -subj "/CN=$name"; done
    openssl x509 -req -in good.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out good.pem -days 2 -extfile good.ext 2>/dev/null
    openssl x509 -req -in wrong.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out wrong.pem -days 2 -extfile wrong.ext 2>/dev/null
    : > index.txt; echo 1000 > serial
    printf '[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n[v3]\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' > ca.cnf
    openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem -startdate 20200101000000Z -enddate 20200102000000Z -notext -extensions v3 2>/dev/null
    k self.key
    openssl req -x509 -new -key self.key -out self.pem -subj "/CN=127.0.0.1" -days 2 -addext "subjectAltName=IP:127.0.0.1,DNS:localhost"
    """#

    static func shell(_ script: String, _ argument: String) throws {
        let pid = try spawn("/bin/sh", ["-c", script, "sh", argument])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        guard status == 0 else { throw FixtureError.command("certificate script failed (wait status \(status))") }
    }

    /// posix_spawn with output to /dev/null (Foundation's Process spins a run loop while it waits,
    /// which never ends inside an async test), default signal handling and an empty signal mask
    /// (the test process may block SIGTERM in this thread; nginx must not inherit that).
    static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw FixtureError.command("\(path) could not start (\(rc))") }
        return pid
    }

    /// A port free right now on 127.0.0.1 (nginx binds it a moment later).
    static func freePort() throws -> UInt16 {
        let (fd, port) = try LoopbackTestServer.listen(backlog: 1)
        close(fd)
        return port
    }

    static func waitForListener(_ port: UInt16, timeout: TimeInterval = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
            close(fd)
            if ok { return true }
            usleep(10_000)
        }
        return false
    }
}
