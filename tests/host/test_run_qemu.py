"""tools/run-qemu: refused arguments (one line, exit 2, no hang) and a kept, halted run."""
import os
import shutil
import subprocess
import sys
import tempfile

from testlib import Skip


def run_qemu(ctx, *args, timeout=30, tmpdir=None):
    env = dict(os.environ, TMPDIR=tmpdir) if tmpdir else None
    return subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "run-qemu"), *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ctx.root, env=env)


def test_bad_cfg_and_media_are_refused(ctx):
    d = tempfile.mkdtemp(prefix="run-qemu-test-")
    try:
        files = {"utf16.cfg": "reps=3\n".encode("utf-16"), "binary.cfg": bytes(range(256)),
                 "latin1.cfg": b"reps=3 # caf\xe9\n"}
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        keep = os.path.join(d, "keep")
        cases = [(["--cfg", os.path.join(d, "utf16.cfg")], "not plain text"),
                 (["--cfg", os.path.join(d, "binary.cfg")], "not plain text"),
                 (["--cfg", os.path.join(d, "latin1.cfg")], "not ASCII or UTF-8"),
                 (["--cfg", os.path.join(d, "missing.cfg")], "No such file"),
                 (["--cfg", d], "is a directory"),
                 (["--cfg", fifo], "not a regular file"),     # would block forever if opened
                 (["--usb", fifo], "not a regular file"),
                 (["--cfg", fifo, "--keep", keep], "not a regular file"),
                 (["--opt", "reps"], "expected one key=value")]
        for args, want in cases:
            p = run_qemu(ctx, *args)
            lines = p.stderr.splitlines()
            assert p.returncode == 2 and len(lines) == 1 and want in lines[0], (args, p.returncode, lines)
            assert "Traceback" not in p.stderr
        # --keep records the refusal's exit code, so a previous run's is never mistaken for it.
        with open(os.path.join(keep, "exit-code")) as f:
            assert f.read() == "2\n"
    finally:
        shutil.rmtree(d)


def test_halted_run_is_kept_and_not_a_timeout(ctx):
    """on_finish=halt leaves QEMU up: the runner stops it after the end record (exit 0, not 124),
    and --keep keeps the serial log, the saved results file, QEMU's output and the exit code; the run before
    moves to DIR.1; nothing stays in the temporary directory."""
    if not os.path.exists(ctx.efi) or not shutil.which("qemu-system-x86_64"):
        raise Skip("needs build/pmuboot.efi and qemu-system-x86_64")
    d = tempfile.mkdtemp(prefix="run-qemu-test-")
    keep = os.path.join(d, "run")
    os.makedirs(keep)
    with open(os.path.join(keep, "old"), "w") as f:
        f.write("the run before")
    tmp = os.path.join(d, "tmp")     # the runner's TMPDIR: must be empty afterwards
    os.makedirs(tmp)
    try:
        p = run_qemu(ctx, "--efi", ctx.efi, "--opt", "on_finish=halt", "--opt", "bench=none",
                     "--timeout", "120", "--keep", keep, timeout=180, tmpdir=tmp)
        assert p.returncode == 0, (p.returncode, p.stderr[-1500:])
        assert "stopped by the runner after the end record: on_finish=halt" in p.stderr, p.stderr
        assert sorted(os.listdir(keep)) == ["exit-code", "qemu.out", "results-0001.jsonl", "serial.log"], \
            os.listdir(keep)
        assert os.listdir(keep + ".1") == ["old"]
        with open(os.path.join(keep, "exit-code")) as f:
            assert f.read() == "0\n"
        assert "results-0001.jsonl (intact)" in p.stderr, p.stderr
        import pmucap
        saved = pmucap.Capture(os.path.join(keep, "results-0001.jsonl")).pick()
        serial = pmucap.Capture(os.path.join(keep, "serial.log")).pick()
        assert saved.complete and serial.complete and saved.texts == serial.texts
        assert os.listdir(tmp) == [], os.listdir(tmp)
        # With --log too (it once kept the whole working directory).
        p = run_qemu(ctx, "--efi", ctx.efi, "--opt", "bench=none", "--timeout", "120",
                     "--log", os.path.join(d, "x.log"), timeout=180, tmpdir=tmp)
        assert p.returncode == 0 and os.path.getsize(os.path.join(d, "x.log")) > 0, p.stderr[-800:]
        assert os.listdir(tmp) == [], os.listdir(tmp)
    finally:
        shutil.rmtree(d)
