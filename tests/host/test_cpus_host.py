"""pmuboot-host run cpus=: the topology record from Linux, and each chosen CPU measured pinned."""
import os

import pmucap

QUICK = ("bench=ref.add_chain", "reps=3", "iterations=100", "warmup=0", "ibs=off")


def online_cpus():
    n = os.cpu_count() or 1
    out = []
    for k in range(n):
        p = f"/sys/devices/system/cpu/cpu{k}/online"
        if not os.path.exists(p) or open(p).read().strip() == "1":
            out.append(k)
    return [k for k in out if k in os.sched_getaffinity(0)]


def run(ctx, *opts):
    p = ctx.run_host("run", *QUICK, *opts)
    runs, _ = pmucap.parse(p.stdout)
    assert len(runs) == 1 and runs[0].complete, (p.returncode, p.stderr, p.stdout[-800:])
    return p, runs[0]


def recs(r, t):
    return [x for _, x in r.records if x["type"] == t]


def test_all_measures_on_every_cpu(ctx):
    cpus = online_cpus()
    p, r = run(ctx, "cpus=all")
    assert p.returncode == 0, p.stdout[-1500:]
    topo = recs(r, "topology")
    assert len(topo) == 1 and topo[0]["source"] == "linux", topo
    assert [c["n"] for c in topo[0]["chosen"]] == cpus, (topo[0]["chosen"], cpus)
    bench = recs(r, "bench")
    got = sorted({b["cpu"]["n"] for b in bench})
    assert got == cpus, (got, cpus)
    # One pass per CPU: each has its own bench record, with that CPU's APIC ID (CPUID on it).
    apic = {c["n"]: c["apic_id"] for c in topo[0]["cpus"]}
    for b in bench:
        assert b["cpu"]["apic_id"] == apic[b["cpu"]["n"]], b["cpu"]
    per = [sum(1 for b in bench if b["cpu"]["n"] == k) for k in cpus]
    assert len(set(per)) == 1 and per[0] >= 1, per    # the same variants on each
    assert f"cpus: measuring on processor {cpus[-1]}" in p.stdout or len(cpus) == 1, p.stdout[-1500:]


def test_types_on_this_machine(ctx):
    p, r = run(ctx, "cpus=types")
    topo = recs(r, "topology")[0]
    # One CPU per core type the probes found.
    assert len(topo["chosen"]) == len(topo["core_types"]), topo
    assert len({b["cpu"]["n"] for b in recs(r, "bench")}) == len(topo["core_types"]), topo


def test_one_listed_cpu(ctx):
    last = online_cpus()[-1]
    p, r = run(ctx, f"cpus={last}")
    assert p.returncode == 0, p.stdout[-1500:]
    assert {b["cpu"]["n"] for b in recs(r, "bench")} == {last}
    bsp = next(c for c in recs(r, "topology")[0]["cpus"] if c["bsp"])["n"]
    if bsp != last:   # not the CPU it started on: identified again there, the record says which
        assert recs(r, "cpu")[-1]["cpu"]["n"] == last, recs(r, "cpu")


def test_bad_and_missing_cpus(ctx):
    p, r = run(ctx, "cpus=everywhere")
    errs = recs(r, "error")
    assert p.returncode == 1 and any("everywhere" in e["message"] and e["what"] == "cpus" for e in errs), errs
    # The bad value changed nothing: the default (types) measured.
    assert recs(r, "topology")[0]["cpus_option"] == "types"
    p, r = run(ctx, "cpus=4095")
    errs = recs(r, "error")
    assert p.returncode == 1 and any("no processor 4095" in e["message"] for e in errs), errs
