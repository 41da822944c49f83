"""QEMU: options from pmuboot.cfg beside the image and from the load options, the latter winning;
on_finish=reboot after a countdown.

The image is started from the UEFI shell (OVMF's built-in shell runs startup.nsh when
no boot option loads), as a lab engineer would with `pmuboot.efi reps=7 ...`: the
words after the program name are the load options.  The disk is a real FAT image.
"""
import qemurun
from testlib import describe
from testlib.shell import shell_disk


def shell_boot(ctx):
    if getattr(shell_boot, "res", None):
        return shell_boot.res
    img = shell_disk(ctx.efi, "pmuboot.efi reps=7 bench=none on_finish=reboot countdown=2",
                     {"lab/pmuboot.cfg": "# from the file\nreps=5\nwarmup=4\n"})
    shell_boot.res = ctx.boot("config-shell", drive=("disk", img), timeout=120)
    return shell_boot.res


def test_load_options_win_over_the_file(ctx):
    res = shell_boot(ctx)
    assert res.status == qemurun.OK, describe(res)
    begin = res.first("begin")
    assert begin["config"] == "file \\lab\\pmuboot.cfg, load options", begin["config"]
    opts = begin["options"]
    assert opts["reps"] == "7", opts          # both set it: the load options win
    assert opts["warmup"] == "4", opts        # only the file sets it
    assert opts["bench"] == "none", opts      # only the load options set it
    assert not res.records("error"), res.records("error")


def test_reboot_after_a_countdown_nobody_stops(ctx):
    """on_finish=reboot from the load options: a rig chaining runs.  QEMU (-no-reboot) exits 0 on the reset."""
    res = shell_boot(ctx)
    assert res.run and res.run.complete and res.run.end["status"] == "ok", describe(res)
    # A reset, not the isa-debug-exit port that shutdown uses under QEMU.
    assert res.qemu_rc == 0 and not res.timed_out, (res.qemu_rc, res.qemu_output[-300:])
    assert "on_finish=reboot" in res.log
    # countdown=2 overrides the hypervisor default of 0; no key arrives, so it runs out.
    assert "reboot in 2 s; press any key to stay" in res.log and "reboot in 1 s" in res.log, res.log[-800:]
    assert "stopped" not in res.log.split("run finished")[-1]


def test_directory_named_pmuboot_cfg_is_reported_as_one(ctx):
    res = ctx.boot("config-dir", extra_files={"EFI/BOOT/pmuboot.cfg/readme.txt": "reps=4\n"},
                   timeout=180)
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    errors = res.records("error")
    assert len(errors) == 1, errors
    assert errors[0]["source"].endswith("pmuboot.cfg"), errors
    assert "is a directory" in errors[0]["message"] and "UTF-16" not in errors[0]["message"], errors
    assert res.first("begin")["options"]["reps"] != "4"


# Line 2: an event only the bench stage can look up; line 3: a self-test that does not exist;
# line 4: a NUL byte (its line is not read); line 5 is still read.
ERRORS_CFG = (b"bench=store_forward.forward reps=3 iterations=100 warmup=0\n"
              b"events=NO_SUCH_EVENT\n"
              b"selftest=bogus\n"
              b"warmup=2\0 reps=9\n"
              b"iterations=200\n")


def test_errors_found_later_still_name_the_file_and_line(ctx):
    res = ctx.boot("config-errors", extra_files={"EFI/BOOT/pmuboot.cfg": ERRORS_CFG}, timeout=180)
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    by = {e["what"]: e for e in res.records("error")}
    assert set(by) == {"events", "selftest", "-"}, res.records("error")
    assert by["events"]["source"] == "\\EFI\\BOOT\\pmuboot.cfg:2", by["events"]
    assert by["selftest"]["source"] == "\\EFI\\BOOT\\pmuboot.cfg:3", by["selftest"]
    assert by["-"]["source"] == "\\EFI\\BOOT\\pmuboot.cfg:4" and "NUL byte at column 9" in by["-"]["message"], by["-"]
    opts = res.first("begin")["options"]
    assert opts["warmup"] == "0" and opts["reps"] == "3" and opts["iterations"] == "200", opts
