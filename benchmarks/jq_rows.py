#!/usr/bin/env python3
"""`--jq '.list[].orderNo'` on a 100-row order page beside the `jq` binary on the same JSON, and
`TerminalText.sanitize` / JSON-writer throughput. Used by benchmarks/jq-compare (its own table) and by
benchmarks/run (row 12). Needs a release build; compiles benchmarks/SafetyBench.swift against it.
"""
import os, shutil, subprocess, time
import bench

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # the package root
EXPR = ".list[].orderNo"


def safety_bench(rel, tmp):
    """Compiles and runs SafetyBench; gives [(name, value, unit)] and the 100-row page file it wrote."""
    exe = os.path.join(tmp, "safety-bench")
    bench.compile_against_build(rel, os.path.join(HERE, "SafetyBench.swift"), "SafetyBench",
                                ("SXKCore", "SXKShell", "CLibedit", "CJQ", "CLibraryLoader"), ("CLibedit", "CJQ"), exe)
    page = os.path.join(tmp, "page.json")
    out = subprocess.run([exe, page], check=True, capture_output=True, text=True).stdout
    rows = [tuple(line.split("\t")) for line in out.strip().splitlines()]
    return rows, page


def jq_binary(page, tmp, runs):
    """The `jq` binary on the same page: wall times (s) of `jq -r EXPR page` (process start included), and its
    per-page cost without process start, from one run over the page repeated 1,000 times (minus one page)."""
    jq = shutil.which("jq")
    if not jq:
        return None, None
    once = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([jq, "-r", EXPR, page], check=True, stdout=subprocess.DEVNULL)
        once.append(time.perf_counter() - t)
    many = os.path.join(tmp, "page-x1000.json")
    body = open(page, "rb").read()
    with open(many, "wb") as f:
        for _ in range(1000):
            f.write(body + b"\n")
    best = None
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([jq, "-r", EXPR, many], check=True, stdout=subprocess.DEVNULL)
        d = time.perf_counter() - t
        best = d if best is None else min(best, d)
    per_page = (best - min(once)) / 999
    return once, per_page
