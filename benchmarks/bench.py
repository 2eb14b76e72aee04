#!/usr/bin/env python3
"""Timing helpers for sxk's benchmarks: wall time of commands and time to the first prompt in a pty.

Prints numbers; asserts nothing (machines here are noisy). Loopback only.
"""
import os, pty, re, select, shlex, statistics, subprocess, sys, threading, time


def summarize(samples):
    """(median, min, max) in milliseconds."""
    ms = [s * 1000 for s in samples]
    return statistics.median(ms), min(ms), max(ms)


def _run_timed(argv, env, stdin, timeout):
    """Seconds from spawn to exit. Blocks in waitpid, so the end is seen at once: subprocess.run(timeout=…)
    polls with doubling sleeps (0.5, 1, 2 … 50 ms) and would round a 16 ms process up to 31.5 ms. A timer
    kills the process past `timeout` and raises TimeoutExpired, as subprocess.run would. A run that exits
    with another status than 0 raises: a command that fails at once would time as a fast one."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    timer = None
    if timeout is not None:
        timer = threading.Timer(timeout, p.kill)
        timer.start()
    try:
        p.wait()
    finally:
        if timer is not None:
            timer.cancel()
    elapsed = time.perf_counter() - start
    if timeout is not None and elapsed >= timeout and p.returncode < 0:
        raise subprocess.TimeoutExpired(argv, timeout)
    if p.returncode != 0:
        raise RuntimeError("%s exited %d during timing" % (" ".join(argv)[:200], p.returncode))
    return elapsed


def product_objects(rel, modules, product="sxk"):
    """The object files of `modules` that SwiftPM linked into `product` in the build at `rel`, read from the
    product's link list (`<product>.product/Objects.LinkFileList`): an object left in a module's folder by a
    source file since deleted is not in it, and would break a link that took every `.o` it found."""
    path = os.path.join(rel, product + ".product", "Objects.LinkFileList")
    wanted = tuple(os.sep + m + ".build" + os.sep for m in modules)
    objects = []
    with open(path) as listed:
        for line in listed:
            words = shlex.split(line)  # one path a line, shell-quoted when it needs to be
            if words and any(w in words[0] for w in wanted):
                objects.append(words[0])
    return objects


def compile_against_build(rel, source, module_name, modules, module_maps, exe):
    """Compiles a benchmark's Swift `source` into `exe`, importing and linking the named modules of the release
    build at `rel` (C targets' module maps in `module_maps`)."""
    maps = []
    for name in module_maps:
        maps += ["-Xcc", "-fmodule-map-file=" + os.path.join(rel, name + ".build", "module.modulemap")]
    subprocess.run(["swiftc", "-O", "-static-stdlib", "-swift-version", "5", "-module-name", module_name, "-o", exe,
                    source, "-I", os.path.join(rel, "Modules")] + maps + ["-ldl"] + product_objects(rel, modules),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def time_command(argv, runs=20, env=None, stdin=None, timeout=None):
    """Wall time of running argv to completion, output discarded (TimeoutExpired past `timeout` seconds)."""
    return [_run_timed(argv, env, stdin if stdin is not None else subprocess.DEVNULL, timeout) for _ in range(runs)]


def time_alternating(commands, runs=20, timeout=None):
    """Wall times of several commands run in turn, one run of each per round (every other round in the
    reverse order), so a machine that slows down or speeds up during the rows, or a command that warms
    the next one's caches, weighs on all of them alike. commands: [(argv, env)]; returns one list of
    samples per command, in the same order."""
    samples = [[] for _ in commands]
    for n in range(runs):
        order = range(len(commands)) if n % 2 == 0 else reversed(range(len(commands)))
        for i in order:
            argv, env = commands[i]
            samples[i].append(_run_timed(argv, env, subprocess.DEVNULL, timeout))
    return samples


def time_to_prompt(argv, marker, runs=20, env=None, timeout=5.0):
    """Time from spawn until `marker` (bytes) appears on the pty, then the process is killed.
    With marker None: time until the pty reaches end of file (the process closed it)."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.execve(argv[0], argv, env if env is not None else os.environ)
            finally:
                os._exit(127)
        seen = b""
        deadline = start + timeout
        found = False
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.perf_counter()))
            if not ready:
                break
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                found = marker is None  # Linux reports EIO at the pty's end of file
                break
            if not chunk:
                found = marker is None
                break
            seen += chunk
            if marker is not None and marker in seen:
                found = True
                break
        elapsed = time.perf_counter() - start
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
        if not found:
            raise RuntimeError("no prompt %r from %s; saw %r" % (marker, argv, seen[-200:]))
        samples.append(elapsed)
    return samples


def time_with_stdin_file(argv, path, runs=10, env=None, timeout=None):
    """Wall time of argv reading stdin from `path` (reopened each run), output discarded."""
    samples = []
    for _ in range(runs):
        with open(path, "rb") as f:
            samples.append(_run_timed(argv, env, f, timeout))
    return samples


def time_and_rss(argv, runs=10, env=None):
    """Wall time and peak RSS (KiB, from /usr/bin/time -v) of argv, stdout to /dev/null."""
    samples, rss = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-v"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, env=env, check=False)
        samples.append(time.perf_counter() - start)
        match = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        if proc.returncode != 0 or not match:
            raise RuntimeError("%s failed: %r" % (argv, proc.stderr[-400:]))
        rss.append(int(match.group(1)))
    return samples, rss


def pty_time_and_rss(argv, columns=100, lines=40, runs=10, env=None, timeout=120.0):
    """Wall time and peak RSS (KiB) of argv with stdout and stderr on a pty of `columns` × `lines`, its output read
    (and dropped) as it comes, until the pty's end of file."""
    samples, rss = [], []
    report = os.path.join(os.environ.get("TMPDIR", "/tmp"), "sxk-bench-rss-%d" % os.getpid())
    try:
        return _pty_runs(argv, columns, lines, runs, env, timeout, report, samples, rss)
    finally:
        if os.path.exists(report):
            os.remove(report)


def _pty_runs(argv, columns, lines, runs, env, timeout, report, samples, rss):
    for _ in range(runs):
        start = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:
            try:
                import fcntl, struct, termios
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
                full = ["/usr/bin/time", "-v", "-o", report] + argv
                os.execve(full[0], full, env if env is not None else os.environ)
            finally:
                os._exit(127)
        deadline = start + timeout
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.perf_counter()))
            if not ready:
                break
            try:
                if not os.read(fd, 65536):
                    break
            except OSError:  # Linux reports EIO at the pty's end of file
                break
        _, status = os.waitpid(pid, 0)
        samples.append(time.perf_counter() - start)
        os.close(fd)
        text = open(report).read() if os.path.exists(report) else ""
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        if status != 0 or not match:
            raise RuntimeError("%s failed (status %d): %r" % (argv, status, text[-400:]))
        rss.append(int(match.group(1)))
    return samples, rss


def row(name, samples, floor=None, unit="ms"):
    med, lo, hi = summarize(samples)
    ratio = ""
    if floor:
        ratio = "%.1f×" % (med / statistics.median([s * 1000 for s in floor]))
    return "| %s | %.1f | %.1f–%.1f | %s |" % (name, med, lo, hi, ratio)


if __name__ == "__main__":
    sys.exit("import this module from benchmarks/run")
