#!/usr/bin/env python3
"""Row 13 of the benchmark run: commands that make more than one call, through relay.py at 15 ms each way
(a 30 ms round trip) to a sandbox of their own over plain http, so a request costs one round trip and the
figure counts only what the calls wait for each other.

Each figure is a one-shot's wall time less the process start (`sxk -c version`, one run of it after each
run of the command, so both are timed under the same load), in milliseconds and in round trips, beside
the floor: the round trips the command cannot avoid, from what depends on what (written next to each
case). Target: within the floor + 20 ms.

Imported by benchmarks/run, which passes its helpers in `ctx`.
"""
import datetime, os, subprocess, sys
import bench, tls_lab

RTT_MS = 30.0
LIMIT = 120
PASSWORD = "sandbox123"

# `stats --all` over 200 days ending today in Shanghai (the sandbox's days): four daily pages of 50.
_TODAY = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=8)).date()
_FROM = (_TODAY - datetime.timedelta(days=199)).isoformat()

# (label, phone, login --account, argv, floor in round trips, requests the server sees, why[, a command run once after the login])
CASES = (
    ("`login 13800000004 --account 2` (scenicAdmin)", "13800000004", None,
     ["login", "13800000004", "--password-stdin", "--accept-privacy", "--account", "2"], 3, 5,
     "config ∥ v9/login → set-user → userinfo ∥ role-permission"),
    ("`login 13800000003` (storeAdmin)", "13800000003", None,
     ["login", "13800000003", "--password-stdin", "--accept-privacy"], 3, 6,
     "config ∥ v9/login → set-user → userinfo ∥ role-permission ∥ store list"),
    ("`switch-account -` (storeAdmin and photographer in turn)", "13800000004", "3", ["switch-account", "-"], 2, 3,
     "set-user → userinfo ∥ role-permission (∥ store list, to storeAdmin)", ["switch-account", "1"]),
    ("`home` (storeAdmin)", "13800000003", None, ["home"], 1, 2, "role-permission ∥ store list"),
    ("`stats` (photographer)", "13800000001", None, ["stats"], 1, 2, "summary ∥ first daily page"),
    ("`context diff` (storeAdmin)", "13800000003", None, ["context", "diff"], 1, 3,
     "userinfo ∥ role-permission ∥ store list"),
    ("`compare --as role:photographer,role:scenicAdmin -- orders`", "13800000002", None,
     ["compare", "--as", "role:photographer,role:scenicAdmin", "--", "orders"], 1, 2, "one request per identity, side by side"),
    ("`orders --all --limit 500 --page-size 100 --ndjson`", "13800000001", None,
     ["orders", "--all", "--limit", "500", "--page-size", "100", "--ndjson"], 2, 5, "page 1 gives the total, then pages 2–5 at once"),
    ("`get … pageSize=100 page=6 --paginate --ndjson` (photographer, pages 6–10)", "13800000001", None,
     ["get", "/api/yf-handset-app/photog/order/listv2", "pageSize=100", "page=6", "--paginate", "--ndjson"], 2, 5,
     "page 6 gives the total, then pages 7–10 at once"),
    ("`stats --all` over 200 days (photographer)", "13800000001", None,
     ["stats", "--all", "--from", _FROM, "--to", _TODAY.isoformat()], 2, 5,
     "summary ∥ first daily page, then daily pages 2–4 at once"),
    ("`profile` (storeAdmin)", "13800000003", None, ["profile"], 1, 1, "userinfo"),
    ("`profile` (photographer)", "13800000001", None, ["profile"], 1, 3, "userinfo ∥ real-name ∥ bank-card"),
    ("`compare --as account:4001,account:4002,account:4003 -- orders` (a new process)", "13800000004", "1",
     ["compare", "--as", "account:4001,account:4002,account:4003", "--", "orders"], 2, 5,
     "set-user ×2 side by side → one request per identity, side by side"),
)


def start_sandbox(sandbox, started, orders=1000):
    p = subprocess.Popen([sandbox, "--port", "0", "--seed", "42", "--orders", str(orders)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    started.append(p)
    line = p.stdout.readline().decode()
    if "listening on" not in line:
        raise RuntimeError("sandbox did not start: %r" % line)
    started.append(subprocess.Popen(["cat"], stdin=p.stdout, stdout=subprocess.DEVNULL))
    return int(line.split("listening on", 1)[1].split()[0].rsplit(":", 1)[1])


def requests_seen(port):
    import json, urllib.request
    with urllib.request.urlopen("http://127.0.0.1:%d/__sandbox/status" % port, timeout=5) as r:
        return json.load(r)["data"]["requests"]


def link_round_trip(port, runs=15):
    """The relay's own round trip, in ms (median): one small GET through it on a kept connection and
    on a new connection each, timed by a bare socket client, so what the relay adds beyond its 30 ms
    (its timers, and its connect to the sandbox before a new connection's first bytes are held) is
    printed beside the rows."""
    import socket, statistics, time

    def one(s):
        s.sendall(b"GET /api/app/config HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n")
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += s.recv(65536)
        head, body = buf.split(b"\r\n\r\n", 1)
        length = [int(l.split(b":", 1)[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0]
        while len(body) < length:
            body += s.recv(65536)

    kept, fresh = [], []
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        for _ in range(runs):
            t = time.perf_counter()
            one(s)
            kept.append((time.perf_counter() - t) * 1000)
    for _ in range(runs):
        t = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            one(s)
        fresh.append((time.perf_counter() - t) * 1000)
    return statistics.median(kept), statistics.median(fresh)


def measure(c):
    """c: namespace with sxk, sandbox, tmp, env, started, runs, add, med, ms, fmt, log."""
    port = start_sandbox(c.sandbox, c.started)
    relay = tls_lab.start_relay(port, c.started)
    origin = "http://127.0.0.1:%d" % relay
    env = dict(c.env)
    start = c.ms(bench.time_command([c.sxk, "-c", "version"], runs=c.runs, env=env))
    startup = c.med(start)
    c.log("13 sandbox :%d through relay :%d; start-up %.1f ms" % (port, relay, startup))
    kept, fresh = link_round_trip(relay)
    c.log("13 the relay's own round trip (a bare GET): %.1f ms on a kept connection, %.1f ms on a new one" % (kept, fresh))
    runs = max(10, c.runs // 2)
    for i, (label, phone, account, argv, floor, expected, why, *setup) in enumerate(CASES):
        state = os.path.join(c.tmp, "rt-%d" % i)
        base = [c.sxk, "--base-url", origin, "--state-dir", state]
        login = base + ["login", phone, "--password-stdin", "--accept-privacy"] + (["--account", account] if account else [])
        if argv[0] != "login":
            r = subprocess.run(login, input=(PASSWORD + "\n").encode(), capture_output=True, env=env, timeout=LIMIT)
            if r.returncode != 0:
                raise RuntimeError("login for %s failed: %s" % (label, r.stderr.decode(errors="replace")[-300:]))
            for step in setup:
                r = subprocess.run(base + step, capture_output=True, env=env, timeout=LIMIT, stdin=subprocess.DEVNULL)
                if r.returncode != 0:
                    raise RuntimeError("%s for %s failed: %s" % (" ".join(step), label, r.stderr.decode(errors="replace")[-300:]))
        stdin = (PASSWORD + "\n").encode() if "--password-stdin" in argv else None
        r = subprocess.run(base + argv, input=stdin or b"", capture_output=True, env=env, timeout=LIMIT)
        if r.returncode != 0:
            raise RuntimeError("%s failed (exit %d): %s" % (label, r.returncode, r.stderr.decode(errors="replace")[-300:]))
        before = requests_seen(port)
        r = subprocess.run(base + argv, input=stdin or b"", capture_output=True, env=env, timeout=LIMIT)
        calls = requests_seen(port) - before
        # The row is about these requests: another number (a call skipped, one sent twice) is not this command.
        if r.returncode != 0 or calls != expected:
            raise RuntimeError("%s: exit %d, %d requests, expected %d" % (label, r.returncode, calls, expected))
        samples, starts = [], []
        for _ in range(runs):
            if stdin is None:
                samples += bench.time_command(base + argv, runs=1, env=env, timeout=LIMIT)
            else:
                path = os.path.join(c.tmp, "password.txt")
                with open(path, "wb") as f:
                    f.write(stdin)
                samples += bench.time_with_stdin_file(base + argv, path, runs=1, env=env, timeout=LIMIT)
            starts += bench.time_command([c.sxk, "-c", "version"], runs=1, env=env, timeout=LIMIT)
        case_startup = c.med(c.ms(starts))
        less = [x - case_startup for x in c.ms(samples)]
        m = c.med(less)
        c.add("13", "%s through relay.py, 15 ms each way; %d calls; start-up beside it %s ms; floor: %s" % (
                  label, calls, c.fmt(case_startup), why), m, min(less), max(less),
              "ms", "floor %d round trips =" % floor, floor * RTT_MS, "%.1f round trips" % (m / RTT_MS),
              "≤ floor + 20 ms (%s ms)" % c.fmt(floor * RTT_MS + 20), m <= floor * RTT_MS + 20)


if __name__ == "__main__":
    sys.exit("import this module from benchmarks/run")
