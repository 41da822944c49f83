"""QEMU: the foundation.  A clean run, a bad option, and no UART at all."""
from testlib import describe
import qemurun


def clean(ctx):
    return ctx.boot("default")


def test_clean_run_is_complete_and_ok(ctx):
    res = clean(ctx)
    assert res.status == qemurun.OK, describe(res)
    assert res.qemu_rc == qemurun.QEMU_CLEAN, f"expected isa-debug-exit clean status, got {res.qemu_rc}"
    begin = res.run.records[0][1]
    assert begin["type"] == "begin" and begin["program"] == "image", begin
    assert begin["serial"]["active"] is True and begin["serial"]["base"] == "0x3f8", begin["serial"]
    assert res.run.end["status"] == "ok" and res.run.end["errors"] == 0, res.run.end


def test_cpu_record_names_qemu(ctx):
    res = clean(ctx)
    cpu = res.first("cpu")
    assert cpu is not None, describe(res)
    assert cpu["hypervisor"] is True and cpu["hypervisor_vendor"] == "TCGTCGTCGTCG", cpu
    assert cpu["brand"].startswith("QEMU"), cpu
    # Display family/model computed with the extended fields, from the raw signature.
    sig = int(cpu["signature"], 16)
    fam = (sig >> 8) & 0xF
    model = (sig >> 4) & 0xF
    if fam == 0xF:
        model |= ((sig >> 16) & 0xF) << 4
        fam += (sig >> 20) & 0xFF
    assert int(cpu["family"], 16) == fam and int(cpu["model"], 16) == model, cpu


def test_human_text_beside_records(ctx):
    res = clean(ctx)
    assert "pmuboot 0." in res.log and "run finished (clean)" in res.log, describe(res)


def test_bad_option_is_reported_and_run_finishes(ctx):
    res = ctx.boot("badopt", cfg_text="# test config\nreps=5\nwarp=9\nreps=1\n")
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    assert res.qemu_rc == qemurun.QEMU_ERRORS, res.qemu_rc
    errors = res.records("error")
    assert len(errors) == 2, errors
    assert errors[0]["source"].endswith("pmuboot.cfg:3") and errors[0]["what"] == "warp", errors[0]
    assert "unknown option" in errors[0]["message"], errors[0]
    assert errors[1]["source"].endswith("pmuboot.cfg:4") and "out of range" in errors[1]["message"], errors[1]
    assert res.run.end["status"] == "error" and res.run.end["errors"] == 2, res.run.end
    begin = res.run.records[0][1]
    assert begin["options"]["reps"] == "5", begin["options"]
    # The error text reaches the human-readable output too.
    assert "error: " in res.log and "warp" in res.log


def test_no_uart_still_finishes(ctx):
    # The time limit is the runner's: a hang on a missing UART would run into it.
    res = ctx.boot("nouart", serial=False, timeout=120)
    assert not res.timed_out, "the image hung without a UART"
    assert res.qemu_rc == qemurun.QEMU_CLEAN, f"qemu rc {res.qemu_rc}: {res.qemu_output[-500:]}"


def test_serial_off_option_keeps_records_off_uart(ctx):
    res = ctx.boot("serialoff", cfg_text="serial=off\n")
    # serial=off: nothing of the run on any serial console (not even through the firmware's
    # console redirection); the run still finishes cleanly (QEMU's debug-exit status says so).
    assert res.qemu_rc == qemurun.QEMU_CLEAN, f"qemu rc {res.qemu_rc}: {describe(res)}"
    assert "@pmuboot" not in res.log and "pmuboot 0." not in res.log, res.log[-1500:]


def test_qemu_refusing_its_arguments_is_said_plainly(ctx):
    """A QEMU that fails before the image runs: exit 2, QEMU's own words, its output kept, no traceback."""
    import os
    import subprocess
    import sys
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        keep = os.path.join(d, "run")
        p = subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "run-qemu"), "--efi", ctx.efi,
                            "--keep", keep, "--timeout", "30", "--", "-bogusflag"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == qemurun.BROKEN, (p.returncode, p.stderr)
        assert "Traceback" not in p.stderr, p.stderr
        assert "QEMU failed" in p.stderr and "-bogusflag" in p.stderr, p.stderr
        with open(os.path.join(keep, "exit-code")) as f:
            assert f.read().strip() == str(qemurun.BROKEN)
        with open(os.path.join(keep, "qemu.out"), encoding="latin-1") as f:
            assert "-bogusflag" in f.read()
