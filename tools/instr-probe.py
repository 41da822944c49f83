#!/usr/bin/env python3
"""tools/instr-probe.py - the instruction table beside an independent probe (`make bench-instr`).

    tools/instr-probe.py PMUBOOT_HOST INSTR_PROBE [--cpu N] [--reps N] [--records FILE]

Runs tools/probe/instr_probe.c's kernels (hand-written chains and independent blocks of some fifty common
forms, timed against a dependent add chain; no code or method of pmuboot's) and `pmuboot-host instr` on
the same forms and CPU, then prints each form's latency (the pair the probe chains) and reciprocal
throughput from both, whether they agree within the instruction table's repeatability tolerances (max(0.15
cycle, 7%) for latency, max(0.05 cycle, 15%) for throughput), and how many do.  A figure is measured
each time, never read from a table; the tolerance is `pmucap compare`'s (tools/pmucap/instr.py); the
agreement is printed, not judged: on a machine whose SMT sibling
is busy the probe, which has no contention guard of its own, reads slow.  --records keeps pmuboot-host's
records.  Exit status: 0 when both ran, 1 when either failed, 2 on bad arguments.
"""
import argparse
import os
import subprocess
import sys

from pmucap import capture, instr  # tools/ is this script's directory, so on its path

NAMES_PER_RUN = 6  # asm names are letters, digits, blanks and commas: no escaping


def agree(what, a, b):
    """Whether the probe's figure and the table's agree: within the tolerance pmucap compare holds two runs'
    figures to (before their spreads), one rule for both."""
    return a is not None and b is not None and abs(a - b) <= instr.tolerance(what, a, b)


def probe_rows(probe, cpu, reps):
    p = subprocess.run([probe, str(cpu), str(reps)], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{probe} exited {p.returncode}: {p.stderr.strip()[-500:]}")
    rows = []
    for n, line in enumerate(p.stdout.splitlines(), 1):
        f = line.split("\t")
        if len(f) != 4:
            raise RuntimeError(f"{probe}: line {n} is not asm, pair, latency, throughput: {line!r}")
        rows.append({"asm": f[0], "pair": f[1], "lat": float(f[2]), "tp": float(f[3])})
    return rows, [ln for ln in p.stderr.splitlines() if ln.strip()]


def table_records(host, cpu, names, keep):
    """pmuboot-host instr on exactly these forms, read by pmucap's checked reader of instr records: a few names
    a run, as lib/regex.h's programs are short.  {asm: instr.Form}, a form of two encodings its first."""
    forms, out = {}, []
    for at in range(0, len(names), NAMES_PER_RUN):
        pattern = "^(" + "|".join(names[at:at + NAMES_PER_RUN]) + ")$"
        p = subprocess.run([host, "instr", "--cpu", str(cpu), "--match", pattern], capture_output=True,
                           text=True, timeout=1800)
        if p.returncode != 0:
            raise RuntimeError(f"pmuboot-host instr --match '{pattern}' exited {p.returncode}: "
                               f"{p.stderr.strip()[-500:]}")
        out.append(p.stdout)
        runs, _ = capture.parse(p.stdout)
        if not runs:
            raise RuntimeError(f"pmuboot-host instr --match '{pattern}' wrote no run of records")
        table = instr.read(runs[-1])
        if table.problems:
            raise RuntimeError(f"pmuboot-host instr --match '{pattern}': {table.problems[0]}")
        for f in table.forms:
            forms.setdefault(f.asm, f)
    if keep:
        with open(keep, "w") as f:
            f.write("".join(out))
    return forms


def pair_cycles(form, pair):
    frm, to = pair.split("->")
    return next((f.cycles for f in form.latency if f.src == frm and f.dst == to), None)


def fmt(v):
    return "-" if v is None else f"{v:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("host")
    ap.add_argument("probe")
    ap.add_argument("--cpu", type=int, default=1 if (os.cpu_count() or 1) > 1 else 0,
                    help="the CPU both run on (default: 1 where there are two, leaving 0 to the rest)")
    ap.add_argument("--reps", type=int, default=31, help="the probe's runs of each kernel (default 31)")
    ap.add_argument("--records", help="keep pmuboot-host instr's output here")
    a = ap.parse_args()
    try:
        rows, skipped = probe_rows(a.probe, a.cpu, a.reps)
        if not rows:
            raise RuntimeError(f"{a.probe} measured no form")
        recs = table_records(a.host, a.cpu, [r["asm"] for r in rows], a.records)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        print(f"instr-probe: {e}", file=sys.stderr)
        return 1
    print(f"instr-probe: {len(rows)} forms on CPU {a.cpu}, the probe's {a.reps} runs each beside pmuboot-host instr")
    for s in skipped:
        print(f"  {s}")
    w, pw = max(len(r["asm"]) for r in rows), max(len(r["pair"]) for r in rows)
    print(f"{'form':<{w}}  {'pair':<{pw}} {'latency':>8} {'table':>8}      {'tp':>6} {'table':>6}")
    n_lat = ok_lat = n_tp = ok_tp = 0
    for r in rows:
        rec = recs.get(r["asm"])
        lat = pair_cycles(rec, r["pair"]) if rec else None
        tp = rec.throughput.cycles if rec and rec.throughput is not None else None
        la, ta = agree("latency", r["lat"], lat), agree("throughput", r["tp"], tp)
        n_lat += 1
        n_tp += 1
        ok_lat += la
        ok_tp += ta
        why = "" if rec else "  (no record from pmuboot-host)"
        print(f"{r['asm']:<{w}}  {r['pair']:<{pw}} {fmt(r['lat']):>8} {fmt(lat):>8} {'ok' if la else 'DIFF':>4}"
              f" {fmt(r['tp']):>6} {fmt(tp):>6} {'ok' if ta else 'DIFF':>4}{why}")
    print(f"latency: {ok_lat} of {n_lat} within max({instr.LATENCY_ABS} cycle, {instr.LATENCY_REL:.0%}) of the "
          "table's")
    print(f"throughput: {ok_tp} of {n_tp} within max({instr.THROUGHPUT_ABS} cycle, {instr.THROUGHPUT_REL:.0%}) of "
          "the table's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
