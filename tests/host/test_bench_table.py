"""tools/bench-table.py (`make bench`): its published figures, keyed by event-set keys of events/sets.csv,
the one list of them, and found through the event set identification names in the cpu record (no model
table of its own); and its judging, on synthetic tables (no timing is judged here): which variants are held at
2% and which against the independent probe's spread (at their size, or on the same store and load), what the probe is
asked to run, how its spread is read for a figure of pmuboot's sample count, the reference chains, the
ladder beside the probe, and the exit status over a whole table."""
import importlib.util
import json
import os
import stat
import subprocess
import sys
import tempfile

KIB, MIB = 1 << 10, 1 << 20


def bench_table(ctx):
    spec = importlib.util.spec_from_file_location("bench_table", os.path.join(ctx.root, "tools", "bench-table.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_key_is_a_set(ctx):
    bt = bench_table(ctx)
    assert bt.check_keys() == []
    assert not hasattr(bt, "CORES"), "a family/model table of its own would be a second copy of cpu/uarch.csv"


def test_a_key_sets_csv_lacks_is_named(ctx):
    bt = bench_table(ctx)
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "events"))
        with open(os.path.join(ctx.root, "events", "sets.csv"), encoding="utf-8") as f:
            text = f.read()
        assert "\njaketown," in text
        with open(os.path.join(d, "events", "sets.csv"), "w", encoding="utf-8") as f:
            f.write(text.replace("\njaketown,", "\nsandybridge_ep,"))
        assert bt.check_keys(d) == ["jaketown"]


def test_the_figure_follows_the_identified_set(ctx):
    bt = bench_table(ctx)
    cases = {"skylake": "skylake", "cascadelakex": "skylake", "sapphirerapids": "goldencove",
             "goldencove": "goldencove", "elkhartlake": "tremont", "zen4": "zen4",
             # an E-core of a hybrid part, an unlisted model (generic set) and no set: no figure
             "gracemont": None, "intel_arch": None, None: None}
    for event_set, want in cases.items():
        assert bt.core_key({"event_set": event_set, "vendor": "intel", "family": "0x6", "model": "0x97"}) == want, \
            (event_set, want)


CACHE = {"type": "cache", "levels": [
    {"level": 1, "type": "data", "size": 48 * KIB},
    {"level": 1, "type": "instruction", "size": 4 * MIB},      # not data: ignored
    {"level": 2, "type": "unified", "size": 2 * MIB},
    {"level": 3, "type": "unified", "size": 260 * MIB}]}


def figure(median, q1=None, q3=None, n=11, unstable=None):
    """A cycles figure with the given quartiles (default: 1% spread)."""
    q1 = median * 0.995 if q1 is None else q1
    q3 = median * 1.005 if q3 is None else q3
    return {"median": median, "q1": q1, "q3": q3, "min": q1, "max": q3, "n": n, "outliers": 0,
            "outlier_min": None, "unstable": unstable}


def spread_figure(median, spread, **kw):
    return figure(median, median * (1 - spread / 2), median * (1 + spread / 2), **kw)


def point(kernel, variant, size, cycles, arena="2m", iterations=2000, **memory):
    return {"type": "bench", "kernel": kernel, "variant": variant, "arena": arena, "cpu": {"n": 1},
            "arena_page": 4096 if arena == "4k" else 2 * MIB, "iterations": iterations, "cycles": cycles,
            "memory": dict({"size": size}, **memory)}


def scalar(kernel, variant, cycles, iterations=2000):
    return {"type": "bench", "kernel": kernel, "variant": variant, "arena": None, "cycles": cycles,
            "iterations": iterations, "memory": None, "cpu": {"n": 1}}


def probe_of(bt, samples, ns=100.0):
    """A Probe whose differential samples are the given ones (what parse_probe makes of the probe's output)."""
    return bt.parse_probe(f"{ns} {samples[0]} 0.1 100.0 1.0\ndifferential {len(samples)} 0 "
                          + " ".join(str(x) for x in samples))


def samples_with_spread(median, spread, n=101):
    """n evenly spaced samples whose IQR / median is the given spread."""
    width = 2 * spread * median        # the IQR of evenly spaced samples is half their range
    return [median - width / 2 + width * i / (n - 1) for i in range(n)]


def test_every_memory_point_is_judged_by_the_probe_and_only_chains_without_a_buffer_at_two_percent(ctx):
    """The rule: a variant without a buffer is held at 2%, a store-forwarding chain of one store and one load
    beside the probe running the same pair, and every ladder, TLB and bandwidth point beside the probe at its
    size, the small ones too (an SMT sibling shares L1 and L2: no level is the core's alone)."""
    bt = bench_table(ctx)
    f = figure(5.0)
    assert bt.point_class(scalar("alias_4k", "same_offset", f)) == bt.CORE
    assert bt.point_class(scalar("ref", "add_chain", f)) == bt.CORE
    # store_forward's other variants (two stores, throughput, late address or data) are held at 2%.
    for variant in ("forward", "size_mismatch", "partial_overlap", "zmm_upper", "ymm_zmm"):
        assert bt.point_class(scalar("store_forward", variant, f)) == bt.FORWARD, variant
    for variant in ("two_stores", "forward_tput", "sta_unknown"):
        assert bt.point_class(scalar("store_forward", variant, f)) == bt.CORE, variant
    for size in (4 * KIB, 32 * KIB, 512 * KIB, 1 * MIB, 1792 * KIB, 64 * MIB):
        assert bt.point_class(point("latency", "x", size, f)) == bt.PROBE, size
    assert bt.point_class(point("tlb", "512k", 512 * KIB, f, arena="4k")) == bt.PROBE
    assert bt.point_class(point("bandwidth", "read_l1", 24 * KIB, f, op="read")) == bt.PROBE
    assert bt.point_class(point("bandwidth", "read_l2", 1 * MIB, f, op="read")) == bt.PROBE


def test_the_probe_runs_the_same_access_size_pages_and_units(ctx):
    bt = bench_table(ctx)
    f = figure(5.0)
    assert bt.probe_request(point("latency", "8m", 8 * MIB, f, iterations=437)) == ("chase", "2m", 8 * MIB, 432)
    assert bt.probe_request(point("tlb", "8m", 8 * MIB, f, arena="4k")) == ("chase", "4k", 8 * MIB, 2000)
    # Bandwidth: the op's stream over the record's bytes (a copy's are both halves), 256-byte units.
    assert bt.probe_request(point("bandwidth", "copy_l3", 130 * MIB, f, op="copy")) == ("copy", "2m", 130 * MIB, 2000)
    assert bt.probe_request(point("bandwidth", "write_nt_dram", 2048 * MIB, f)) == ("write_nt", "2m", 2048 * MIB, 2000)
    assert bt.probe_request(point("latency", "4k", 4 * KIB, f, iterations=0)).units == 8
    assert bt.probe_request(scalar("split", "load_line", f)) is None
    # A forwarding chain: the same store and load widths and offset (bench/kernels.c), as many pairs per N run.
    assert bt.probe_request(scalar("store_forward", "zmm_upper", f, iterations=4437)) == \
        ("forward-64-32-32", "2m", bt.FORWARD_BYTES, 4432)
    assert bt.probe_request(scalar("store_forward", "partial_overlap", f)).kind == "forward-8-8-4"
    assert bt.probe_request(scalar("store_forward", "size_mismatch", f)).kind == "forward-4-8-0"
    assert bt.probe_request(scalar("store_forward", "two_stores", f)) is None


def test_spreads_use_numpys_quartiles(ctx):
    bt = bench_table(ctx)
    assert bt.spread_of([1, 2, 3, 4, 5]) == 2 / 3
    assert abs(bt.spread_of([1, 2, 3, 4]) - (3.25 - 1.75) / 2.5) < 1e-12
    assert bt.spread_of([]) is None and bt.spread_of([0, 0, 0]) is None


def test_the_probes_spread_is_read_for_a_figure_of_pmuboots_sample_count(ctx):
    """An 11-sample IQR scatters around the distribution's: the probe's spread for such a figure is the 99th
    percentile over random 11-subsets of its samples, never below its pooled spread's neighbourhood and
    reproducible."""
    bt = bench_table(ctx)
    xs = samples_with_spread(100.0, 0.05)
    pooled = bt.spread_of(xs)
    assert abs(pooled - 0.05) < 1e-9
    fig = bt.figure_spread(xs, 11)
    assert pooled < fig < 3 * pooled, (pooled, fig)
    assert bt.figure_spread(xs, 11) == fig                     # a fixed seed
    assert bt.figure_spread([7.0] * 101, 11) == 0               # a steady machine allows nothing
    assert bt.figure_spread(xs[:10], 11) is None                # too few samples for such a figure
    # More samples per figure scatter less.
    assert bt.figure_spread(xs, 51) < fig


def test_the_probes_output_is_read_or_refused(ctx):
    bt = bench_table(ctx)
    p = bt.parse_probe("150.8 460.1 0.2 100.0 6.1\ndifferential 3 4 459.0 460.0 470.0\n")
    assert p.ns == 150.8 and p.cycles == 460.1 and p.kept == 3 and p.retaken == 4 and p.huge == 100.0
    assert p.median == 460.0 and p.samples == [459.0, 460.0, 470.0]
    assert bt.parse_probe("150.8 460.1 0.2 100.0 6.1\ndifferential 4 0 1 2 3").startswith("unreadable")
    assert bt.parse_probe("150.8 460.1 0.2 100.0 6.1\n").startswith("unreadable")
    assert bt.parse_probe("").startswith("unreadable")


def test_core_variants_are_held_at_two_percent(ctx):
    bt = bench_table(ctx)
    ok = bt.judge_spread(scalar("alias_4k", "same_offset", spread_figure(12.0, 0.019)), bt.CORE)
    assert ok.ok and ok.allowed == 0.02
    miss = bt.judge_spread(scalar("alias_4k", "same_offset", spread_figure(12.0, 0.021)), bt.CORE)
    assert not miss.ok and miss.allowed == 0.02
    # Unstable is a miss whatever its spread; so is no figure.
    v = bt.judge_spread(scalar("store_forward", "forward_tput", spread_figure(0.5, 0.01, unstable="outliers")), bt.CORE)
    assert not v.ok and "unstable (outliers)" in v.why
    v = bt.judge_spread(dict(scalar("ref", "add_chain", None), cycles_invalid="no sample kept"), bt.CORE)
    assert not v.ok and "no sample kept" in v.why
    # A probe figure never loosens a core variant.
    wide = probe_of(bt, samples_with_spread(7.0, 0.30))
    assert not bt.judge_spread(scalar("alias_4k", "same_offset", spread_figure(12.0, 0.03)), bt.CORE, wide).ok


def test_forwarding_chains_are_held_at_the_spread_of_the_same_pair_run_by_the_probe(ctx):
    """A store-forwarding chain whose samples vary of themselves (the vector ones on Raptor Cove) is allowed what
    the probe's run of the same store and load varies by for a figure of its sample count, never less than 2%;
    without the probe's figure it is not judged, which is a miss."""
    bt = bench_table(ctx)
    at = lambda s, **kw: scalar("store_forward", "zmm_upper", spread_figure(7.0, s, **kw))     # noqa: E731
    varying = probe_of(bt, samples_with_spread(7.0, 0.03))
    allowed = bt.figure_spread(varying.samples, 11)
    assert allowed > 0.03
    v = bt.judge_spread(at(allowed * 0.99), bt.FORWARD, varying)
    assert v.ok and v.allowed == allowed and "probe" in v.why
    assert not bt.judge_spread(at(allowed * 1.01), bt.FORWARD, varying).ok
    # A steady pair allows 2%, as in the core.
    steady = probe_of(bt, samples_with_spread(7.0, 0.002))
    assert bt.judge_spread(at(0.019), bt.FORWARD, steady).ok
    v = bt.judge_spread(at(0.021), bt.FORWARD, steady)
    assert not v.ok and v.allowed == 0.02
    # Contended samples are no shape of the machine: a miss whatever the probe says.
    v = bt.judge_spread(at(0.01, unstable="contended"), bt.FORWARD, varying)
    assert not v.ok and "contended" in v.why
    v = bt.judge_spread(at(0.001), bt.FORWARD, "exited 2: chase_probe: KIND 'forward-64-32-32' needs vector state")
    assert not v.ok and v.allowed is None and "for this chain" in v.why, v


def test_points_past_the_core_are_held_at_the_probes_spread(ctx):
    bt = bench_table(ctx)
    probe = probe_of(bt, samples_with_spread(450.0, 0.08))
    allowed = bt.figure_spread(probe.samples, 11)
    assert allowed > 0.08
    at = lambda s, **kw: point("latency", "32m", 32 * MIB, spread_figure(450.0, s, **kw))     # noqa: E731
    v = bt.judge_spread(at(allowed * 0.99), bt.PROBE, probe)
    assert v.ok and v.allowed == allowed and "probe" in v.why
    v = bt.judge_spread(at(allowed * 1.01), bt.PROBE, probe)
    assert not v.ok and v.allowed == allowed
    # A machine steadier than 2% leaves the 2% target.
    steady = probe_of(bt, samples_with_spread(450.0, 0.002))
    assert bt.judge_spread(at(0.019), bt.PROBE, steady).ok
    v = bt.judge_spread(at(0.021), bt.PROBE, steady)
    assert not v.ok and v.allowed == 0.02
    # pmuboot's own `spread` and `outliers` are shapes the probe's spread judges; too few samples is a miss.
    assert bt.judge_spread(at(0.12, unstable="spread"), bt.PROBE, probe_of(bt, samples_with_spread(450.0, 0.10))).ok
    assert bt.judge_spread(at(0.05, unstable="outliers"), bt.PROBE, probe).ok
    for why in ("budget", "disturbed"):
        v = bt.judge_spread(at(0.05, unstable=why), bt.PROBE, probe)
        assert not v.ok and why in v.why
    # Not judged without the probe at that size in this run: a miss, never a pass.
    v = bt.judge_spread(at(0.001), bt.PROBE, "exited 1: chase_probe: no memory")
    assert not v.ok and v.allowed is None and "no memory" in v.why
    assert not bt.judge_spread(at(0.001), bt.PROBE, None).ok
    assert not bt.judge_spread(at(0.001), bt.PROBE, probe_of(bt, samples_with_spread(450.0, 0.08, n=9))).ok


def test_the_agreement_points_are_probed_before_the_run_only_when_it_measures_the_ladder(ctx):
    bt = bench_table(ctx)
    assert bt.ladder_chosen([]) and bt.ladder_chosen(["reps=5", "bench=all"])
    assert bt.ladder_chosen(["bench=ref,latency"]) and bt.ladder_chosen(["bench=latency.16k"])
    assert not bt.ladder_chosen(["bench=ref,store_forward"]) and not bt.ladder_chosen(["bench=tlb"])
    assert bt.ladder_chosen(["bench=none", "bench=all"]) and not bt.ladder_chosen(["bench=all", "bench=split"])


def user_run(**medians):
    """Records of a run of the worked examples: {name: median}, None for no figure, "skip" for skipped."""
    recs = []
    for name, m in medians.items():
        if m == "skip":
            recs.append({"type": "check", "what": "runs", "status": "skip", "kernel": "user", "variant": name,
                         "reason": "needs avx, not usable here"})
        elif name == "builtin":
            recs.append(scalar("store_forward", "size_mismatch", figure(m) if m is not None else None))
        else:
            recs.append(scalar("user", name, figure(m) if m is not None else None))
    return recs


GOOD = dict(add_chain=1.0, sf_forward=0.5, sf_size_mismatch=20.0, builtin=19.8, alias_line=5.0, alias_4k=12.0,
            div_lat=15.0, vaddps_chain=2.0)


def test_the_worked_examples_show_what_docs_kernels_expects(ctx):
    bt = bench_table(ctx)
    got = bt.judge_user(user_run(**GOOD))
    assert [ok for _, _, ok, _ in got] == [True] * len(bt.USER_EXPECTED), got
    names = {n for n, *_ in bt.USER_EXPECTED}
    assert names == {os.path.splitext(f)[0] for f in os.listdir(os.path.join(ctx.root, "docs", "kernels"))
                     if f.endswith(".s")} - {"sf_forward"}, names
    # Where AVX is not usable the vaddps chain is skipped: n/a, not a miss.
    got = {(n, w): ok for n, w, ok, _ in bt.judge_user(user_run(**dict(GOOD, vaddps_chain="skip")))}
    assert got[("vaddps_chain", "the FP-add latency (AVX)")] is None and list(got.values()).count(None) == 1

    def missed(**change):
        return sorted(n for n, _, ok, _ in bt.judge_user(user_run(**dict(GOOD, **change))) if ok is False)
    assert missed(add_chain=1.011) == ["add_chain"] and missed(add_chain=0.989) == ["add_chain"]
    assert missed(sf_size_mismatch=2.9) == ["sf_size_mismatch", "sf_size_mismatch"]    # both its expectations
    assert missed(builtin=21.2) == ["sf_size_mismatch"] and missed(builtin=20.9) == []
    assert missed(alias_line=1.9) == ["alias_line"] and missed(alias_line=8.1) == ["alias_line"]
    assert missed(alias_4k=5.0) == ["alias_4k"]
    assert missed(div_lat=2.5) == ["div_lat"] and missed(vaddps_chain=1.9) == ["vaddps_chain"]
    assert missed(vaddps_chain=6.5) == ["vaddps_chain"]
    # No figure is a miss, never a pass.
    assert missed(div_lat=None) == ["div_lat"]
    assert missed(builtin=None) == ["sf_size_mismatch"]
    # The store forwarding's two modes: the user copy beside the nearer of the take's two built-in figures.
    def beside(user, own, elsewhere):
        got = bt.judge_user(user_run(**dict(GOOD, sf_size_mismatch=user, builtin=own)), elsewhere)
        return next((ok, text) for n, w, ok, text in got if n == "sf_size_mismatch" and "user copy" in w)
    ok, text = beside(20.0, 16.6, 19.9)
    assert ok and "19.900 cycles in the bench=all run" in text and "16.600 in its run" in text, text
    assert beside(16.6, 16.5, 20.0)[0] and beside(20.0, 20.1, 16.5)[0]
    assert not beside(20.0, 16.6, 16.7)[0] and not beside(18.5, 16.6, 20.0)[0]
    assert not beside(20.0, None, None)[0] and beside(20.0, None, 20.2)[0]


def test_reference_chains_within_one_percent_of_their_integers(ctx):
    bt = bench_table(ctx)
    ref = lambda m: scalar("ref", "x", figure(m))      # noqa: E731
    assert bt.judge_reference(ref(1.009), 1)[0] and not bt.judge_reference(ref(1.011), 1)[0]
    assert not bt.judge_reference(ref(0.989), 1)[0]
    assert bt.judge_reference(ref(5.04)) == (True, 5, 5.04)
    assert bt.judge_reference(ref(4.94))[:2] == (False, 5)
    assert bt.judge_reference(ref(4.6))[:2] == (False, 5)    # nearest whole number, then 1% of it


def test_the_ladder_is_held_against_the_probe_at_the_issues_points(ctx):
    bt = bench_table(ctx)
    pts = bt.agreement_points([CACHE])
    assert pts == [("L1 16 KiB", 16 * KIB, "cycles", 0.03), ("L2 / 4", 512 * KIB, "cycles", 0.05),
                   ("last level / 4", 65 * MIB, "ns", 0.15)]
    two = {"type": "cache", "levels": [CACHE["levels"][0], {"level": 2, "type": "unified", "size": 1280 * KIB}]}
    assert bt.agreement_points([two]) == [("L1 16 KiB", 16 * KIB, "cycles", 0.03),
                                          ("L2 / 4", 320 * KIB, "cycles", 0.05)]
    l1 = point("latency", "16k", 16 * KIB, figure(5.0))
    assert bt.judge_agreement(l1, probe_of(bt, [5.1] * 21), "cycles", 0.03)[0]
    assert not bt.judge_agreement(l1, probe_of(bt, [5.2] * 21), "cycles", 0.03)[0]
    llc = point("latency", "65m", 65 * MIB, figure(480.0), ns={"median": 150.0})
    assert bt.judge_agreement(llc, probe_of(bt, [300.0] * 21, ns=170.0), "ns", 0.15)[0]      # ns, not cycles
    assert not bt.judge_agreement(llc, probe_of(bt, [480.0] * 21, ns=180.0), "ns", 0.15)[0]
    assert not bt.judge_agreement(llc, "did not run", "ns", 0.15)[0]
    # Probed right before and right after the run: the nearer counts, and a missing one is not a figure.
    assert bt.judge_agreement(l1, [probe_of(bt, [6.0] * 21), probe_of(bt, [5.1] * 21)], "cycles", 0.03)[0]
    assert not bt.judge_agreement(l1, [probe_of(bt, [6.0] * 21), "did not run"], "cycles", 0.03)[0]
    assert bt.judge_agreement(l1, ["did not run", probe_of(bt, [4.9] * 21)], "cycles", 0.03)[0]


def table(bt, zmm_spread=0.01, dram_spread=0.06):
    """A small synthetic run: the cache record, the reference chains, a vector variant, the issue's ladder points,
    an L2 boundary point, a DRAM point on 4 KiB pages and a bandwidth point."""
    return [CACHE,
            scalar("ref", "add_chain", figure(1.0)), scalar("ref", "load_chain", figure(5.0)),
            scalar("alias_4k", "same_offset", spread_figure(12.0, zmm_spread)),
            scalar("store_forward", "zmm_upper", spread_figure(7.0, 0.03), iterations=4437),
            point("latency", "16k", 16 * KIB, figure(5.0), ns={"median": 1.2}),
            point("latency", "512k", 512 * KIB, figure(17.8), ns={"median": 4.3}),
            point("latency", "1m", 1 * MIB, spread_figure(20.6, 0.04), ns={"median": 5.0}),
            point("latency", "65m", 65 * MIB, spread_figure(480.0, dram_spread), iterations=328, ns={"median": 150.0}),
            point("tlb", "8m", 8 * MIB, spread_figure(500.0, dram_spread), arena="4k", iterations=360),
            point("bandwidth", "read_dram", 2048 * MIB, spread_figure(48.0, dram_spread), op="read")]


def fake_probe(bt, calls, spread=0.05):
    """A probe_fn answering every request with samples of the given spread around a plausible median."""
    medians = {("chase", 16 * KIB): 5.0, ("chase", 512 * KIB): 17.8, ("chase", 65 * MIB): 480.0}

    def probe_fn(cpu, req):
        calls.append((cpu, req))
        bt_median = medians.get((req.kind, req.size), 100.0)
        xs = samples_with_spread(bt_median, spread)
        return bt.parse_probe(f"{150.0 if req.size == 65 * MIB else 4.0} {bt_median} 0.1 100.0 1.0\ndifferential "
                              f"{len(xs)} 0 " + " ".join(str(x) for x in xs))
    return probe_fn


def test_evaluate_probes_once_where_needed_and_judges_each_variant(ctx):
    bt = bench_table(ctx)
    calls = []
    ev = bt.evaluate(table(bt), fake_probe(bt, calls))
    sizes = sorted(req.size for _, req in calls if not req.kind.startswith("forward-"))
    # Every memory point, once each (the issue's three ladder points among them); never a variant without a buffer.
    assert sizes == sorted([16 * KIB, 512 * KIB, 1 * MIB, 65 * MIB, 8 * MIB, 2048 * MIB]), sizes
    assert all(cpu == 1 for cpu, _ in calls)
    assert {req.pages for _, req in calls if req.size == 8 * MIB} == {"4k"}
    assert ev.classes[("latency", "512k", "2m")] == bt.PROBE
    assert ev.classes[("alias_4k", "same_offset", None)] == bt.CORE
    assert all(v.ok for v in ev.verdicts.values()), ev.verdicts
    assert ev.verdicts[("latency", "65m", "2m")].allowed > 0.05
    assert ev.verdicts[("alias_4k", "same_offset", None)].allowed == 0.02
    # The forwarding chain: probed with its own pair, judged by that probe's spread (3% against 5%).
    assert ("forward-64-32-32", bt.FORWARD_BYTES, 4432) in [(r.kind, r.size, r.units) for _, r in calls]
    assert ev.verdicts[("store_forward", "zmm_upper", None)].allowed > 0.05
    assert [ok for *_, (ok, _) in ev.agreements] == [True, True, True]
    # The probe before the run stands beside the one after it at the agreement points.
    far = bt.parse_probe("9.0 9.0 0 100 1\ndifferential 3 0 9.0 9.0 9.0")
    ev = bt.evaluate(table(bt), fake_probe(bt, []), before={16 * KIB: far})
    assert ev.agreements[0][4][0] and "9.000 / 5.000" in ev.agreements[0][4][1], ev.agreements[0]
    # The same machine, a core variant over 2% and a DRAM point over what the probe allows.
    ev = bt.evaluate(table(bt, zmm_spread=0.03, dram_spread=0.40), fake_probe(bt, []))
    missed = sorted(k for k, v in ev.verdicts.items() if not v.ok)
    assert missed == [("alias_4k", "same_offset", None), ("bandwidth", "read_dram", "2m"), ("latency", "65m", "2m"),
                      ("tlb", "8m", "4k")], missed
    # A steady probe leaves the forwarding chain at 2%, which its 3% misses.
    ev = bt.evaluate(table(bt), fake_probe(bt, [], spread=0.001))
    assert not ev.verdicts[("store_forward", "zmm_upper", None)].ok


def write_exe(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run_tool(ctx, host, probe):
    """tools/bench-table.py over a stand-in host, with a stand-in probe written to `probe` whose medians the
    ladder agrees with at every size (5 cycles at 16 KiB, 17.8 at 512 KiB, 150 ns at 65 MiB)."""
    write_exe(probe, f"#!{sys.executable}\nimport sys\n"
              "m = {16384: 5.0, 524288: 17.8}.get(int(sys.argv[2]), 480.0)\n"
              "print(150.0, m, 0.1, 100.0, 1.0)\n"
              "print('differential 21 0', *(m * (0.85 + i * 0.015) for i in range(1, 22)))\n")
    return subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "bench-table.py"), host, f"probe={probe}"],
                          capture_output=True, text=True, timeout=120)


def whole_run(bt, zmm):
    """The records of a whole canned run on an Emerald Rapids: the table (its zmm_upper spread given) and the
    store-forward pair the published figure is held against."""
    recs = [{"type": "cpu", "vendor_string": "GenuineIntel", "family": "0x6", "model": "0xcf",
             "event_set": "emeraldrapids"}, {"type": "end", "status": "ok"}] + table(bt, zmm_spread=zmm)
    recs += [scalar("store_forward", "forward", figure(0.5)),
             dict(scalar("store_forward", "size_mismatch", figure(20.0)), penalty={"median": 19.5})]
    for r in recs:
        r.setdefault("cycles_source", "tsc_calibrated")
    return recs


def test_the_exit_status_and_the_target_of_each_variant(ctx):
    """The whole tool over a canned run (a stand-in pmuboot-host printing records, a stand-in probe printing
    samples): exit 0 when every target is met, 2 when one is missed, and each variant's line names its target."""
    bt = bench_table(ctx)
    with tempfile.TemporaryDirectory() as d:
        for name, zmm in (("met", 0.01), ("missed", 0.03)):
            recs = whole_run(bt, zmm)
            data = os.path.join(d, f"{name}.jsonl")
            with open(data, "w", encoding="utf-8") as f:
                f.write("".join("@pmuboot " + json.dumps(r) + "\n" for r in recs))
            host = os.path.join(d, f"host-{name}")
            user = os.path.join(d, "user.jsonl")
            with open(user, "w", encoding="utf-8") as f:
                f.write("".join("@pmuboot " + json.dumps(dict(r, cycles_source="tsc_calibrated")) + "\n"
                                for r in user_run(**GOOD)))
            # kernel build writes its -o file; a run with kernels= gives the examples' records; any other the table.
            write_exe(host, f"#!{sys.executable}\nimport sys\n"
                      "if sys.argv[1] == 'kernel':\n    open(sys.argv[-1], 'w').close()\n    sys.exit(0)\n"
                      f"path = {user!r} if any(a.startswith('kernels=') for a in sys.argv) else {data!r}\n"
                      "sys.stdout.write(open(path).read())\n")
            probe = os.path.join(d, "probe")
            p = run_tool(ctx, host, probe)
            want = 0 if name == "met" else 2
            assert p.returncode == want, (name, p.returncode, p.stdout[-3000:], p.stderr[-2000:])
            line = next(x for x in p.stdout.splitlines() if x.startswith("alias_4k.same_offset"))
            assert "2.0% core" in line and ("met" in line if name == "met" else "MISS" in line), line
            line = next(x for x in p.stdout.splitlines() if x.startswith("latency.65m"))
            assert "probe" in line and "met" in line, line
            line = next(x for x in p.stdout.splitlines() if x.startswith("store_forward.zmm_upper"))
            assert "fwd" in line and "met" in line, line


# Pairs a forwarding run of the probe makes in the test: 512 (0.2 us of forward-8-8-0's 0.5-cycle pairs) kept no
# sample of 202 under make test's load; 32768 make its runs about 8 us, forward-4-8-0's (20 cycles) 0.3 ms.
FORWARD_UNITS = 32768


def test_the_probe_runs_each_access_and_says_why_when_it_cannot(ctx):
    """The probe builds, runs every kind of access on both page sizes (figures only: none is judged here), and
    refuses bad arguments by name; bench-table says why instead of a figure."""
    bt = bench_table(ctx)
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "chase_probe")
        p = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-I", ctx.root, "-o", exe,
                            os.path.join(ctx.root, "tools", "probe", "chase_probe.c"),
                            os.path.join(ctx.root, "tools", "probe", "forward.c")], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        cpu = min(os.sched_getaffinity(0))
        # 512 units a run: at 64, write_nt's runs (16 KiB) were so short that under make test's load every
        # sample of 202 tries broke the N/2N bound and the probe kept none.
        for kind in ("chase", "read", "write", "write_nt", "copy"):
            for pages in ("2m", "4k"):
                got = bt.run_probe(exe, cpu, bt.ProbeRequest(kind, pages, 1 * MIB, 512))
                assert isinstance(got, bt.Probe), (kind, pages, got)
                assert got.kept == len(got.samples) and 1 <= got.kept <= bt.PROBE_REPS and got.median > 0, got
                assert (got.huge == 0) if pages == "4k" else got.huge >= 0, (kind, pages, got.huge)
        # The forwarding chains: the scalar ones on any x86-64; a vector one where this CPU and OS run it, else
        # refused by name.
        for kind in ("forward-8-8-0", "forward-4-8-0", "forward-8-8-4"):
            got = bt.run_probe(exe, cpu, bt.ProbeRequest(kind, "2m", 4096, FORWARD_UNITS))
            assert isinstance(got, bt.Probe) and got.kept >= 1 and got.median > 0, (kind, got)
        vec = bt.run_probe(exe, cpu, bt.ProbeRequest("forward-64-32-32", "2m", 4096, FORWARD_UNITS))
        assert isinstance(vec, bt.Probe) or "needs vector state" in vec, vec
        # The first line alone, with the four arguments tests/host/test_memory_ladder.py passes.
        p = subprocess.run([exe, str(cpu), str(MIB), "100", "21"], capture_output=True, text=True)
        assert p.returncode == 0 and len(p.stdout.splitlines()[0].split()) == 5, p
        # Bad arguments are refused by name (exit 2), and the table says so instead of a figure.
        for args, what in ((["64", "8", "1"], "BYTES"), (["1m", "8", "1"], "BYTES is not a number"),
                           ([str(MIB), "8", "1", "stride"], "KIND 'stride'"),
                           ([str(MIB), "8", "1", "read", "1g"], "PAGES '1g'"),
                           (["256", "8", "1", "copy"], "512 <= BYTES"),
                           (["4096", "8", "1", "forward-64-16-0"], "no chain for"),
                           (["4096", "8", "1", "forward-8-8-65"], "offset outside 0..64"),
                           (["4096", "8", "1", "forward-8-8"], "is not forward-S-L-OFF"),
                           (["4096", "12", "1", "forward-8-8-0"], "a multiple of 8"),
                           (["64", "8", "1", "forward-8-8-0"], "128 <= BYTES")):
            bad = subprocess.run([exe, str(cpu)] + args, capture_output=True, text=True)
            assert bad.returncode == 2 and what in bad.stderr, (args, bad)
        got = bt.run_probe(exe, cpu, bt.ProbeRequest("chase", "2m", 64, 100))
        assert got.startswith("exited 2: chase_probe: want"), got
    assert bt.run_probe(os.path.join(ctx.root, "no-such-probe"), 0, bt.ProbeRequest("chase", "2m", MIB, 100)) \
        .startswith("did not run")


def canned_takes(ctx, bt, d, takes):
    """Run the whole tool over a stand-in pmuboot-host whose main run prints takes[i] on its i-th call (the last
    one after that): each take a (zmm spread, chain_min of ref.add_chain) pair.  (returncode, stdout)."""
    paths = []
    for i, (zmm, chain) in enumerate(takes):
        recs = whole_run(bt, zmm)
        for r in recs:
            if (r.get("kernel"), r.get("variant")) == ("ref", "add_chain") and chain:
                r["chain_min"] = chain
        paths.append(os.path.join(d, f"take{i}.jsonl"))
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write("".join("@pmuboot " + json.dumps(r) + "\n" for r in recs))
    user = os.path.join(d, "user.jsonl")
    with open(user, "w", encoding="utf-8") as f:
        f.write("".join("@pmuboot " + json.dumps(dict(r, cycles_source="tsc_calibrated")) + "\n"
                        for r in user_run(**GOOD)))
    count = os.path.join(d, "count")
    host = os.path.join(d, "host")
    # Only the main run (bench=all) moves to the next take; the run that reads the cache record does not.
    write_exe(host, f"#!{sys.executable}\nimport os, sys\n"
              "if sys.argv[1] == 'kernel':\n    open(sys.argv[-1], 'w').close()\n    sys.exit(0)\n"
              f"if any(a.startswith('kernels=') for a in sys.argv):\n    sys.stdout.write(open({user!r}).read())\n"
              "    sys.exit(0)\n"
              f"paths = {paths!r}\n"
              f"n = int(open({count!r}).read()) if os.path.exists({count!r}) else 0\n"
              "if 'bench=all' in sys.argv:\n"
              f"    open({count!r}, 'w').write(str(n + 1))\n"
              "sys.stdout.write(open(paths[min(n, len(paths) - 1)]).read())\n")
    probe = os.path.join(d, "probe")
    p = run_tool(ctx, host, probe)
    runs = int(open(count).read()) if os.path.exists(count) else 0
    return p.returncode, p.stdout, runs


def test_a_target_whose_variants_gave_no_figure_is_a_miss_not_left_out(ctx):
    """A take in which the reference chain or a split pair kept no sample judges their targets as misses that say
    why; a later take with figures meets them (and says which take); with no figure in any take they stay misses.
    Before, such a target vanished from the run's targets when the first take had no figure for it."""
    bt = bench_table(ctx)

    def take(has_figures):
        def fig(variant, cycles, penalty=None):
            b = dict(scalar("split", variant, figure(cycles) if has_figures else None), arena="4k")
            b["penalty"] = {"median": penalty} if has_figures and penalty is not None else None
            if not has_figures:
                b["cycles_invalid"] = "no sample was kept"
            return b
        ref = dict(scalar("ref", "add_chain", figure(1.0) if has_figures else None), cycles_source="tsc_calibrated")
        if not has_figures:
            ref["cycles_invalid"] = "no sample was kept"
        benches = [ref, fig("load_aligned", 5.0), fig("load_line", 6.5, 1.5), fig("load_page", 12.0, 7.0)]
        by_key = {(b["kernel"], b["variant"], b.get("arena")): b for b in benches}
        return bt.Take(benches, benches, bt.Evaluation({}, {}, {}, {}, []), [], None, {}, {}, {}, by_key)

    empty = bt.judge_take(take(False))
    ids = {tid: (ok, text) for tid, _, ok, text in empty}
    assert ids["ref.add_chain"][0] is False and "no sample was kept" in ids["ref.add_chain"][1], ids
    assert ids["split.4k.load"][0] is False and "no sample was kept" in ids["split.4k.load"][1], ids
    later = bt.over_takes([empty, bt.judge_take(take(True))])
    for what in ("load page-split", "ref.add_chain"):
        ok, text = next((ok, text) for ok, text in later if text.startswith(what))
        assert ok is True and "(take 2; take 1: " in text and "no sample was kept" in text, (what, text)
    # A take that finds the core does not distinguish the splits (n/a) stands over one without figures.
    same = take(True)
    same.by_key[("split", "load_page", "4k")]["penalty"] = {"median": 1.6}
    ok, text = next((ok, text) for ok, text in bt.over_takes([empty, bt.judge_take(same)])
                    if text.startswith("load page-split"))
    assert ok is None and "does not distinguish" in text, (ok, text)
    never = [(ok, text) for ok, text in bt.over_takes([empty, empty, empty])
             if text.startswith(("load page-split", "ref.add_chain"))]
    assert len(never) == 2 and all(ok is False for ok, _ in never), never


def test_a_disturbed_take_is_retaken_and_a_persistent_miss_stays_a_miss(ctx):
    """The take rule: a spread missed in one take and met in the next is met (and says which take); missed in all
    three takes, it is a miss after exactly three; a take that meets everything ends the retakes; a figure below
    its dependency chain in any take is a miss even when another take is clean."""
    bt = bench_table(ctx)
    cases = (
        ("met at once", [(0.01, None)], 0, 1),
        ("met on the second take", [(0.05, None), (0.01, None)], 0, 2),
        ("missed in every take", [(0.05, None)], 2, 3),
        ("below its chain once", [(0.05, 1.2), (0.01, None)], 2, 2),
    )
    for name, takes, want, runs in cases:
        with tempfile.TemporaryDirectory() as d:
            rc, out, n = canned_takes(ctx, bt, d, takes)
        assert (rc, n) == (want, runs), (name, rc, n, out[-3000:])
        targets = out[out.index("Targets"):]
        spread_line = next(x for x in targets.splitlines() if "variants without a buffer" in x)
        if name == "met on the second take":
            assert "[met ]" in spread_line and "alias_4k.same_offset (5.00% > 2.00%) -> take 2" in spread_line, \
                spread_line
        if name == "missed in every take":
            assert "[MISS]" in spread_line and "over in every take for alias_4k.same_offset" in spread_line
            assert out.count("missed 1 target(s) a disturbance can miss") == 3, out
        if name == "below its chain once":
            line = next(x for x in targets.splitlines() if "dependency chain" in x)
            assert "[MISS]" in line and "ref.add_chain min" in line and "(take 1)" in line, line
