"""pmuboot-host metrics --run: the benchmark stage with its top-down metrics, end to end against a model of a
dump's PMU (the image's scheduler, MSR driver, PERF_METRICS reads, harness and evaluator; the model's counts).

The model's workload is documented in host/cmd_metrics_run.c: per iteration 100 cycles, 400 slots on
fixed counter 3, top-down events retiring 120, bad speculation 40, frontend 100, backend 140 (60 of it memory
bound), every other event 1 + a hash of its code and unit mask below 50.  The expected values below are worked
out from that and the vendors' formulas, not read from the program.
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REAL = os.path.join(ROOT, "tests", "fixtures", "cpuid-real")
BENCH = ("bench=store_forward.forward,store_forward.size_mismatch", "reps=3", "warmup=0")


def run(ctx, dump, *extra):
    p = ctx.run_host("metrics", "--cpuid-dump", os.path.join(REAL, dump), "--run", *extra, *BENCH)
    assert p.returncode == 0, f"exit {p.returncode}: {p.stderr[-2000:]}\n{p.stdout[-2000:]}"
    recs = [json.loads(line[len("@pmuboot "):]) for line in p.stdout.splitlines() if line.startswith("@pmuboot ")]
    return recs, p.stdout


def pairs(recs):
    """Each bench record and the metrics record right after it (the stage emits it before the checks)."""
    out = []
    for i, r in enumerate(recs):
        if r["type"] != "bench":
            continue
        m = recs[i + 1]
        assert m["type"] == "metrics", f"after the bench record of {r['variant']}: {m['type']}"
        assert (m["kernel"], m["variant"], m["arena"], m["control"]) == (r["kernel"], r["variant"], r["arena"],
                                                                        r["control"]), (m, r)
        assert not m.get("truncated"), f"{m['variant']}: the record was cut short"
        out.append((r, m))
    assert [b["variant"] for b, _ in out] == ["add_chain", "load_chain", "forward", "size_mismatch"], out
    return out


def close(got, want, tol=0.005):
    return got is not None and abs(got - want) <= tol


def test_sapphire_rapids_reads_perf_metrics(ctx):
    # 0xa000: IA32_PERF_CAPABILITIES with full-width writes (13) and PERF_METRICS (15), as the dump cannot say.
    recs, out = run(ctx, "GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", "--perf-caps", "0xa000")
    assert "against a model of this dump's PMU" in out
    for b, m in pairs(recs):
        assert m["source"] == "intel-perfmon sapphirerapids_metrics.json TMA 5.2" and m["event_set"] == "sapphirerapids"
        v = m["values"]
        # PERF_METRICS bytes the model keeps: round(255 x share): retiring 77, bad speculation 26, frontend 64,
        # backend 89 (sum 256), memory bound 38.  Sapphire Rapids' Backend_Bound and Memory_Bound are a byte over the
        # level-1 bytes' sum: 89 / 256 and 38 / 256, in percent.
        assert close(v["Backend_Bound"], 100 * 89 / 256), v["Backend_Bound"]
        assert close(v["Memory_Bound"], 100 * 38 / 256), v["Memory_Bound"]
        assert m["levels"] == {"Frontend_Bound": 1, "Fetch_Latency": 2, "Fetch_Bandwidth": 2, "Bad_Speculation": 1,
                               "Branch_Mispredicts": 2, "Machine_Clears": 2, "Backend_Bound": 1, "Memory_Bound": 2,
                               "Core_Bound": 2, "Retiring": 1, "Light_Operations": 2, "Heavy_Operations": 2}, m["levels"]
        assert m["parents"]["Memory_Bound"] == "Backend_Bound" and "Backend_Bound" not in m["parents"]
        # Machine size constants are not the run's to know: null, with the input named and why.
        assert v["Info_System_CPU_Utilization"] is None
        assert m["null_why"]["Info_System_CPU_Utilization"].startswith("missing system.sockets")
        assert "does not supply" in m["missing_inputs"]["system.sockets[0].cpus.count * system.socket_count"]
        assert m["passes"] > 1 and m["split_count"] > 0
        assert m["retire_latency"] is None     # Sapphire Rapids' level <= 2 formulas use none
    assert "metrics: store_forward.size_mismatch: Frontend_Bound" in out


def test_skylake_counts_the_general_events_and_smt_comes_from_the_topology(ctx):
    # Skylake (i5-6400T, 4 cores, no SMT): Frontend_Bound = IDQ_UOPS_NOT_DELIVERED.CORE (9CH/01H: 100) over
    # 4 x CPU_CLK_UNHALTED.THREAD (100) = 25 percent; Retiring = UOPS_RETIRED.RETIRE_SLOTS (C2H/02H: 120) / 400.
    recs, _ = run(ctx, "GenuineIntel00506E3_Skylake_CPUID.txt")
    for _, m in pairs(recs):
        assert m["values"]["Frontend_Bound"] == 25.0 and m["values"]["Retiring"] == 30.0, m["values"]
        assert m["values"]["Info_Thread_IPC"] == 1.5, m["values"]["Info_Thread_IPC"]   # 150 instructions / 100
        assert m["constants"] == {"HYPERTHREADING_ON": 0}, m["constants"]
        assert m["smt"] == {"threads": 1, "siblings": "none", "form": "per-thread",
                            "why": "SMT off: this core has one enabled thread"}, m["smt"]


def test_smt_on_with_the_sibling_parked_is_the_per_thread_form(ctx):
    # Issue 30.  Haswell (i7-4770) and Kaby Lake (i3-7100, the skylake formulas): 2 threads a core, SMT on.  The
    # model counts one thread and its sibling runs nothing, as pmuboot parks it: THREAD_ANY counts what THREAD
    # counts (the model's fixed counter 1: 100).  The per-core form would take THREAD_ANY / 2 = 50 clocks, 200
    # slots, Frontend_Bound 50 and Retiring 60; the per-thread form 400 slots: 25 and 30.  (UOPS_ISSUED.ANY is one of
    # the workload's hashed rates, below the retired slots, so Bad_Speculation is no figure to judge here:
    # tests/unit/test_metrics_smt.c checks the whole level 1 breakdown against a workload that makes sense.)
    for dump in ("GenuineIntel00306C3_Haswell_CPUID.txt", "GenuineIntel00906E9_KabyLake_01_CPUID.txt"):
        recs, out = run(ctx, dump)
        assert "metrics: HYPERTHREADING_ON 0: SMT on (2 threads in this core), but the sibling is parked" in out
        for _, m in pairs(recs):
            v = m["values"]
            assert v["Frontend_Bound"] == 25.0 and v["Retiring"] == 30.0, (dump, v)
            assert m["constants"] == {"HYPERTHREADING_ON": 0} and m["pipeline_width"] == 4, m
            assert m["smt"]["threads"] == 2 and m["smt"]["siblings"] == "parked", m["smt"]
            assert m["smt"]["form"] == "per-thread" and "THREAD_ANY / 2" in m["smt"]["why"], m["smt"]


def amd_rate(event, umask):
    """The model's workload for an event it has no rate for (cmd_metrics_run.c): 32-bit products, as in C."""
    return 1 + (((event * 2654435761) & 0xFFFFFFFF) ^ ((umask * 40503) & 0xFFFFFFFF)) % 49


def test_zen4_pipeline_utilisation(ctx):
    recs, _ = run(ctx, "AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt")
    # frontend_bound = 100 x de_no_dispatch_per_slot.no_ops_from_frontend (1A0H/01H) / (6 x ls_not_halted_cyc (76H: 100)).
    fe = 100 * amd_rate(0x1A0, 0x01) / 600
    ret = 100 * amd_rate(0xC1, 0x00) / 600
    for _, m in pairs(recs):
        assert m["source"].startswith("amd PPR 55901") and m["event_set"] == "zen4"
        assert close(m["values"]["frontend_bound"], fe), (m["values"]["frontend_bound"], fe)
        assert close(m["values"]["retiring"], ret), (m["values"]["retiring"], ret)
        assert set(m["levels"]) == {"frontend_bound", "bad_speculation", "backend_bound", "smt_contention", "retiring",
                                    "frontend_bound_latency", "frontend_bound_bandwidth", "bad_speculation_mispredicts",
                                    "bad_speculation_pipeline_restarts", "backend_bound_memory", "backend_bound_cpu",
                                    "retiring_fastpath", "retiring_microcode"}
        assert not m["null_why"] and m["null_why_more"] == 0


def test_run_refuses_without_a_dump_or_with_eval(ctx):
    p = ctx.run_host("metrics", "--run", "bench=none")
    assert p.returncode == 2 and "give --cpuid-dump" in p.stderr, p.stderr
    p = ctx.run_host("metrics", "--cpuid-dump", os.path.join(REAL, "GenuineIntel00506E3_Skylake_CPUID.txt"),
                     "--eval", "x.json", "--run")
    assert p.returncode == 2 and "--eval and --run" in p.stderr, p.stderr
