"""Host: the independent instruction probe and its comparison with the table (`make bench-instr`).

tools/probe/instr_probe.c measures some fifty common forms with hand-written kernels and no code of
pmuboot's; tools/instr-probe.py sets its figures beside `pmuboot-host instr`'s.  Whether they agree is a
measurement that `make bench-instr` prints (docs/benchmarks.md), not a test: here the probe must build
without warnings, refuse bad arguments, print one well-formed line a form with figures above zero, skip
only forms of extensions the CPU lacks, and the comparison must find a record for every form it names.
"""
import os
import re
import subprocess
import sys
import tempfile

PROBE = "tools/probe/instr_probe.c"
# The forms of x86-64's baseline (no extension needed): every x86-64 CPU measures these.
BASELINE = {"ADD r64, r64", "IMUL r64, r64", "IMUL r64, r64, imm32", "BSWAP r64", "ROL r64, imm8",
            "MOVSXD r64, r32", "MOV r64, m64", "ADDSD xmm, xmm", "MULSD xmm, xmm", "DIVSD xmm, xmm", "SQRTSD xmm, xmm"}


def _build(d):
    exe = os.path.join(d, "instr-probe")
    p = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-masm=intel", "-o", exe, PROBE],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    return exe


def test_probe_lines(ctx):
    with tempfile.TemporaryDirectory() as d:
        exe = _build(d)
        for bad in ([], ["0", "0"], ["0", "5000"], ["0", "1", "2"], ["x"], ["-1"], ["0", "3x"], ["99999"]):
            p = subprocess.run([exe, *bad], capture_output=True, text=True, timeout=30)
            assert p.returncode == 2 and "instr_probe" in p.stderr, (bad, p.returncode, p.stderr)
        p = subprocess.run([exe, "0", "3"], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        rows = [ln.split("\t") for ln in p.stdout.splitlines()]
        assert all(len(r) == 4 for r in rows), p.stdout
        for name, pair, lat, tp in rows:
            assert re.fullmatch(r"op\d(\.addr)?->op\d", pair), pair
            assert float(lat) > 0 and float(tp) > 0, (name, lat, tp)
        names = {r[0] for r in rows}
        assert BASELINE <= names, BASELINE - names
        for ln in p.stderr.splitlines():
            assert re.fullmatch(r"instr_probe: .+ skipped: no [A-Za-z0-9. ]+", ln), ln


def test_comparison_has_every_form(ctx):
    with tempfile.TemporaryDirectory() as d:
        exe = _build(d)
        p = subprocess.run([sys.executable, "tools/instr-probe.py", ctx.host, exe, "--cpu", "0", "--reps", "3"],
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-2000:])
        m = re.search(r"^instr-probe: (\d+) forms on CPU 0", p.stdout, re.M)
        assert m, p.stdout[:500]
        n = int(m.group(1))
        assert n >= len(BASELINE), p.stdout
        assert "no record from pmuboot-host" not in p.stdout, p.stdout
        assert re.search(r"^latency: \d+ of %d within max\(0.15 cycle, 7%%\)" % n, p.stdout, re.M), p.stdout[-500:]
        assert re.search(r"^throughput: \d+ of %d within max\(0.05 cycle, 15%%\)" % n, p.stdout, re.M)
