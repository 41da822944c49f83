"""Host: the benchmark kernels on this machine's real core (pmuboot-host run).

Asserts only what holds on any x86 silicon, whatever the load on the machine:
a load wider than the store it reads cannot forward, so the size-mismatch
variant is at least 3 cycles per iteration slower than the forwarding
control (published figures are 11-21 cycles); and every record is complete
and well-formed.  Figures themselves are for `make bench` to print.
"""
import json
import os
import subprocess
import sys

PREFIX = "@pmuboot "

FIGURE_KEYS = {"min", "median", "max", "n"}
BENCH_KEYS = {"kernel", "variant", "control", "arena", "arena_page", "page_crossed", "page_offset", "iterations", "reps",
              "dropped", "exhausted", "interrupts_off", "method", "cycles", "cycles_source", "calibration", "tsc",
              "instructions", "events", "passes", "penalty", "expect", "emulated", "body", "problem"}
CHECK_KEYS = {"kernel", "variant", "control", "arena", "what", "status"}
CYCLES_SOURCES = {"fixed_counter", "pmc", "aperf", "tsc_calibrated", "tsc"}


def records(stdout):
    return [json.loads(l[len(PREFIX):]) for l in stdout.splitlines() if l.startswith(PREFIX)]


def run(ctx, *opts):
    p = ctx.run_host("run", *opts, check=True)
    recs = records(p.stdout)
    assert recs and recs[-1]["type"] == "end" and recs[-1]["status"] == "ok", p.stdout[-2000:]
    return recs


def check_figure(f, where):
    assert isinstance(f, dict) and set(f) == FIGURE_KEYS, (where, f)
    assert f["min"] <= f["median"] <= f["max"], (where, f)
    assert isinstance(f["n"], int) and f["n"] > 0, (where, f)


def check_bench(b, setup):
    where = f"{b.get('kernel')}.{b.get('variant')}"
    assert BENCH_KEYS <= set(b), (where, sorted(BENCH_KEYS - set(b)))
    assert b["method"] == "differential_n_2n", b
    assert b["iterations"] == setup["iterations"] and b["iterations"] % setup["unroll"] == 0, b
    assert b["reps"] == setup["reps"], b
    assert isinstance(b["dropped"], int) and b["dropped"] >= 0, b
    check_figure(b["cycles"], where + " cycles")
    check_figure(b["tsc"], where + " tsc")
    assert b["cycles"]["n"] == b["reps"] or b["exhausted"], b
    assert b["cycles_source"] in CYCLES_SOURCES, b
    if b["cycles_source"] == "tsc_calibrated":
        assert b["calibration"]["source"] in ("harness_add_chain", "timing") and b["calibration"]["core_per_tsc"] > 0, b
    assert isinstance(b["events"], dict), b
    for name, f in b["events"].items():
        check_figure(f, f"{where} {name}")
    if b["control"] is None:
        assert b["penalty"] is None, b
    else:
        pen = b["penalty"]
        assert set(pen) == {"median", "low", "high"} and pen["low"] <= pen["median"] <= pen["high"], b
    if b["kernel"] == "split":
        assert b["arena"] in {a["name"] for a in setup["arenas"]}, (b, setup["arenas"])
        # The split addresses sit where the table says: 4 bytes before a page or a line boundary.
        want = {"aligned": "0xf80", "line": "0xfbc", "page": "0xffc"}[b["variant"].split("_")[1]]
        assert b["page_offset"] == want, b
    else:
        assert b["arena"] is None and b["arena_page"] is None, b
    assert b["body"], b


def test_size_mismatch_is_slower_than_forwarding(ctx):
    recs = run(ctx, "bench=store_forward.size_mismatch", "iterations=2000", "reps=15")
    fig = {r["variant"]: r["cycles"] for r in recs if r["type"] == "bench"}
    assert set(fig) == {"add_chain", "load_chain", "forward", "size_mismatch"}, sorted(fig)
    pen = fig["size_mismatch"]["median"] - fig["forward"]["median"]
    assert pen >= 3.0, f"size-mismatch {fig['size_mismatch']} vs forward {fig['forward']}: penalty {pen:.3f} < 3"
    # The bench record states the same penalty against its control.
    sm = next(r for r in recs if r["type"] == "bench" and r["variant"] == "size_mismatch")
    assert sm["control"] == "forward" and abs(sm["penalty"]["median"] - pen) < 0.002, sm


def test_every_record_complete(ctx):
    recs = run(ctx)  # the defaults: every benchmark
    setup = [r for r in recs if r["type"] == "bench_setup"]
    assert len(setup) == 1, setup
    setup = setup[0]
    assert setup["method"] == "differential_n_2n" and setup["unroll"] > 0, setup
    assert setup["arenas"], setup
    benches = [r for r in recs if r["type"] == "bench"]
    for b in benches:
        check_bench(b, setup)
    kernels = {b["kernel"] for b in benches}
    assert {"ref", "store_forward", "alias_4k", "split"} <= kernels, kernels
    # Reference kernels come first, and every split variant once per arena.
    assert [b["variant"] for b in benches[:2]] == ["add_chain", "load_chain"], benches[:2]
    split = [b for b in benches if b["kernel"] == "split"]
    assert len(split) == len({b["variant"] for b in split}) * len(setup["arenas"]), [b["variant"] for b in split]
    assert len(benches) == setup["variants"] - len({b["variant"] for b in split}) + len(split), setup
    # A variant's control is measured before it.
    seen = set()
    for b in benches:
        if b["control"]:
            assert (b["kernel"], b["control"], b["arena"]) in seen, b
        seen.add((b["kernel"], b["variant"], b["arena"]))
    for c in (r for r in recs if r["type"] == "check"):
        assert CHECK_KEYS <= set(c) and c["status"] in ("pass", "fail", "skip"), c
        assert (c["kernel"], c["variant"], c["arena"]) in seen, c
    # A dropped or exhausted sample is accounted for, never silent.
    assert all(b["cycles"]["n"] + b["dropped"] >= b["reps"] for b in benches)


def test_unknown_benchmark_and_bad_event_are_errors(ctx):
    p = ctx.run_host("run", "bench=store_forward.nope,ref", "events=event=0xzz", "reps=3")
    recs = records(p.stdout)
    errors = [r for r in recs if r["type"] == "error"]
    assert any(e["what"] == "bench" and "store_forward.nope" in e["message"] for e in errors), errors
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "error", recs[-1]
    # The run went on: the reference kernels were measured.
    assert [r["variant"] for r in recs if r["type"] == "bench"] == ["add_chain", "load_chain"]


def test_bench_table_prints_every_variant(ctx):
    p = subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "bench-table.py"), ctx.host,
                        "iterations=400", "reps=5", "warmup=1"], capture_output=True, text=True, timeout=300)
    out = p.stdout
    # 0 only when every target was met; 2 exactly when one says MISS.
    missed = "[MISS]" in out
    assert p.returncode == (2 if missed else 0), (p.returncode, p.stderr[-1500:], out[-1500:])
    assert "spread above 2%" in out and "dropped N" in out, out[-3000:]
    for name in ("ref.add_chain", "store_forward.size_mismatch", "alias_4k.same_offset", "split.store_page"):
        assert name in out, out[-3000:]
    assert "Targets" in out and "spread within 2%" in out and "add chain 1.00" in out, out[-3000:]
