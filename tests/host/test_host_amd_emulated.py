"""Host: pmuboot-host instr on an AMD processor, emulated by QEMU's user mode (qemu-x86_64 -cpu EPYC-Milan-v1).

The development machines have been Intel for many sessions, so the host build's AMD paths (identification
as Zen 3, the forms only AMD has, SSE4a's EXTRQ and INSERTQ) ran nowhere but in unit tests.  Under QEMU's
user mode the same binary sees an AMD CPUID.  Its clocks are the emulator's, so nothing here is a figure of
any core: checked are the forms chosen for that CPU, one record per form, every record labelled emulated,
each form with a figure or a why and its cycles labelled as the harness converted them, one pass only, and
the run's last line saying the contention probe did not run and why.
"""
import json
import shutil
import subprocess

from testlib import Skip, run_lines

CPU = "EPYC-Milan-v1"
EXTENSIONS = "SSE4a,ADOX_ADCX"


def _emulated(ctx, *args):
    qemu = shutil.which("qemu-x86_64")
    if not qemu:
        raise Skip("qemu-x86_64 is not installed (tools/deps.sh --for test installs qemu-user)")
    return subprocess.run([qemu, "-cpu", CPU, ctx.host, *args], capture_output=True, text=True, timeout=300)


def _records(text, kind):
    return [json.loads(js) for js in run_lines(text) if js.startswith('{"type":"%s"' % kind)]


def test_instr_on_an_emulated_zen3(ctx):
    listed = _emulated(ctx, "instr", "--list", "--extension", EXTENSIONS)
    assert listed.returncode == 0, listed.stderr[-2000:]
    forms = [ln.split("\t") for ln in listed.stdout.splitlines()]
    measured = [f[0] for f in forms if not f[3].startswith("excluded")]
    assert {f[2] for f in forms} == {"SSE4a", "ADOX_ADCX"}, forms
    assert "EXTRQ xmm, xmm" in measured and "INSERTQ xmm, xmm" in measured, measured

    p = _emulated(ctx, "instr", "--extension", EXTENSIONS)
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-2000:])
    cpu = _records(p.stdout, "cpu")
    assert cpu and cpu[0]["vendor"] == "amd" and cpu[0]["uarch_key"] == "zen3", cpu
    assert cpu[0]["execution"] == "emulated", cpu[0]
    recs = _records(p.stdout, "instr")
    assert sorted(r["asm"] for r in recs) == sorted(measured), (len(recs), len(measured))
    assert all(r["emulated"] is True for r in recs), [r["asm"] for r in recs if r["emulated"] is not True]
    # The harness converted the emulator's ticks with its one add-chain calibration, and the record says so
    # (it said "tsc", raw ticks, beside that calibration's core_per_tsc).
    assert all(r["cycles_source"] == "tsc_calibrated" and r["core_per_tsc"] > 0 for r in recs), recs[0]

    def has_figure(r):
        return (any(x["cycles"] is not None for x in r["latency"] or [])
                or (r["throughput"] or {}).get("cycles") is not None)
    silent = [r["asm"] for r in recs if not has_figure(r) and not r["why"]]
    assert not silent, silent
    extrq = next(r for r in recs if r["asm"] == "EXTRQ xmm, xmm")
    assert [(x["from"], x["to"]) for x in extrq["latency"]] == [("op2", "op1")], extrq["latency"]
    assert "instr: contention probe: not run (an emulator's clock is no core's to share)" in p.stdout, \
        p.stdout[-1500:]
    # One pass: measuring a form again cannot make an emulator's time a core's.
    assert "instr: one pass (an emulator's figures are its time" in p.stdout, p.stdout[-1500:]
    assert "instr: pass 2" not in p.stdout, p.stdout[-1500:]
