#!/usr/bin/env python3
"""Rows 7–11 of the benchmark run: sxk over https (nginx on loopback, see tls_lab.py) beside curl, both with their
default trust (the run's CA put into the system store), and HTTPie (`--verify CA`), same URLs and headers as rows 2–3.
sxk and curl are timed in turn, one run of each per round (`bench.time_alternating`).

  7  one-shot `get /api/app/config` and `orders --json`, loopback TLS
  8  what one one-shot puts on the wire (nginx access log + stub_status): connections, full / resumed TLS
     handshakes, requests; sxk and curl
  9  2,000 piped commands over https vs one keep-alive `curl --config`
  10 the rows of 7 again through relay.py (each chunk held 15 ms each way: a 30 ms round trip), cold and through
     a kept connection (`SXK_PERSIST`)
  11 peak RSS and exit code of sxk fetching a gzip bomb (~8 MB on the wire, 2 GiB decoded), https and plain http

Imported by benchmarks/run, which passes its helpers in `ctx`.
"""
import os, subprocess, tempfile, time
import bench, tls_lab

ORDERS = "/api/yf-handset-app/photog/order/listv2?page=1&pageSize=20"
TRUST_VARS = ("SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SXK_CACERT")
LIMIT = 120  # seconds any one process of these rows may take before the run stops with an error
WIRE_RUNS = 5
BOMB_RUNS = 3
BOMB_RSS_CAP_KIB = 4 << 20  # a run past 4 GiB is killed and reported as such
BOMB_TIME_CAP = 120.0


def has_cacert(sxk):
    """True when this sxk build has the global `--cacert FILE` option."""
    out = subprocess.run([sxk, "--help"], capture_output=True, timeout=30).stdout.decode(errors="replace")
    return "--cacert" in out


def check(argv, env, what):
    """One run that must succeed before a client is timed, so a failure is not measured as a fast answer."""
    r = subprocess.run(argv, capture_output=True, env=env, stdin=subprocess.DEVNULL, timeout=LIMIT)
    if r.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (what, r.returncode, r.stderr.decode(errors="replace")[-300:]))


def wire(ng, argv, env, runs=WIRE_RUNS):
    """Per run: what nginx saw of one invocation of argv."""
    out = []
    for _ in range(runs):
        offset, (_, accepted) = ng.log_size(), ng.status_counts()
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                           env=env, timeout=LIMIT)
        w = ng.wire_since(offset, accepted)
        w["exit"] = r.returncode
        out.append(w)
    return out


def peak_rss(argv, env, started):
    """(peak RSS KiB from wait4's rusage, exit code, seconds, stderr's last line, killed at a cap)."""
    err = tempfile.TemporaryFile()
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, env=env)
    started.append(p)
    killed = False
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        rss = 0
        try:
            with open("/proc/%d/status" % p.pid) as f:
                rss = int([l for l in f if l.startswith("VmRSS:")][0].split()[1])
        except (OSError, IndexError):
            pass
        if not killed and (rss > BOMB_RSS_CAP_KIB or time.perf_counter() - start > BOMB_TIME_CAP):
            p.kill()
            killed = True
        time.sleep(0.005)
    elapsed = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here; Popen must not wait again
    err.seek(0)
    last = (err.read().decode(errors="replace").strip().splitlines() or [""])[-1][:100]
    last = "".join(ch if ch.isprintable() and ch not in "|`" else "?" for ch in last)  # a table cell, server bytes in it
    return usage.ru_maxrss, p.returncode, elapsed, last, killed


def one_shots(c, num, where, base, origin, senv, henv, ca, token, factor):
    for label, sxk_args, path in (("`get /api/app/config`", ["get", "/api/app/config"], "/api/app/config"),
                                  ("`orders --json`", ["orders", "--json"], ORDERS)):
        url = origin + path
        sxk_argv = base + sxk_args
        curl_argv = ["curl", "-s", "--fail"] + c.curl_headers(token) + [url]
        http_argv = ["http", "--ignore-stdin", "--check-status", "--verify", ca, "GET", url] + c.httpie_headers(token)
        for argv, env, what in ((sxk_argv, senv, "sxk"), (curl_argv, henv, "curl"), (http_argv, henv, "HTTPie")):
            check(argv, env, "%s %s over %s" % (what, label, where))
        s, k = (c.ms(x) for x in bench.time_alternating([(sxk_argv, senv), (curl_argv, henv)], runs=c.runs, timeout=LIMIT))
        h = c.ms(bench.time_command(http_argv, runs=10, env=henv, timeout=LIMIT))
        c.add(num, "https one-shot %s, %s" % (label, where), c.med(s), min(s), max(s), "ms", "`curl -s` (default trust, in turn)",
              c.med(k), "%.2f× curl; HTTPie %s ms (%s–%s) = %.1f× sxk" % (
                  c.med(s) / c.med(k), c.fmt(c.med(h)), c.fmt(min(h)), c.fmt(max(h)), c.med(h) / c.med(s)),
              "≤ %.1f× curl" % factor, c.med(s) <= factor * c.med(k))


def kept_rows(c, base, origin, senv, henv, token):
    """Row 10 again with `SXK_PERSIST`: the one-shots send through the holder, whose connection (TLS done)
    stays open between them. The first run starts the holder and is not timed; at the end (and at exit,
    whatever happens) `SXK_PERSIST=0` stops it, and the log says so if that one-shot failed."""
    kenv = dict(senv, SXK_PERSIST="60")
    stop = lambda: subprocess.run(base + ["get", "/api/app/config"], env=dict(senv, SXK_PERSIST="0"), capture_output=True, timeout=LIMIT)
    c.undo.append(stop)
    for label, sxk_args, path in (("`get /api/app/config`", ["get", "/api/app/config"], "/api/app/config"),
                                  ("`orders --json`", ["orders", "--json"], ORDERS)):
        argv = base + sxk_args
        check(argv, kenv, "sxk %s through a kept connection" % label)
        r = subprocess.run(base + ["--trace"] + sxk_args, env=kenv, capture_output=True, timeout=LIMIT)
        kept = b"kept connection)" in r.stderr
        curl_argv = ["curl", "-s", "--fail"] + c.curl_headers(token) + [origin + path]
        s, k = (c.ms(x) for x in bench.time_alternating([(argv, kenv), (curl_argv, henv)], runs=c.runs, timeout=LIMIT))
        c.add("10", "https one-shot %s through a kept connection (`SXK_PERSIST=60`; trace says kept connection: %s), relay.py 15 ms each way"
              % (label, "yes" if kept else "NO"), c.med(s), min(s), max(s), "ms", "`curl -s` (a new connection each)", c.med(k),
              "%.2f× curl, %.1f round trips" % (c.med(s) / c.med(k), c.med(s) / 30.0), "≤ 1 round trip + 20 ms (50 ms) and ≤ 0.5× curl",
              kept and c.med(s) <= 50 and c.med(s) <= 0.5 * c.med(k))
    stopped = stop()
    c.undo.remove(stop)
    if stopped.returncode != 0:
        c.log("10 stopping the connection holder failed (exit %d): %s" % (stopped.returncode, stopped.stderr.decode(errors="replace")[-200:]))


def wire_rows(c, ng, base, origin, senv, henv, token):
    for label, sxk_args, path in (("`get /api/app/config`", ["get", "/api/app/config"], "/api/app/config"),
                                  ("`orders --json`", ["orders", "--json"], ORDERS)):
        for who, argv, env in (("sxk", base + sxk_args, senv),
                               ("curl", ["curl", "-s"] + c.curl_headers(token) + [origin + path], henv)):
            runs = wire(ng, argv, env)
            full = [w["full"] for w in runs]
            per_run = ", ".join("%d/%d/%d/%d" % (w["connections"], w["full"], w["resumed"], w["requests"]) for w in runs)
            seen = {}
            for p in runs[-1]["paths"]:
                seen[p] = seen.get(p, 0) + 1
            sent = "; ".join("%s ×%d" % kv if kv[1] > 1 else kv[0] for kv in seen.items())
            exits = sorted({w["exit"] for w in runs})
            ok = all(w["connections"] == 1 and w["full"] == 1 and w["resumed"] == 0 and w["requests"] == 1
                     and w["exit"] == 0 for w in runs)
            c.add("8", "https one-shot %s, %s, %d runs: connections/full/resumed/requests per run %s; last run sent: %s%s"
                  % (label, who, len(runs), per_run, sent, "" if exits == [0] else "; exit codes %s" % exits),
                  c.med(full), min(full), max(full), "full TLS handshakes", "requests on the wire",
                  c.med([w["requests"] for w in runs]), "resumed %s, connections %s" % (
                      c.fmt(c.med([w["resumed"] for w in runs])), c.fmt(c.med([w["connections"] for w in runs]))),
                  "1 full handshake, 1 request" if who == "sxk" else "informational", ok if who == "sxk" else None)


def piped(c, base, origin, senv, henv, token):
    n = 2000
    script = os.path.join(c.tmp, "orders-https.txt")
    with open(script, "w") as f:
        for i in range(n):
            f.write("orders --page %d --json\n" % (i % 5 + 1))
    urls = [origin + "/api/yf-handset-app/photog/order/listv2?page=%d&pageSize=20" % (i % 5 + 1) for i in range(n)]
    cfg = c.curl_config(os.path.join(c.tmp, "curl-orders-https.cfg"), urls, token)
    with open(script, "rb") as f:
        r = subprocess.run(base, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=senv, timeout=LIMIT)
    if r.returncode != 0:
        raise RuntimeError("piped https session failed (exit %d): %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:]))
    check(["curl", "--fail", "--config", cfg], henv, "curl --config over https")
    sess = c.ms(bench.time_with_stdin_file(base, script, runs=10, env=senv, timeout=LIMIT))
    cur = c.ms(bench.time_command(["curl", "--config", cfg], runs=10, env=henv, timeout=LIMIT))
    rate = [n / (x / 1000) for x in sess]
    c.add("9", "2,000 `orders --page N --json` piped into one sxk, https loopback", c.med(rate), min(rate), max(rate),
          "cmd/s", "one `curl --config` over https (keep-alive), ms:", c.med(cur),
          "%.2f× curl's time (sxk %s ms)" % (c.med(sess) / c.med(cur), c.fmt(c.med(sess))), "≤ 1.3× curl",
          c.med(sess) <= 1.3 * c.med(cur))


def bomb_rows(c, rows):
    for scheme, base, env in rows:
        argv = base + ["get", tls_lab.BOMB_PATH]
        got = [peak_rss(argv, env, c.started) for _ in range(BOMB_RUNS)]
        mb = [g[0] / 1024 for g in got]
        exits = sorted({g[1] for g in got})
        killed = any(g[4] for g in got)
        c.add("11", "gzip bomb over %s (%.1f MB gzip, %s bytes decoded), `sxk get`, %d runs: exit %s, %.1f s; %s%s" % (
            scheme, c.bomb[0] / 1e6, "{:,}".format(c.bomb[1]), BOMB_RUNS, "/".join(map(str, exits)),
            c.med([g[2] for g in got]), ("stderr `%s`" % got[-1][3]) if got[-1][3] else "no stderr",
            "; KILLED at the %d GiB / %.0f s cap" % (BOMB_RSS_CAP_KIB >> 20, BOMB_TIME_CAP) if killed else ""),
            c.med(mb), min(mb), max(mb), "MB peak RSS", "", None, "", "≤ 64 MB", c.med(mb) <= 64 and not killed)


def measure(c):
    """c: namespace with sxk, sandbox_url, tmp, env, started, undo, runs, link_only (row 10 alone) and run's helpers
    (add, login, …)."""
    c.log("7 https set-up: CA, nginx, relay, gzip bomb")
    d = tempfile.mkdtemp(prefix="tls-", dir=c.tmp)
    ca, cert, key = tls_lab.make_certs(d)
    c.bomb = tls_lab.make_gzip_bomb(os.path.join(d, "bomb.gz"))
    ng = tls_lab.Nginx(d, cert, key, int(c.sandbox_url.rsplit(":", 1)[1]), os.path.join(d, "bomb.gz"), c.started)
    tls_lab.trust_system_ca(ca, c.undo)
    relay_port = tls_lab.start_relay(ng.https, c.started)
    https, relayed, plain = ("%s://127.0.0.1:%d" % sp for sp in (("https", ng.https), ("https", relay_port), ("http", ng.http)))
    henv = {k: v for k, v in c.env.items() if k not in TRUST_VARS}
    # Like for like: sxk trusts the system store as curl does (its hashed folder, where curl reads the
    # bundle: that difference is sxk's own, as a user meets it), not one CA file of its own.
    trust, senv, how = [], henv, "the system store"
    c.log("nginx %s (http %s), relay %s, sxk and curl trust the CA through %s" % (https, plain, relayed, how))

    def session(origin, name):
        state, token = c.login(c.sxk, origin, name, extra=trust, env=senv)
        return [c.sxk] + trust + ["--base-url", origin, "--state-dir", state], token

    if not c.link_only:
        base, token = session(https, "state-https")  # logged in (validated) just before the rows that need it
        c.log("7 https one-shot, loopback")
        one_shots(c, "7", "loopback TLS (nginx, h2)", base, https, senv, henv, ca, token, 0.6)
        c.log("8 TLS handshakes and requests per one-shot")
        wire_rows(c, ng, base, https, senv, henv, token)
        c.log("9 2,000 piped commands over https")
        piped(c, base, https, senv, henv, token)
    c.log("10 https one-shot through the 30 ms relay")
    rbase, rtoken = session(relayed, "state-relay")
    one_shots(c, "10", "through relay.py (15 ms each way)", rbase, relayed, senv, henv, ca, rtoken, 1.0)
    c.log("10 the same through a kept connection (--persist)")
    kept_rows(c, rbase, relayed, senv, henv, rtoken)
    if c.link_only:
        return how
    c.log("11 gzip bomb")
    pbase, _ = session(plain, "state-plain")
    bomb_rows(c, (("https", base, senv), ("plain http (nginx, loopback)", pbase, senv)))
    return how
