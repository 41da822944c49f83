"""pmucap plot as a newcomer reads it (issue 34): the default plot draws the memory ladder as a curve and
the bandwidth in bytes per cycle (not as cycles-per-iteration bars), marks an emulated run, unstable
figures and skipped variants, keeps its labels inside the axes, and writes files with the umask's mode.

What is drawn is asserted without matplotlib where it can be (build_panels, Memory); the picture
itself through the command, with an interpreter that has matplotlib (else the test skips).
"""
import os
import stat
import subprocess
import tempfile

import pmucap
from pmucap import capture, cmd_plot, ladder, plot_common
from testlib import plot_python, reframe_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERIAL = os.path.join(ROOT, "tests", "fixtures", "captures", "qemu-usb-serial.log")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
AVX512_WHY = "needs avx512f, not usable here: this processor does not have it (CPUID)"


def ladder_run(ctx):
    """A short host run with the ladder and a bandwidth point: (path, text)."""
    p = ctx.run_host("run", "bench=ref,latency.16k,latency.1m,tlb.1m,bandwidth.read_l1,bandwidth.copy_l1", "reps=3",
                     "warmup=1", "ibs=off", check=True)
    fd, path = tempfile.mkstemp(prefix="pmucap-plot-newcomer-", suffix=".log")
    with os.fdopen(fd, "w") as f:
        f.write(p.stdout)
    return path, p.stdout


def written(records):
    return reframe_file(records, "pmucap-plot-newcomer-")


def test_the_ladder_is_a_curve_and_bandwidth_bytes_per_cycle(ctx):
    path, text = ladder_run(ctx)
    try:
        run = capture.load_run(path)[0]
        panels = cmd_plot.build_panels([capture.bench_table(run)], "cycles")
        # No bar of a ladder point: no "4k@2m"-style rows, no bandwidth bars in cycles per iteration.
        drawn = {r.key.split(".")[0] for p in panels for r in p.rows}
        assert drawn == {"ref"}, drawn
        mem = cmd_plot.Memory([run])
        assert mem.panels() == 2
        lat = [pt for pt in ladder.points(run, "latency") if pt.cycles]
        assert [s for s, _ in mem.latency[0][("latency", "cycles")]] == sorted(pt.size for pt in lat)
        bw = {pt.op: pt for pt in ladder.points(run, "bandwidth")}
        for op in ("read", "copy"):
            (size, bpc, gbs, _), = mem.bandwidth[0][op]
            assert (size, bpc, gbs) == (bw[op].size, bw[op].bpc, bw[op].gbs)
            assert bpc > 0 and gbs > 0
        exe = plot_python()
        out = path + ".png"
        p = subprocess.run([exe, os.path.join(ROOT, "tools", "pmucap"), "plot", path, "-o", out],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert "the memory ladder in 2 panel(s)" in p.stderr, p.stderr
        with open(out, "rb") as f:
            assert f.read(8) == PNG_MAGIC
        os.unlink(out)
    finally:
        os.unlink(path)


def test_unstable_skipped_and_emulated_are_marked(ctx):
    runs, _ = pmucap.parse(open(SERIAL, encoding="latin-1").read())
    recs = [r for _, r in runs[0].records]
    bench = next(i for i, r in enumerate(recs) if r["type"] == "bench" and r.get("control"))
    recs[bench] = dict(recs[bench], unstable="spread")
    recs = [dict(r, execution="emulated") if r["type"] == "cpu" else r for r in recs]
    recs.append({"type": "check", "kernel": "store_forward", "variant": "zmm_forward", "control": None, "arena": None,
                 "what": "runs", "reason": AVX512_WHY, "status": "skip"})
    path = written(recs)
    try:
        run = capture.load_run(path, keep=cmd_plot.PLOT_TYPES, fields=cmd_plot.PLOT_FIELDS)[0]
        assert plot_common.run_emulated(run)
        skipped = plot_common.skipped_variants(run)
        assert skipped == {"store_forward.zmm_forward": AVX512_WHY}, skipped
        panels = cmd_plot.build_panels([capture.bench_table(run)], "cycles", skipped)
        rows = {r.key: r for p in panels for r in p.rows}
        assert rows["store_forward.zmm_forward"].skipped == AVX512_WHY
        key = capture.variant_key(recs[bench])
        assert rows[key].bars[0].unstable == "spread", key
        exe = plot_python()
        out = path + ".png"
        p = subprocess.run([exe, os.path.join(ROOT, "tools", "pmucap"), "plot", path, "-o", out],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and p.stderr.rstrip().endswith("; EMULATED"), p.stderr
        os.unlink(out)
    finally:
        os.unlink(path)


def test_labels_stay_inside_the_axes(ctx):
    """A cache level beyond the sizes measured (QEMU's ladder stops at 4 MiB, its L3 is 16 MiB): its
    boundary and label are inside the axis, not beside it."""
    exe = plot_python()
    script = f"""
import sys
sys.path.insert(0, {os.path.join(ROOT, 'tools')!r})
from pmucap import ladder, plot_common, plot_ladder
Figure, _ = plot_common.import_matplotlib()
fig = Figure(figsize=(8, 4), dpi=80)
ax = fig.subplots()
fig_ = {{"min": 4.0, "median": 5.0, "max": 6.0}}
series = [{{("latency", "cycles"): [(4096, fig_), (4 << 20, dict(fig_, median=200.0, max=210.0))]}}]
levels = [ladder.Level(1, "data", 32 << 10), ladder.Level(3, "unified", 16 << 20)]
plot_ladder.draw_ladder_axis(ax, series, "cycles", levels)
plot_ladder.set_size_axis(ax, [4096, 4 << 20] + [lv.size for lv in levels], "size")
fig.canvas.draw()
box = ax.get_window_extent()
for t in ax.texts:
    b = t.get_window_extent()
    assert box.x0 - 1 <= b.x0 and b.x1 <= box.x1 + 1 and box.y0 - 1 <= b.y0 and b.y1 <= box.y1 + 1, (t.get_text(), b, box)
print(len(ax.texts))
"""
    p = subprocess.run([exe, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "2", (p.stdout, p.stderr[-1500:])


def test_pictures_get_the_umask_mode(ctx):
    exe = plot_python()
    d = tempfile.mkdtemp(prefix="pmucap-plot-mode-")
    try:
        for mask, want in ((0o022, 0o644), (0o077, 0o600)):
            out = os.path.join(d, f"p{mask:o}.png")
            p = subprocess.run([exe, os.path.join(ROOT, "tools", "pmucap"), "plot", SERIAL, "-o", out],
                               capture_output=True, text=True, timeout=120, preexec_fn=lambda m=mask: os.umask(m))
            assert p.returncode == 0, p.stderr
            assert stat.S_IMODE(os.stat(out).st_mode) == want, (oct(mask), oct(os.stat(out).st_mode))
    finally:
        subprocess.run(["rm", "-rf", d])
