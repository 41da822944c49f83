#!/usr/bin/env python3
"""tests/run.py - run every pmuboot test and print "N passed, M failed".

Three kinds of test, all counted in one summary:
  unit   build/tests/test_* (cmocka, run with TAP output and parsed);
  host   tests/host/test_*.py (pmuboot-host and the host tools);
  qemu   tests/qemu/test_*.py (boot the real image under QEMU/OVMF).
A Python test module defines functions test_*(ctx) and/or a list CASES of
(name, function) or (name, function, tier) entries for parametrised cases; a
test fails by raising (assert), skips by raising Skip.  Tests run in parallel.

Every test is in one tier (docs/testing.md): check (make check), test (make
test adds these) or slow (make test-slow).  tests/tiers.cfg says which, by
name; a boot of tests/qemu/matrix.cfg carries its tier in its row.

    tests/run.py [-k SUBSTRING] [--kind unit,host,qemu] [--tier check,test,slow] [-j N] [-v]
"""
import argparse
import concurrent.futures as cf
import glob
import importlib.util
import os
import re
import subprocess
import sys
import threading
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
os.chdir(ROOT)

from testlib import Skip, Context, BUILD  # noqa: E402
from testlib import tiers  # noqa: E402

TAP_RE = re.compile(r"^(not ok|ok) \d+\b(.*)$")
# cmocka 1.1 writes a skipped test as "not ok N # SKIP name" (or "ok N - name # SKIP ...").
SKIP_RE = re.compile(r"#\s*skip\b\s*(.*)$", re.I)


def run_unit(binary):
    """Run one cmocka binary; returns [(name, status, detail)]."""
    env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP")
    try:
        p = subprocess.run([binary], capture_output=True, text=True, timeout=300, env=env)
    except subprocess.TimeoutExpired:
        return [(os.path.basename(binary), "FAIL", "timed out after 300 s")]
    results, detail = [], []
    for line in p.stdout.splitlines():
        m = TAP_RE.match(line.strip())
        if m:
            rest = m.group(2).strip()
            skip = SKIP_RE.search(rest)
            label = rest[:skip.start()].strip() if skip else rest
            label = label[1:].strip() if label.startswith("-") else label
            if skip and not label:
                label = skip.group(1).strip()
            name = f"{os.path.basename(binary)}::{label}"
            if skip:
                results.append((name, "SKIP", "\n".join(detail) or "skipped"))
            else:
                results.append((name, "PASS" if m.group(1) == "ok" else "FAIL", "\n".join(detail)))
            detail = []
        elif line.startswith("#"):
            detail.append(line)
    if p.returncode != 0 and not any(s == "FAIL" for _, s, _ in results):
        results.append((os.path.basename(binary), "FAIL",
                        f"exit status {p.returncode}\n{p.stdout[-2000:]}{p.stderr[-2000:]}"))
    return results


def load_module(path):
    name = "t_" + os.path.splitext(os.path.basename(path))[0] + "_" + os.path.basename(os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def py_cases(path):
    """[(name, function, tier or None)]: a CASES entry may carry its own tier (a matrix boot's)."""
    mod = load_module(path)
    base = os.path.relpath(path, ROOT)
    cases = [(f"{base}::{n}", f, None) for n, f in vars(mod).items() if n.startswith("test_") and callable(f)]
    cases += [(f"{base}::{c[0]}", c[1], c[2] if len(c) > 2 else None) for c in getattr(mod, "CASES", [])]
    return cases


# Seconds each Python test took (a QEMU boot shared by several is charged to the first that asks).
DURATIONS = {}
# How many of the slowest are named at the end, for whoever keeps `make test` within its budget.
SLOWEST_SHOWN = 12


def run_py(name, fn, ctx):
    t0 = time.monotonic()
    try:
        return _run_py(name, fn, ctx)
    finally:
        DURATIONS[name] = time.monotonic() - t0


def _run_py(name, fn, ctx):
    try:
        fn(ctx)
        return name, "PASS", ""
    except Skip as e:
        return name, "SKIP", str(e)
    except AssertionError as e:
        tb = traceback.extract_tb(e.__traceback__)
        where = f"{os.path.relpath(tb[-1].filename, ROOT)}:{tb[-1].lineno}" if tb else ""
        return name, "FAIL", f"{where}: {e}"
    except Exception:
        return name, "FAIL", traceback.format_exc(limit=4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="", help="only tests whose name contains this")
    ap.add_argument("--kind", default="unit,host,qemu")
    ap.add_argument("--tier", default=",".join(tiers.TIERS),
                    help="tiers to run, comma-separated: check (make check), test (make test adds), slow")
    # One job more than CPUs: many tests wait on QEMU's network, servers or a subprocess starting, and
    # the extra job keeps the CPUs busy then (2 CPUs: 538 s at -j 2, 423 s at -j 3, nothing failing).
    ap.add_argument("-j", type=int, default=max(3, (os.cpu_count() or 2) + 1))
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--list", action="store_true", help="print each chosen test's tier and name; run nothing")
    a = ap.parse_args()
    kinds = set(a.kind.split(","))
    chosen = set(a.tier.split(","))
    if not chosen <= set(tiers.TIERS):
        ap.error(f"--tier {a.tier}: the tiers are {', '.join(tiers.TIERS)}")
    table = tiers.Table(os.path.join("tests", "tiers.cfg"))
    start = time.monotonic()
    results = []
    lock = threading.Lock()

    def report(r):
        name, status, detail = r
        with lock:
            results.append(r)
            if status != "PASS" or a.v:
                print(f"{status} {name}" + ("\n    " + detail.replace("\n", "\n    ") if detail and status != "PASS" else ""),
                      flush=True)

    if "unit" in kinds:
        for b in sorted(glob.glob(os.path.join(ROOT, BUILD, "tests", "test_*"))):
            if b.endswith(".d") or not os.access(b, os.X_OK):
                continue
            # A unit binary is in one tier, that of its name with any case (test_x::*).
            if table.tier_of(f"{os.path.basename(b)}::*", None) not in chosen:
                continue
            if a.list:
                print(f"{table.tier_of(os.path.basename(b) + '::*')} {os.path.basename(b)}::*")
                continue
            for r in run_unit(b):
                if a.k in r[0] and table.tier_of(r[0], None) in chosen:
                    report(r)

    ctx = Context(ROOT)
    jobs, every = [], []
    for kind in ("host", "qemu"):
        if kind not in kinds:
            continue
        for path in sorted(glob.glob(os.path.join(ROOT, "tests", kind, "test_*.py"))):
            try:
                cases = py_cases(path)
            except Exception:
                report((os.path.relpath(path, ROOT), "FAIL", traceback.format_exc(limit=4)))
                continue
            every += cases
            jobs += [(n, f) for n, f, t in cases if a.k in n and table.tier_of(n, t) in chosen]
    # Stale tier lines are errors once every Python test is known (each line must still name one).
    if not a.k and {"host", "qemu"} <= kinds:
        for where in table.unmatched([(n, t) for n, f, t in every]):
            report((where, "FAIL", "this tests/tiers.cfg line matches no test: remove it or fix its pattern"))
    if a.list:
        for n, f, t in every:
            if a.k in n and table.tier_of(n, t) in chosen:
                print(f"{table.tier_of(n, t)} {n}")
        return 0
    with cf.ThreadPoolExecutor(max_workers=a.j) as ex:
        for fut in cf.as_completed([ex.submit(run_py, n, f, ctx) for n, f in jobs]):
            report(fut.result())

    passed = sum(1 for _, s, _ in results if s == "PASS")
    failed = sum(1 for _, s, _ in results if s == "FAIL")
    skipped = sum(1 for _, s, _ in results if s == "SKIP")
    if os.environ.get("PMUBOOT_TEST_TIMES"):
        with open(os.environ["PMUBOOT_TEST_TIMES"], "w") as f:
            f.writelines(f"{d:.2f} {n}\n" for n, d in sorted(DURATIONS.items(), key=lambda kv: -kv[1]))
    slow = sorted(DURATIONS.items(), key=lambda kv: -kv[1])[:SLOWEST_SHOWN]
    if slow:
        print("slowest: " + ", ".join(f"{n} {d:.0f} s" for n, d in slow))
    print(f"({time.monotonic() - start:.0f} s)")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
