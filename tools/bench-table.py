#!/usr/bin/env python3
"""tools/bench-table.py - the benchmark table for this machine (`make bench`).

Runs `pmuboot-host run` with benchmark options, reads its records and
prints, per kernel variant: cycles per iteration (median, min, max), the
spread (interquartile range / median), the iterations the harness chose for
it (adaptive: each run spans >= 20,000 TSC ticks) and the penalty against its
control.  Then it compares the figures with the targets of docs/benchmarks.md:

  - spread (IQR / median) within 2 % for every variant;
  - the reference chains within 1 % of their integer latencies (the add chain
    at 1.00 cycles per add, the load chain at its L1 latency, whole cycles);
  - no figure below its kernel's dependency chain (chain_min);
  - the store-forward failure latency within 10 % of the published figure
    for this core (table below, sources in docs/benchmarks.md);
  - page-split penalty above line-split penalty (loads and stores, per arena)
    where the core distinguishes them (equal within 0.5 cycles or 5% is
    reported as not distinguished, not as a miss).

It prints figures and says which targets were met.  Exit status: 0 when every
target was met (targets marked n/a, with no published figure for this core,
do not count), 1 when the benchmark could not run, 2 when a target was missed.

    tools/bench-table.py [PMUBOOT_HOST] [probe=CHASE_PROBE] [key=value ...]

Extra key=value words go to `pmuboot-host run` after the defaults below.  With probe= (`make bench`
builds tools/probe/chase_probe.c for it), the ladder points that miss the spread target past the
core's own caches are measured again by that independent pointer chase, so the table shows how much
the machine itself moves at those sizes (it changes no verdict).
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXIT_MET, EXIT_NOT_RUN, EXIT_MISSED = 0, 1, 2
SPREAD_TARGET = 0.02    # docs/benchmarks.md: interquartile range / median within 2 %
REF_TARGET = 0.01       # docs/benchmarks.md: reference chains within 1 % of a whole number of cycles

# Long enough that the differential dwarfs timer granularity, short enough
# that few samples catch an interrupt (a user process cannot mask them).
DEFAULT_ARGS = ["iterations=2000", "reps=11", "warmup=3"]

PREFIX = "@pmuboot "

# Published store-forwarding failure latencies (cycles), with the variant of
# ours that measures the same thing.  Sources and wording: docs/benchmarks.md.
# Keys are event-set keys (events/sets.csv).
#   key: (name, figure, our variant, source)
PUBLISHED = {
    "goldencove": ("Golden Cove / Raptor Cove", 19.5, "size_mismatch",
                   "Chips and Cheese (Neoverse V2, Strix Point articles): 19-20"),
    "icelake": ("Sunny Cove / Ice Lake", 17.01, "two_stores",
                  "T. Downs uarch-bench gist bc9af3a0: fw_split_write_read 17.01"),
    "skylake": ("Skylake", 14.00, "two_stores", "T. Downs gist bc9af3a0: fw_split_write_read 14.00"),
    "haswell": ("Haswell", 15.0, "size_mismatch", "Chips and Cheese (Centaur CNS article): 15"),
    "ivybridge": ("Ivy Bridge", 15.0, "size_mismatch",
                  "easyperf 'Store forwarding by example': 15 (word store, dword load)"),
    "sandybridge": ("Sandy Bridge", 12.0, "size_mismatch",
                    "Agner Fog microarchitecture guide via easyperf: ~12"),
    "tremont": ("Tremont", 11.5, "size_mismatch", "Chips and Cheese (Tremont article): 11-12"),
    "zen2": ("Zen 2", 21.04, "two_stores", "T. Downs gist bc9af3a0 (EPYC 7262): fw_split_write_read 21.04"),
    "zen4": ("Zen 4", 18.0, "size_mismatch", "Chips and Cheese (Strix Point article): 18"),
    "zen5": ("Zen 5", 14.0, "size_mismatch", "Chips and Cheese (Strix Point article): 14"),
}

# Event-set keys whose core is another key's, for a published figure: the server and embedded
# parts of a client core count with their own vendor file but are the same core.
SAME_CORE = {
    "jaketown": "sandybridge", "ivytown": "ivybridge", "haswellx": "haswell",
    "skylake_server": "skylake", "cascadelakex": "skylake", "icelake_server": "icelake",
    "sapphirerapids": "goldencove", "emeraldrapids": "goldencove", "elkhartlake": "tremont",
}


def check_keys(root=ROOT):
    """Every key above is a key of events/sets.csv, the one list of them (read as the table
    generators read it); returns the unknown ones."""
    sys.path.insert(0, os.path.join(root, "tools"))
    import gen_uarch
    known = {key for key, _, _ in gen_uarch.read_sets(root)}
    return sorted(k for k in set(PUBLISHED) | set(SAME_CORE) | set(SAME_CORE.values()) if k not in known)


def core_key(cpu):
    """The PUBLISHED key for this cpu record, or None: identification's event set (pmu/cpu/uarch.csv)
    names the core, so the figure follows what the record says this CPU is."""
    key = cpu.get("event_set")
    key = SAME_CORE.get(key, key)
    return key if key in PUBLISHED else None


def run(host, extra):
    args = [host, "run", "bench=all"] + DEFAULT_ARGS + list(extra)
    print("$ " + " ".join(args), flush=True)
    p = subprocess.run(args, capture_output=True, text=True)
    recs = []
    for line in p.stdout.splitlines():
        if line.startswith(PREFIX):
            try:
                recs.append(json.loads(line[len(PREFIX):]))
            except json.JSONDecodeError:
                print(f"warning: unreadable record: {line[:120]}", file=sys.stderr)
    return p, recs


def cap_mark(b):
    """What capped the iterations: w the window (pmuboot-host), * the budget or the maximum."""
    return "w" if b.get("iterations_window") else "*" if b.get("iterations_capped") else " "


def private_bytes(recs):
    """The largest data or unified cache below the last level (the cache record's levels), or None: the
    last level is the one the cores share (an SMT sibling shares the levels below too, so shared_by
    cannot tell them apart)."""
    cache = next((r for r in recs if r.get("type") == "cache"), {})
    levels = [lv for lv in cache.get("levels") or [] if lv.get("type") in ("data", "unified") and lv.get("size")]
    if not levels:
        return None
    last = max(lv["level"] for lv in levels)
    sizes = [lv["size"] for lv in levels if lv["level"] < last]
    return max(sizes) if sizes else None


def reaches_shared(b, private):
    """True when the variant's buffer is larger than every core-private cache: its figure depends on the
    last-level cache and DRAM, which other cores (on a host, other machines) use at the same time."""
    size = (b.get("memory") or {}).get("size")
    return bool(private and size and size > private)


# The independent probe: runs per size (its quartiles), the most sizes and the largest ring it is asked for
# (a ring is built and touched whole: a 2 GiB one takes seconds and the memory).
PROBE_REPS = 101
PROBE_POINTS = 6
PROBE_MAX_BYTES = 512 << 20
PROBE_TIMEOUT_S = 120


def probe_points(benches, high, private):
    """The latency ladder's points among the spread misses past the core's own caches: at most PROBE_POINTS,
    spread over the sizes (smallest and largest kept), none above PROBE_MAX_BYTES."""
    missed = {(n, a) for n, a, _ in high}
    pts = sorted((b for b in benches if b.get("kernel") == "latency" and b.get("cycles")
                  and (f"latency.{b['variant']}", b.get("arena")) in missed and reaches_shared(b, private)
                  and b["memory"]["size"] <= PROBE_MAX_BYTES), key=lambda b: b["memory"]["size"])
    if len(pts) <= PROBE_POINTS:
        return pts
    step = (len(pts) - 1) / (PROBE_POINTS - 1)
    return [pts[round(i * step)] for i in range(PROBE_POINTS)]


def run_probe(probe, cpu, size, loads):
    """The probe's (median cycles per load, IQR / median in percent), or a string saying why not."""
    loads = max(8, loads // 8 * 8)
    try:
        p = subprocess.run([probe, str(cpu), str(size), str(loads), str(PROBE_REPS)], capture_output=True,
                           text=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"did not run: {e}"
    fields = p.stdout.split()
    if p.returncode != 0 or len(fields) < 5:
        return f"exited {p.returncode}: {(p.stderr or p.stdout).strip()[:120]}"
    try:
        return float(fields[1]), float(fields[4])
    except ValueError:
        return f"unreadable output: {p.stdout.strip()[:120]}"


def show_machine_drift(probe, benches, high, recs):
    """The independent probe at the ladder's missed sizes, beside pmuboot's figures."""
    pts = probe_points(benches, high, private_bytes(recs))
    if not pts:
        return
    print("\nThe machine itself at the missed ladder sizes, measured right after by an independent pointer chase\n"
          f"(tools/probe/chase_probe.c: its own ring, clock and calibration; {PROBE_REPS} runs of as many loads as "
          "pmuboot's N run):")
    print(f"  {'variant':16} {'pmuboot':>9} {'iqr/med':>8}   {'probe':>9} {'iqr/med':>8}")
    for b in pts:
        cpu = (b.get("cpu") or {}).get("n", 0)
        got = run_probe(probe, cpu, b["memory"]["size"], b.get("iterations") or 0)
        mine = f"{b['cycles']['median']:9.1f} {spread(b['cycles']) * 100:7.1f}%"
        theirs = f"{got[0]:9.1f} {got[1]:7.1f}%" if isinstance(got, tuple) else got
        print(f"  latency.{b['variant']:8} {mine}   {theirs}")


def fmt(x, width=8):
    return f"{x:{width}.3f}" if x is not None else " " * (width - 3) + "n/a"


def spread(c):
    """The robust spread: interquartile range / median (the outliers stay out of neither)."""
    return (c["q3"] - c["q1"]) / c["median"] if c and c["median"] > 0 else None


def main(argv):
    unknown = check_keys()
    if unknown:
        print(f"bench-table: not keys of events/sets.csv: {', '.join(unknown)}", file=sys.stderr)
        return EXIT_NOT_RUN
    host = argv[1] if len(argv) > 1 and "=" not in argv[1] else "build/pmuboot-host"
    probe = next((a.split("=", 1)[1] for a in argv[1:] if a.startswith("probe=")), None)
    extra = [a for a in argv[1:] if "=" in a and not a.startswith("probe=")]
    p, recs = run(host, extra)
    benches = [r for r in recs if r.get("type") == "bench"]
    if not benches:
        print(f"no bench records (pmuboot-host exited {p.returncode}):\n{p.stderr[-2000:]}", file=sys.stderr)
        return EXIT_NOT_RUN
    cpu = next((r for r in recs if r.get("type") == "cpu"), {})
    setup = next((r for r in recs if r.get("type") == "bench_setup"), {})
    end = next((r for r in recs if r.get("type") == "end"), {})

    print(f"\nCPU: {cpu.get('vendor_string', '?')} family {cpu.get('family')} model {cpu.get('model')} "
          f"\"{cpu.get('brand', '')}\"" + (f" under {cpu.get('hypervisor_vendor')}" if cpu.get("hypervisor") else ""))
    cal = setup.get("calibration") or {}
    print(f"{setup.get('iterations')} iterations x {setup.get('reps')} reps (+{setup.get('warmup')} warm-up), "
          f"method {setup.get('method')}; cycles from {benches[0].get('cycles_source')}"
          + (f" ({cal.get('source')}, {cal.get('core_per_tsc')} cycles/tick at start)" if cal.get("source") else ""))
    counting = setup.get("counting") or {}
    if not counting.get("available"):
        print(f"no event counting: {counting.get('reason')}")

    adaptive = setup.get("adaptive") or {}
    if adaptive.get("on"):
        print(f"iterations adaptive: each N run spans >= {adaptive.get('target_ticks')} TSC ticks, at least "
              f"{setup.get('iterations')}, budget {adaptive.get('budget_ms')} ms per variant")
    print(f"\n{'kernel.variant':34} {'arena':8} {'median':>8} {'min':>8} {'max':>8} {'iqr/med':>7}  "
          f"{'iters':>8} {'penalty':>8}  vs")
    by_key = {}
    high = []
    below = []
    for b in benches:
        c = b.get("cycles")
        name = f"{b['kernel']}.{b['variant']}"
        by_key[(b["kernel"], b["variant"], b.get("arena"))] = b
        if not c:
            high.append((name, b.get("arena"), None))
            print(f"{name:34} {b.get('arena') or '':8} cycles not measured: {b.get('cycles_invalid')}")
            continue
        s = spread(c)
        flag = ""
        if s is None or s > SPREAD_TARGET or c.get("unstable"):
            flag = " !"
            high.append((name, b.get("arena"), s))
        chain = b.get("chain_min")
        if chain and c["n"] and min(c["min"], c["outlier_min"] if c.get("outlier_min") is not None else c["min"]) \
                < chain * (1 - (b.get("chain_slack") or 0)):
            below.append((name, b.get("arena"), c["min"], chain))
        pen = b.get("penalty") or {}
        print(f"{name:34} {b.get('arena') or '':8} {fmt(c['median'])} {fmt(c['min'])} {fmt(c['max'])} "
              f"{(f'{s * 100:6.2f}%' if s is not None else '    n/a')}{flag:2}"
              f"{b.get('iterations', 0):8d}{cap_mark(b)}"
              f"{fmt(pen.get('median'))}  {b.get('control') or ''}"
              + (f"  dropped {b['dropped']}" if b.get("dropped") else "")
              + (f"  UNSTABLE ({c['unstable']})" if c.get("unstable") else ""))
    skipped = [r for r in recs if r.get("type") == "check" and r.get("what") == "runs" and r.get("status") == "skip"]
    for r in skipped:
        print(f"{r['kernel'] + '.' + r['variant']:34} {r.get('arena') or '':8} skipped: {r.get('reason')}")

    print(f"\n  !          spread above {SPREAD_TARGET:.0%} (interquartile range / median over the kept samples), or"
          "\n             a figure marked unstable"
          "\n  iters      iterations per N run the harness chose (each run spans >= the target in TSC ticks);"
          "\n             * the time budget capped it; w cut to fit the window (a process cannot hold the"
          "\n             scheduler's tick off: bench_setup.adaptive.window_ticks)"
          "\n  dropped N  N samples thrown away and taken again because their window was disturbed"
          "\n             (here, on Linux: a context switch or an interrupt on this CPU; in the image: an SMI or NMI)"
          "\n  penalty    median minus the median of the control named under `vs`, cycles per iteration")
    if probe and high:
        show_machine_drift(probe, benches, high, recs)
    print("\nTargets (docs/benchmarks.md):")
    results = []

    def target(ok, text):
        results.append(ok)
        print(f"  [{'met ' if ok else 'MISS' if ok is not None else 'n/a '}] {text}")

    target(not high, f"spread (IQR / median) within 2% for every variant ({len(benches)})" +
           ("" if not high else ": over for " + ", ".join(
               f"{n}{'@' + a if a else ''} ({s * 100:.1f}%)" if s is not None else f"{n} (n/a)"
               for n, a, s in high)))
    if high:
        private = private_bytes(recs)
        keyed = {(f"{b['kernel']}.{b['variant']}", b.get("arena")): b for b in benches}
        shared = [h for h in high if reaches_shared(keyed.get((h[0], h[1]), {}), private)]
        if shared and private:
            own = [h for h in high if h not in shared]
            print(f"         of those, {len(shared)} reach past the core's own caches ({private // 1024} KiB, the "
                  f"largest below the last level in the cache record) into the shared last level and DRAM, and "
                  f"{len(own)} do not" + (": " + ", ".join(n + ("@" + a if a else "") for n, a, _ in own)
                                           if own else ""))
    target(not below, "no figure below its dependency chain" + ("" if not below else ": " + ", ".join(
        f"{n}{'@' + a if a else ''} min {m:.3f} < {ch:.3f}" for n, a, m, ch in below)))
    for variant, whole in (("add_chain", 1), ("load_chain", None)):
        ref = by_key.get(("ref", variant, None))
        if not ref or not ref.get("cycles"):
            continue
        m = ref["cycles"]["median"]
        want = whole or max(1, round(m))
        target(abs(m - want) <= REF_TARGET * want, f"ref.{variant} within 1% of {want} cycles: {m:.3f} "
               f"({(m - want) / want * 100:+.2f}%, {ref['cycles_source']})")
    key = core_key(cpu)
    if key:
        name, fig, variant, source = PUBLISHED[key]
        b = by_key.get(("store_forward", variant, None))
        if b:
            m = b["cycles"]["median"]
            dev = (m - fig) / fig
            pen = (b.get("penalty") or {}).get("median")
            target(abs(dev) <= 0.10, f"store-forward failure ({variant}) {m:.3f} cycles vs published {fig} for "
                   f"{name} ({dev * 100:+.1f}%; penalty vs control {pen:.3f}); source: {source}")
    else:
        target(None, f"store-forward failure vs published: no published figure for family {cpu.get('family')} "
               f"model {cpu.get('model')} in docs/benchmarks.md")
    arenas = sorted({b.get("arena") for b in benches if b["kernel"] == "split"}, key=str)
    for arena in arenas:
        for kind in ("load", "store"):
            line = by_key.get(("split", f"{kind}_line", arena))
            page = by_key.get(("split", f"{kind}_page", arena))
            if not (line and page and line.get("penalty") and page.get("penalty")):
                continue
            lp, pp = line["penalty"]["median"], page["penalty"]["median"]
            crossed = page.get("page_crossed")
            what = {True: "a real 4 KiB page boundary", False: "a 4 KiB boundary inside a larger page",
                    None: "a 4 KiB boundary (page size unknown)"}[crossed]
            # "Where the core distinguishes them": equal within noise is not a miss, just a fact about the core.
            same = abs(pp - lp) <= max(0.5, 0.05 * abs(lp))
            verdict = None if same else pp > lp
            target(verdict, f"{kind} page-split penalty {pp:.3f} > line-split penalty {lp:.3f} "
                   f"[{arena} arena: crosses {what}]" + (": this core does not distinguish them" if same else ""))
    met = sum(1 for r in results if r)
    missed = sum(1 for r in results if r is False)
    print(f"\n{met} targets met, {missed} missed; run status {end.get('status', '?')}")
    return EXIT_MISSED if missed else EXIT_MET


if __name__ == "__main__":
    sys.exit(main(sys.argv))
