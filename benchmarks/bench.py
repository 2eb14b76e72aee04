#!/usr/bin/env python3
"""Timing helpers for sxk's benchmarks: wall time of commands and time to the first prompt in a pty.

Prints numbers; asserts nothing (machines here are noisy). Loopback only.
"""
import os, pty, select, statistics, subprocess, sys, time


def summarize(samples):
    """(median, min, max) in milliseconds."""
    ms = [s * 1000 for s in samples]
    return statistics.median(ms), min(ms), max(ms)


def time_command(argv, runs=20, env=None, stdin=None):
    """Wall time of running argv to completion, output discarded."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       stdin=stdin if stdin is not None else subprocess.DEVNULL, check=False)
        samples.append(time.perf_counter() - start)
    return samples


def time_to_prompt(argv, marker, runs=20, env=None, timeout=5.0):
    """Time from spawn until `marker` (bytes) appears on the pty, then the process is killed."""
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
                break
            if not chunk:
                break
            seen += chunk
            if marker in seen:
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


def row(name, samples, floor=None, unit="ms"):
    med, lo, hi = summarize(samples)
    ratio = ""
    if floor:
        ratio = "%.1f×" % (med / statistics.median([s * 1000 for s in floor]))
    return "| %s | %.1f | %.1f–%.1f | %s |" % (name, med, lo, hi, ratio)


if __name__ == "__main__":
    sys.exit("import this module from benchmarks/run")
