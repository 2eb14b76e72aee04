#!/usr/bin/env python3
"""`--jq '.list[].orderNo'` on a 100-row order page beside the `jq` binary on the same JSON, and
`TerminalText.sanitize` / JSON-writer throughput. Used by benchmarks/jq-compare (its own table) and by
benchmarks/run (row 12). Needs a release build; compiles benchmarks/SafetyBench.swift against it.
"""
import os, shutil, subprocess, time

HERE = os.path.dirname(os.path.abspath(__file__))
EXPR = ".list[].orderNo"


def safety_bench(rel, tmp):
    """Compiles and runs SafetyBench; gives [(name, value, unit)] and the 100-row page file it wrote."""
    objs = []
    for mod in ("SXKCore", "SXKShell", "CLibedit", "CJQ", "CLibraryLoader"):
        d = os.path.join(rel, mod + ".build")
        objs += sorted(os.path.join(top, f) for top, _, files in os.walk(d) for f in files if f.endswith(".o"))
    exe = os.path.join(tmp, "safety-bench")
    subprocess.run(["swiftc", "-O", "-static-stdlib", "-swift-version", "5", "-module-name", "SafetyBench", "-o", exe,
                    os.path.join(HERE, "SafetyBench.swift"), "-I", os.path.join(rel, "Modules"),
                    "-Xcc", "-fmodule-map-file=" + os.path.join(rel, "CLibedit.build", "module.modulemap"),
                    "-Xcc", "-fmodule-map-file=" + os.path.join(rel, "CJQ.build", "module.modulemap"),
                    "-ldl"] + objs, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
