#!/usr/bin/env python3
"""The https set-up of the benchmark run, all on loopback: a throw-away CA and server certificate (openssl CLI),
nginx as TLS terminator (HTTP/2 and HTTP/1.1, keep-alive to the sandbox) with an access log that names each
request's connection and whether its TLS session was resumed, a gzip bomb it serves, the delay relay
(relay.py), and the CA put into the system store for curl's default trust and taken out again.

Every process it starts goes into the caller's `started` list; every system change registers its undo in
`undo`; the caller runs both at exit (also on Ctrl-C / SIGTERM). Imported by benchmarks/run.
"""
import os, socket, struct, subprocess, sys, time, urllib.request, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CA_DIR, CA_PREFIX = "/usr/local/share/ca-certificates", "sxk-bench-ca"  # the run's CA: CA_DIR/sxk-bench-ca-PID.crt
CERT_DIR = "/etc/ssl/certs"  # where update-ca-certificates links it, by name (sxk-bench-ca-PID.pem) and by hash
BOMB_PATH = "/api/bench/gzip-bomb"
LOG_FORMAT = "$connection $connection_requests $ssl_session_reused $ssl_protocol \"$request\" $status"


def _run(argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60, **kw)


def make_certs(d):
    """A CA (ca.pem) and a server certificate for 127.0.0.1 and localhost signed by it, P-256, valid 2 days."""
    ca_key, ca, key, csr, cert = (os.path.join(d, n) for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    _run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=sxk benchmark CA",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    _run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", key, "-out", csr, "-subj", "/CN=localhost"])
    ext = os.path.join(d, "server.ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
                "subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
          "-days", "2", "-extfile", ext])
    for p in (ca_key, key):
        os.chmod(p, 0o600)
    return ca, cert, key


def _installed_ca(pid):
    """(the file in CA_DIR, the name update-ca-certificates links to it in CERT_DIR) of run `pid`'s CA."""
    stem = "%s-%d" % (CA_PREFIX, pid)
    return os.path.join(CA_DIR, stem + ".crt"), stem + ".pem"


def _leftover_ca_owners():
    """The runs whose CA is still installed though their process is gone (killed before its clean-up ran)."""
    gone = []
    for name in os.listdir(CA_DIR) if os.path.isdir(CA_DIR) else ():
        if name.startswith(CA_PREFIX + "-") and name.endswith(".crt") and name[len(CA_PREFIX) + 1:-4].isdigit():
            pid = int(name[len(CA_PREFIX) + 1:-4])
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                gone.append(pid)
            except PermissionError:
                pass  # alive, another user's
    return gone


def trust_system_ca(ca, undo):
    """Puts `ca` into the system store (what curl trusts by default) under this process's own name, so two runs
    at once (a benchmark and a hand-made lab) never take out each other's; the undo takes it out again. A CA
    left behind by a run that was killed is taken out first."""
    sudo = [] if os.geteuid() == 0 else ["sudo"]

    def remove(owners):
        files, targets = [], set()
        for owner in owners:
            crt, pem = _installed_ca(owner)
            files.append(crt)
            targets |= {crt, pem}
        # update-ca-certificates rebuilds the bundle without the removed file but keeps the links it made to it.
        links = [os.path.join(CERT_DIR, n) for n in os.listdir(CERT_DIR)
                 if os.path.islink(os.path.join(CERT_DIR, n)) and os.readlink(os.path.join(CERT_DIR, n)) in targets]
        if any(os.path.exists(f) for f in files) or links:
            subprocess.run(sudo + ["rm", "-f"] + files + links, check=False)
            subprocess.run(sudo + ["update-ca-certificates"], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # Another run's CA has the same subject, so its hash link may be `<hash>.1`; with `<hash>.0` gone, a
            # lookup by hash stops before it, and update-ca-certificates (which saw no file come or go) does not
            # renumber. A rehash does.
            subprocess.run(sudo + ["openssl", "rehash", CERT_DIR], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    leftovers = _leftover_ca_owners()
    if leftovers:
        remove(leftovers)
    pid = os.getpid()
    undo.append(lambda: remove([pid]))  # registered first, so a failure half-way still cleans up
    _run(sudo + ["install", "-m", "0644", ca, _installed_ca(pid)[0]])
    _run(sudo + ["update-ca-certificates"])


def make_gzip_bomb(path, decoded_gib=2):
    """A gzip file (~10 MB) that decodes to `decoded_gib` GiB of valid JSON: {"code":200,…,"data":[0,0,…,n,…0]}.
    One 4 MiB block is compressed once and repeated: each copy ends on a full flush, so copies never refer to each
    other and the concatenation is one valid deflate stream; the gzip trailer carries the true CRC and size."""
    head = b'{"code":200,"msg":"ok","data":['
    tail = b'0]}'
    block, n = bytearray(), 0
    while len(block) < (4 << 20):
        block += b"0," * 1000 + b"%d," % (n * 7919 % 1000003)  # a number every 2 KB keeps the ratio near 200:1
        n += 1
    block = bytes(block)
    copies = ((decoded_gib << 30) - len(head) - len(tail)) // len(block) + 1

    def segment(data, final=False):
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush(zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH)

    seg = segment(block)
    crc = zlib.crc32(head)
    for _ in range(copies):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + copies * len(block) + len(tail)
    with open(path, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + segment(head))
        for _ in range(copies):
            f.write(seg)
        f.write(segment(tail, final=True) + struct.pack("<II", crc, size & 0xFFFFFFFF))
    os.chmod(path, 0o644)
    return os.path.getsize(path), size


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port, proc, what, timeout=10.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(what + " did not start listening on %d" % port)


class Nginx:
    """nginx as a child (`daemon off`), prefix and every file in its own directory, on kernel-chosen loopback ports:
    https (ssl + http2), plain http (same locations, for the bomb over http) and stub_status (connection counts)."""

    def __init__(self, d, cert, key, upstream_port, bomb, started):
        self.dir, self.log = d, os.path.join(d, "access.log")
        for attempt in range(5):
            self.https, self.http, self.status = free_port(), free_port(), free_port()
            conf = os.path.join(d, "nginx.conf")
            with open(conf, "w") as f:
                f.write(self._conf(cert, key, upstream_port, bomb))
            err = open(os.path.join(d, "stderr.log"), "ab")
            p = subprocess.Popen(["nginx", "-p", d, "-c", conf, "-g", "daemon off;"], stdin=subprocess.DEVNULL,
                                 stdout=err, stderr=err)
            started.append(p)
            if _wait_port(self.https, p, "nginx") and _wait_port(self.status, p, "nginx"):
                self.proc = p
                return
            # A port taken between free_port() and nginx's bind: try other ports.
        raise RuntimeError("nginx failed to start: " + open(os.path.join(d, "error.log")).read()[-600:])

    def _conf(self, cert, key, upstream_port, bomb):
        user = "user root;\n" if os.geteuid() == 0 else ""  # workers read files in this private temp dir
        d = self.dir
        temps = "".join("%s_temp_path %s/tmp-%s;\n" % (t, d, t) for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        return f"""{user}worker_processes 1;
error_log {d}/error.log warn;
pid {d}/nginx.pid;
events {{ worker_connections 512; }}
http {{
{temps}log_format wire '{LOG_FORMAT}';
access_log off;
default_type application/json;
keepalive_timeout 120s;
keepalive_requests 100000;
upstream sandbox {{ server 127.0.0.1:{upstream_port}; keepalive 16; keepalive_requests 100000; }}
server {{
    listen 127.0.0.1:{self.https} ssl http2;
    listen 127.0.0.1:{self.http};
    server_name localhost 127.0.0.1;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SXKBENCH:1m;
    ssl_session_timeout 10m;
    access_log {self.log} wire;
    location = {BOMB_PATH} {{
        alias {bomb};
        default_type application/json;
        add_header Content-Encoding gzip always;
    }}
    location / {{
        proxy_pass http://sandbox;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;
    }}
}}
server {{
    listen 127.0.0.1:{self.status};
    location = /status {{ stub_status; }}
}}
}}
"""

    def status_counts(self):
        """(active connections, accepted connections) from stub_status; this query is one of each."""
        with urllib.request.urlopen("http://127.0.0.1:%d/status" % self.status, timeout=5) as r:
            lines = r.read().decode().splitlines()
        return int(lines[0].split(":")[1]), int(lines[2].split()[0])

    def log_size(self):
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def wire_since(self, offset, accepted_before, settle=3.0):
        """What reached nginx since `offset`/`accepted_before`, once every client connection is closed:
        dict(connections, full, resumed, requests, paths). A connection that sent no request is counted in
        `connections` only (its handshake kind is not logged)."""
        deadline = time.time() + settle
        while True:
            active, accepted = self.status_counts()
            if active <= 1 or time.time() > deadline:
                break
            time.sleep(0.01)
        with open(self.log, "rb") as f:
            f.seek(offset)
            lines = f.read().decode(errors="replace").splitlines()
        conns = {}
        paths = []
        for line in lines:
            conn, _, reused, _, rest = line.split(" ", 4)
            conns[conn] = reused
            req = rest.split('"')[1].split(" ")
            paths.append(req[0] + " " + req[1].split("?")[0] + " " + req[-1])
        return dict(connections=accepted - accepted_before - 1, full=sum(1 for r in conns.values() if r != "r"),
                    resumed=sum(1 for r in conns.values() if r == "r"), requests=len(lines), paths=paths)


def start_relay(target_port, started, delay_ms=15, lifetime=1800):
    p = subprocess.Popen([sys.executable, os.path.join(HERE, "relay.py"), "--target-port", str(target_port),
                          "--delay-ms", str(delay_ms), "--lifetime", str(lifetime)],
                         stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    started.append(p)
    line = p.stdout.readline().decode()
    if "listening on 127.0.0.1:" not in line:
        raise RuntimeError("relay did not start: %r" % line)
    return int(line.split("127.0.0.1:", 1)[1].split()[0])


if __name__ == "__main__":
    sys.exit("import this module from benchmarks/run")
