"""The bench records' shape, shared by the host and QEMU tests (tests/host/test_bench.py,
test_kernels.py, test_memory_ladder.py; tests/qemu/test_bench.py): what every bench and check
record must hold, whatever the machine (docs/results-format.md, docs/benchmarks.md)."""
import json
import os
import subprocess
import sys

PREFIX = "@pmuboot "

FIGURE_KEYS = {"min", "median", "max", "n", "q1", "q3", "mad", "outliers", "outlier_min", "outlier_max", "rejected",
               "unstable"}
BENCH_KEYS = {"kernel", "variant", "control", "arena", "arena_page", "page_crossed", "page_offset", "iterations", "reps",
              "dropped", "disturbed", "retaken", "rejected", "exhausted", "interrupts_off", "ledger", "smi_event",
              "method", "chain_min", "cycles", "cycles_source", "unstable", "calibration", "tsc", "instructions",
              "events", "passes", "penalty", "expect", "emulated", "body", "problem", "iterations_min",
              "iterations_capped", "sample_ticks", "pilot_ticks", "chain_slack"}
# pmu/audit/ledger.h: the sources that can say a window was disturbed.
LEDGER_SOURCES = {"smi_count", "smi_event", "frequency", "thermal", "package_thermal", "nmi"}
NMI_COUNTS = ("unclaimed NMIs", "context switches and interrupts")
# A figure with fewer samples than wanted ran out of budget: "disturbed" when most of it went on disturbed samples.
EXHAUSTED = {"budget", "disturbed", "contended"}
REJECT_KEYS = {"negative", "n_2n", "below_chain", "clock"}
UNSTABLE = {None, "budget", "outliers", "spread", "disturbed", "contended"}
CHECK_KEYS = {"kernel", "variant", "control", "arena", "what", "status"}
CHECK_STATUSES = ("pass", "fail", "skip", "unstable")
# bench/stats.h: an outlier lies more than 3.5 modified z-scores (0.6745 |x - median| / MAD) from the median,
# with the MAD never below 1% of |median| nor 0.001 (and the resolution, which only widens the band).
OUTLIER_Z = 3.5
MAD_FLOOR = 0.01
ROUNDING = 0.0005       # records print figures to three decimals (docs/results-format.md)
CYCLES_SOURCES = {"fixed_counter", "pmc", "aperf", "tsc_calibrated", "tsc"}
# The memory ladder's kernels (bench/src_ladder.c): variants made at run time, in arenas of their own.
MEMORY_KERNELS = {"latency", "tlb", "bandwidth"}
# The built-in kernels (bench/kernels.c), beside the memory ladder's kinds.
BUILT_IN = ("ref", "store_forward", "alias_4k", "split")


def records(stdout):
    return [json.loads(l[len(PREFIX):]) for l in stdout.splitlines() if l.startswith(PREFIX)]


def run(ctx, *opts):
    p = ctx.run_host("run", *opts, check=True)
    recs = records(p.stdout)
    assert recs and recs[-1]["type"] == "end" and recs[-1]["status"] == "ok", p.stdout[-2000:]
    return recs


def check_figure(f, where, time=False):
    """A figure is well-formed and valid: min and max lie within the outlier rule or the figure says
    which samples did not (outliers, kept apart); time figures are never negative."""
    assert isinstance(f, dict) and set(f) == FIGURE_KEYS, (where, f)
    assert f["min"] <= f["median"] <= f["max"], (where, f)
    assert f["q1"] <= f["median"] <= f["q3"] and f["mad"] >= 0, (where, f)
    # No sample kept is a figure too, but only an unstable one.
    assert isinstance(f["n"], int) and (f["n"] > 0 or f["unstable"] in EXHAUSTED), (where, f)
    assert 0 <= f["outliers"] <= max(f["n"] - 1, 0) and f["rejected"] >= 0, (where, f)
    assert f["unstable"] in UNSTABLE, (where, f)
    # The band min..max may not reach past the rule computed from the figure's own MAD (plus rounding).
    # The harness also never lets the MAD fall below the samples' resolution (their smallest step): with an
    # odd count that step is at most the MAD, with an even one (median between two samples) twice it.
    # Every figure is printed to three decimals: the MAD read back may be up to half a thousandth below the
    # harness's own, which the rule multiplies by 3.5/0.6745 (and the min and median each carry half another).
    mad = f["mad"] + ROUNDING
    scale = max(mad * (1 if f["n"] % 2 else 2), abs(f["median"]) * MAD_FLOOR, 0.001)
    band = OUTLIER_Z / 0.6745 * scale + 2 * ROUNDING
    if f["mad"] > 0:
        assert f["median"] - f["min"] <= band and f["max"] - f["median"] <= band or f["unstable"], (where, f)
    if f["outliers"]:
        assert f["outlier_min"] is not None and f["outlier_max"] is not None, (where, f)
        assert f["outlier_min"] < f["min"] or f["outlier_max"] > f["max"], (where, f)
    else:
        assert f["outlier_min"] is None and f["outlier_max"] is None, (where, f)
    if time:
        assert f["min"] >= 0 and (f["outlier_min"] is None or f["outlier_min"] >= 0), (where, f)


def check_bench(b, setup):
    where = f"{b.get('kernel')}.{b.get('variant')}"
    assert BENCH_KEYS <= set(b), (where, sorted(BENCH_KEYS - set(b)))
    assert b["method"] == "differential_n_2n", b
    # Adaptive iterations: the option is the floor; above it, the pilot's N run reached the target (or the
    # budget capped it), and the kept samples' runs span about as many ticks.
    adaptive = setup.get("adaptive") or {}
    assert b["iterations_min"] == setup["iterations"], b
    # Below the floor only where a process's window cannot hold the tick off: cut to fit it (then a cap).
    assert b["iterations"] >= setup["iterations"] or b["iterations_window"], b
    if b["iterations_window"]:
        # Cut to fit the platform's window (test_stats_harness.c holds the cut to its ticks on the fake clock).
        assert adaptive.get("window_ticks") and b["iterations_capped"] and b["pilot_ticks"] > 0, (b, adaptive)
    assert b["iterations"] % setup["unroll"] == 0, b
    if adaptive.get("on") and b["iterations"] > setup["iterations"]:
        # A pilot (or, when the samples spanned less than 9/10 of the target, the samples themselves) chose the
        # count; how close its ticks came to the target is a timing, judged by the harness's unit test on the
        # fake clock (tests/unit/test_stats_harness.c), not here.
        assert b["pilot_ticks"] > 0, b
    elif not adaptive.get("on"):
        assert b["iterations"] == setup["iterations"], b
    assert b["reps"] == setup["reps"], b
    assert isinstance(b["dropped"], int) and b["dropped"] >= 0, b
    # Every disturbed sample is counted under at least one source; disturbed and contended samples are taken
    # again unless one ended the budget.
    assert set(b["disturbed"]) == LEDGER_SOURCES and sum(b["disturbed"].values()) >= b["dropped"], b
    assert isinstance(b["contended"], int) and b["contended"] >= 0, b
    thrown = b["dropped"] + b["contended"]
    assert 0 <= b["retaken"] <= thrown and (b["exhausted"] or b["retaken"] == thrown), b
    # The ledger names what it reads and why the rest is absent, and what its NMI count counts (image: NMIs;
    # pmuboot-host, which cannot mask interrupts: context switches and interrupts).
    led = b["ledger"]
    assert set(led["sources"]) | set(led["absent"]) == LEDGER_SOURCES and not set(led["sources"]) & set(led["absent"]), led
    assert "nmi" in led["sources"] and led["nmi_counts"] in NMI_COUNTS, led
    assert all(isinstance(why, str) and why for why in led["absent"].values()), led
    assert set(b["rejected"]) == REJECT_KEYS and all(v >= 0 for v in b["rejected"].values()), b
    if b["tsc"] is None:
        # No sample kept: no figure at all, never zeros; the record says why (issue: nothing invalid printed).
        assert b["exhausted"] and b["cycles"] is None and b["sample_ticks"] is None, b
        assert b["cycles_invalid"] == "no sample was kept" and b["problem"], b
        assert b["events"] == {} and b["instructions"] is None, b
        assert "memory" not in b or b["memory"]["ns"] is None, b
        return
    check_figure(b["tsc"], where + " tsc", time=True)
    if b["cycles"] is None:
        assert isinstance(b["cycles_invalid"], str) and b["cycles_invalid"], b
    else:
        check_figure(b["cycles"], where + " cycles", time=True)
        assert b["cycles"]["n"] == b["reps"] or (b["exhausted"] and b["cycles"]["unstable"] in EXHAUSTED), b
        assert b["unstable"] == b["cycles"]["unstable"], b
    # Every rejection is one the rules name, and the figure counts its own.
    assert b["tsc"]["rejected"] <= sum(b["rejected"].values()), b
    # Nothing faster than the kernel's dependency chain, less the slack the record says it was judged with
    # (at most 10%): each sample's cycles are its own ticks times its own calibration, so min is a sample.
    if b["chain_min"] is not None and b["cycles_source"] != "tsc" and b["cycles"] is not None:
        assert 0 < b["chain_slack"] <= 0.1, b
        if b["cycles_source"] == "tsc_calibrated" and b["calibration"]["per_sample"]:
            assert b["cycles"]["min"] >= b["chain_min"] * (1 - b["chain_slack"]) - 0.001, b
        else:
            assert b["cycles"]["min"] >= b["chain_min"] * 0.8 - 0.001, b
    assert b["cycles_source"] in CYCLES_SOURCES, b
    if b["cycles_source"] == "tsc_calibrated":
        assert b["calibration"]["source"] in ("harness_add_chain", "timing") and b["calibration"]["core_per_tsc"] > 0, b
    assert isinstance(b["events"], dict), b
    for name, f in b["events"].items():
        check_figure(f, f"{where} {name}", time=True)  # counts are never negative either
    if b["control"] is None:
        assert b["penalty"] is None, b
    elif b["penalty"] is None:
        # No penalty is printed when either side has no valid figure: the record says why.
        assert b["penalty_why"], b
    else:
        pen = b["penalty"]
        assert set(pen) == {"median", "low", "high"} and pen["low"] <= pen["median"] <= pen["high"], b
    if b["kernel"] == "split":
        assert b["arena"] in {a["name"] for a in setup["arenas"]}, (b, setup["arenas"])
        # The split addresses sit where the table says: 4 bytes before a page or a line boundary.
        want = {"aligned": "0xf80", "line": "0xfbc", "page": "0xffc"}[b["variant"].split("_")[1]]
        assert b["page_offset"] == want, b
    elif b["kernel"] in MEMORY_KERNELS:
        # The memory ladder runs in its own arenas (bench_setup.ladder) and says how big its ring or set is.
        lad = setup["ladder"]["bandwidth" if b["kernel"] == "bandwidth" else b["kernel"]]
        assert lad is not None and b["arena"] in ("1g", "2m", "4k") and b["memory"]["size"] > 0, (b, lad)
        assert b["memory"]["arena_size"] >= b["memory"]["size"], b
    else:
        assert b["arena"] is None and b["arena_page"] is None, b
    assert b["body"], b
