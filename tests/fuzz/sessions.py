#!/usr/bin/env python3
"""tests/fuzz/sessions.py - run every libFuzzer harness for its time budget and report each.

    python3 tests/fuzz/sessions.py --build DIR --seconds N NAME...

`make fuzz` calls this after building DIR/fuzz/fuzz_NAME (tests/fuzz/module.mk).  Each harness
gets N seconds, starting from tests/fuzz/corpus/NAME/ and keeping what it finds new in
DIR/fuzz/corpus/NAME/.  libFuzzer ends a session at its first finding, so a session that finds
one is started again for the rest of the budget, until the budget is spent or the same finding
comes back from the same input (it would only be found again).  Each finding is named: the
broken property (FUZZ_CHECK's message), the sanitizer report, or libFuzzer's own verdict (deadly
signal, timeout, out of memory), with the input saved in DIR/fuzz/crashes/NAME/ and the logs in
DIR/fuzz/NAME.log.  One harness failing (or not built) never stops the others.

Prints one line per harness as it ends and a summary; exits 1 when any harness failed, else 0.
"""
import argparse
import os
import re
import subprocess
import sys
import time

# libFuzzer's per-input limit and memory limit (seconds, MiB): a slow or swelling input is a finding.
INPUT_TIMEOUT_S = 10
RSS_LIMIT_MB = 2048
# A session that overruns its -max_total_time by this much is killed and reported as hung.
OVERRUN_GRACE_S = 60
# Sessions in one budget, at most: a finding each; more is a harness that fails on every input.
MAX_SESSIONS = 20

# What a log says went wrong, most specific first: (pattern, how to name it).
FINDINGS = [
    (re.compile(r"^(\S+:\d+): property broken: (.*)$", re.M), lambda m: f"property broken: {m[2]} ({m[1]})"),
    (re.compile(r"ERROR: AddressSanitizer: ([\w-]+)(?: on address \S+)?"), lambda m: f"AddressSanitizer: {m[1]}"),
    (re.compile(r"ERROR: LeakSanitizer: (.*)"), lambda m: f"LeakSanitizer: {m[1].strip()}"),
    (re.compile(r"^(\S+:\d+:\d+): runtime error: (.*)$", re.M), lambda m: f"UBSan: {m[2]} ({m[1]})"),
    (re.compile(r"ERROR: libFuzzer: (.*)"), lambda m: f"libFuzzer: {m[1].strip()}"),
]
ARTIFACT = re.compile(r"Test unit written to (\S+)")
STAT = re.compile(r"^stat::(\w+):\s*(\d+)", re.M)


def finding(log):
    """The first thing the log names as wrong, or None."""
    for pat, name in FINDINGS:
        m = pat.search(log)
        if m:
            return name(m)
    return None


def one_session(exe, seconds, corpus, seeds, crashes):
    """Run libFuzzer once; returns (exit status or None when killed, log text)."""
    cmd = [exe, f"-max_total_time={seconds}", f"-timeout={INPUT_TIMEOUT_S}", f"-rss_limit_mb={RSS_LIMIT_MB}",
           f"-artifact_prefix={crashes}/", "-print_final_stats=1", corpus]
    if os.path.isdir(seeds):
        cmd.append(seeds)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                           timeout=seconds + OVERRUN_GRACE_S)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out + f"\nsessions.py: killed after {seconds + OVERRUN_GRACE_S} s\n"


def run_harness(name, build, seconds, seeds_root):
    """Fuzz one harness for its whole budget; returns a dict describing how it went."""
    exe = os.path.join(build, "fuzz", f"fuzz_{name}")
    corpus = os.path.join(build, "fuzz", "corpus", name)
    crashes = os.path.join(build, "fuzz", "crashes", name)
    log_path = os.path.join(build, "fuzz", f"{name}.log")
    res = {"name": name, "findings": [], "inputs": 0, "peak_rss_mb": 0, "sessions": 0, "log": log_path}
    if not os.access(exe, os.X_OK):
        res["findings"].append((f"not built: {exe} is missing (see make fuzz-build's output)", None))
        return res
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(crashes, exist_ok=True)
    start = time.monotonic()
    with open(log_path, "w") as log:
        while res["sessions"] < MAX_SESSIONS:
            left = seconds - int(time.monotonic() - start)
            if res["sessions"] and left < 1:
                break
            res["sessions"] += 1
            rc, out = one_session(exe, max(left, 1), corpus, os.path.join(seeds_root, name), crashes)
            log.write(f"===== session {res['sessions']}: {max(left, 1)} s =====\n{out}\n")
            stats = dict((k, int(v)) for k, v in STAT.findall(out))
            res["inputs"] += stats.get("number_of_executed_units", 0)
            res["peak_rss_mb"] = max(res["peak_rss_mb"], stats.get("peak_rss_mb", 0))
            if rc == 0:
                break  # libFuzzer ends cleanly only when the time is up
            what = finding(out) or ("hung: " + out.strip().splitlines()[-1] if rc is None
                                    else f"exit status {rc} with no report (see the log)")
            art = ARTIFACT.search(out)
            found = (what, art[1] if art else None)
            repeat = found in res["findings"]
            if not repeat:
                res["findings"].append(found)
            if repeat or rc is None:
                break
    res["seconds"] = round(time.monotonic() - start)
    if res["sessions"] >= MAX_SESSIONS:
        res["findings"].append((f"stopped after {MAX_SESSIONS} sessions, each ending in a finding", None))
    return res


def describe(res):
    head = f"fuzz: {res['name']}: "
    stats = f"{res['inputs']} inputs in {res.get('seconds', 0)} s, peak RSS {res['peak_rss_mb']} MB"
    if not res["findings"]:
        return head + "passed, " + stats
    lines = [head + f"FAILED ({len(res['findings'])} finding{'s' if len(res['findings']) > 1 else ''}), " + stats]
    for what, art in res["findings"]:
        lines.append(f"    {what}" + (f"; input {art}" if art else ""))
    lines.append(f"    log: {res['log']}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--seeds", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
    ap.add_argument("names", nargs="+")
    a = ap.parse_args(argv)
    results = []
    for name in a.names:
        print(f"fuzz: {name} for {a.seconds} s", flush=True)
        results.append(run_harness(name, a.build, a.seconds, a.seeds))
        print(describe(results[-1]), flush=True)
    failed = [r["name"] for r in results if r["findings"]]
    print(f"fuzz: {len(results) - len(failed)} of {len(results)} harnesses passed"
          + (f"; failed: {' '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
