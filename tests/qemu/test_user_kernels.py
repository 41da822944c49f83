"""QEMU: user kernels on a stick (docs/kernels.md).

A USB stick made by tools/mkusb.sh --kernels holds three kernel files (a
good add chain, one executing `ud2`, one executing `jmp $`) and a damaged
one.  The image must read them from \\pmuboot\\kernels\\, measure the good
one (a `bench` record naming it, with its bytes), recover from the fault (a
`fault` record naming the kernel, the run goes on), stop the endless loop
with its watchdog (a `timeout` record), refuse the damaged file by name, and
end with a valid `end` record.  TCG timings mean nothing: no figure is
judged.
"""
import os
import shutil
import subprocess
import tempfile

from testlib import describe
import qemurun

KERNELS = {
    "good": "; name: good\ninit:\n\txor eax, eax\n\tmov ecx, 1\nbody:\n\tadd rax, rcx\n",
    "bad_ud2": "; name: bad_ud2\nbody:\n\tud2\n",
    "spin": "; name: spin\nbody:\n\tjmp $\n",
}
CFG = "bench=user iterations=64 reps=3 warmup=1 kernel_timeout_ms=300\n"


def stick(ctx, d):
    kdir = os.path.join(d, "kernels")
    os.makedirs(kdir)
    for name, text in KERNELS.items():
        src = os.path.join(d, name + ".s")
        with open(src, "w") as f:
            f.write(text)
        ctx.run_host("kernel", "build", src, "-o", os.path.join(kdir, name + ".pmuk"), check=True)
    with open(os.path.join(kdir, "damaged.pmuk"), "wb") as f:
        f.write(b"PMUK\x01")
    cfg = os.path.join(d, "pmuboot.cfg")
    with open(cfg, "w") as f:
        f.write(CFG)
    img = os.path.join(d, "stick.img")
    p = subprocess.run(["tools/mkusb.sh", "--efi", ctx.efi, "--cfg", cfg, "--kernels", kdir, "--out", img],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return img


def test_stick_with_good_faulting_and_endless_kernels(ctx):
    d = tempfile.mkdtemp(prefix="pmuboot-ukern-")
    try:
        res = qemurun.boot(efi=ctx.efi, drive=("disk", stick(ctx, d)), timeout=120)
    finally:
        shutil.rmtree(d, True)
    # The damaged file is an error; the run still completes with a CRC-valid end.
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    end = res.first("end")
    assert end and end["status"] == "error" and end["errors"] == 1, describe(res)
    errors = res.records("error")
    assert len(errors) == 1 and errors[0]["what"].endswith("\\pmuboot\\kernels\\damaged.pmuk"), errors
    assert "too short" in errors[0]["message"], errors

    setup = res.first("user_kernels")
    assert setup and {k["name"] for k in setup["loaded"]} == set(KERNELS), setup
    assert setup["watchdog"] == "apic_timer_nmi", setup

    benches = [b for b in res.records("bench") if b["kernel"] == "user"]
    assert [b["variant"] for b in benches] == ["good"], benches
    good = benches[0]
    assert good["body_hex"] == "4801c8" and good["iterations"] == 64 and good["cycles"]["n"] >= 1, good
    assert good["method"] == "differential_n_2n" and good["interrupts_off"] is True, good

    faults = res.records("fault")
    assert len(faults) == 1, faults
    f = faults[0]
    assert f["kernel"] == "user.bad_ud2" and f["vector"] == 6 and f["name"] == "#UD", f
    assert f["in"] == "body" and f["body_hex"] == "0f0b", f

    timeouts = res.records("timeout")
    assert len(timeouts) == 1, timeouts
    t = timeouts[0]
    assert t["kernel"] == "user.spin" and t["watchdog"] == "apic_timer_nmi" and t["bound_ms"] == 300, t
    assert t["in"] == "body", t

    # Everything after the bad kernels still ran: the stage's closing line and the end record.
    assert "bench: checks" in res.log, describe(res)
