"""tools/bench-table.py's published figures: keyed by event-set keys of events/sets.csv, the one list
of them, and found through the event set identification names in the cpu record (no model table of
its own)."""
import importlib.util
import os
import subprocess
import tempfile


def bench_table(ctx):
    spec = importlib.util.spec_from_file_location("bench_table", os.path.join(ctx.root, "tools", "bench-table.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_key_is_a_set(ctx):
    bt = bench_table(ctx)
    assert bt.check_keys() == []
    assert not hasattr(bt, "CORES"), "a family/model table of its own would be a second copy of pmu/cpu/uarch.csv"


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


def test_shared_levels_are_told_apart_by_the_cache_record(ctx):
    """A variant whose buffer outgrows every cache below the last level is said to reach the shared level;
    the sizes come from the cache record, never from a table of the tool's own."""
    bt = bench_table(ctx)
    cache = {"type": "cache", "levels": [
        {"level": 1, "type": "data", "size": 48 << 10, "shared_by": 1},
        {"level": 1, "type": "instruction", "size": 4 << 20, "shared_by": 1},    # not data: ignored
        {"level": 2, "type": "unified", "size": 2 << 20, "shared_by": 1},
        {"level": 3, "type": "unified", "size": 480 << 20, "shared_by": 2}]}
    private = bt.private_bytes([{"type": "cpu"}, cache])
    assert private == 2 << 20
    assert not bt.reaches_shared({"memory": {"size": 2 << 20}}, private)
    assert bt.reaches_shared({"memory": {"size": (2 << 20) + 4096}}, private)
    assert not bt.reaches_shared({"kernel": "store_forward"}, private)      # no buffer: the core's own
    # A part whose last level is L2 (shared by a module's cores): L1 is the core's own.
    del cache["levels"][3]
    assert bt.private_bytes([cache]) == 48 << 10
    # One level only, or no cache record: nothing to tell apart.
    assert bt.private_bytes([{"type": "cache", "levels": [cache["levels"][0]]}]) is None
    assert bt.private_bytes([]) is None and not bt.reaches_shared({"memory": {"size": 1 << 30}}, None)


def test_the_iterations_mark_says_what_capped_them(ctx):
    bt = bench_table(ctx)
    assert bt.cap_mark({"iterations_capped": True, "iterations_window": True}) == "w"
    assert bt.cap_mark({"iterations_capped": True, "iterations_window": False}) == "*"
    assert bt.cap_mark({"iterations_capped": False}) == " "


def test_the_probe_points_are_the_missed_ladder_sizes_past_the_core(ctx):
    bt = bench_table(ctx)
    private = 2 << 20

    def lat(size, arena="2m"):
        v = f"{size >> 20}m" if size >= 1 << 20 else f"{size >> 10}k"
        return {"kernel": "latency", "variant": v, "arena": arena, "iterations": 512,
                "cycles": {"median": 100.0, "q1": 90.0, "q3": 110.0}, "memory": {"size": size}}
    sizes = [1 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30]
    benches = [lat(s) for s in sizes] + [{"kernel": "bandwidth", "variant": "read_dram", "arena": "2m",
                                          "cycles": {"median": 1.0}, "memory": {"size": 1 << 30}}]
    high = [(f"{b['kernel']}.{b['variant']}", b["arena"], 0.1) for b in benches]
    pts = [b["memory"]["size"] for b in bt.probe_points(benches, high, private)]
    # Past L2, not above the cap, the smallest and the largest kept, at most PROBE_POINTS, in order.
    assert pts[0] == 4 << 20 and pts[-1] == bt.PROBE_MAX_BYTES and len(pts) == bt.PROBE_POINTS, pts
    assert pts == sorted(set(pts)), pts
    # A point that met the target is not probed; with nothing missed, nothing at all.
    assert 4 << 20 not in [b["memory"]["size"] for b in bt.probe_points(benches, high[:1] + high[2:], private)]
    assert bt.probe_points(benches, [], private) == []


def test_the_probe_runs_and_says_why_when_it_cannot(ctx):
    bt = bench_table(ctx)
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "chase_probe")
        p = subprocess.run(["gcc", "-O2", "-Wall", "-o", exe, os.path.join(ctx.root, "tools", "probe", "chase_probe.c")],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        got = bt.run_probe(exe, 0, 1 << 20, 100)
        assert isinstance(got, tuple) and got[0] > 0 and got[1] >= 0, got
        # Bad arguments are refused by name (exit 2), and the table says so instead of a figure.
        bad = subprocess.run([exe, "0", "64", "8", "1"], capture_output=True, text=True)
        assert bad.returncode == 2 and "BYTES" in bad.stderr, bad
        bad = subprocess.run([exe, "0", "1m", "8", "1"], capture_output=True, text=True)
        assert bad.returncode == 2 and "BYTES is not a number" in bad.stderr, bad
        assert bt.run_probe(exe, 0, 64, 100).startswith("exited 2: chase_probe: want"), bt.run_probe(exe, 0, 64, 100)
    assert bt.run_probe(os.path.join(ctx.root, "no-such-probe"), 0, 1 << 20, 100).startswith("did not run")
