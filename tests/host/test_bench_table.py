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
