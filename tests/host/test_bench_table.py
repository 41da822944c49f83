"""tools/bench-table.py's published figures: keyed by event-set keys of events/sets.csv, the one list
of them, and found through the event set identification names in the cpu record (no model table of
its own)."""
import importlib.util
import os
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
