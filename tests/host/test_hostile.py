"""pmucap on hostile input: every subcommand, every hostile capture, and files that are not files.

The captures are tests/fixtures/captures/hostile/ (make_hostile.py writes them: deep nesting,
5000-digit integers, NaN, wrong-typed fields in an intact run, truncation, a bad CRC, records
after noise on their line, UTF-16, binary, empty).  Each answer must be one line on stderr,
a non-zero exit status, and never a traceback or a hang.
"""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "captures")
HOSTILE = os.path.join(FIX, "hostile")
SERIAL = os.path.join(FIX, "qemu-usb-serial.log")
TIMEOUT_S = 30


def hostile_files():
    files = sorted(f for f in glob.glob(os.path.join(HOSTILE, "*")) if not f.endswith(".py"))
    assert len(files) >= 25, files
    return files


def commands(path, out_dir):
    """Every subcommand (and the compare and plot positions) on one capture."""
    return [["parse", path], ["parse", path, "--format", "csv"], ["table", path],
            ["junit", path, "-o", os.path.join(out_dir, "j.xml")],
            ["compare", SERIAL, path], ["compare", path, SERIAL, "--format", "json"],
            ["plot", path, "-o", os.path.join(out_dir, "p.png")],
            ["plot", SERIAL, path, "-o", os.path.join(out_dir, "p.svg")]]


def pmucap(ctx, args, **kw):
    return subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "pmucap"), *args],
                          capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S, **kw)


def assert_one_line_refusal(p, what):
    lines = p.stderr.splitlines()
    assert p.returncode not in (0, None), (what, "exit 0", p.stderr[-500:])
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr, (what, p.stderr[-1500:])
    assert len(lines) == 1 and lines[0].startswith("pmucap: "), (what, lines[:5])


def in_process(ctx, argvs, timeout=120):
    """Run pmucap commands in one child interpreter (tests/host/pmucap_child.py), with a time limit."""
    child = os.path.join(HERE, "pmucap_child.py")
    p = subprocess.run([sys.executable, child, os.path.join(ctx.root, "tools"), "matrix"],
                       input=json.dumps(argvs), capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout)["results"]


def test_every_subcommand_refuses_every_hostile_capture(ctx):
    d = tempfile.mkdtemp(prefix="pmucap-hostile-")
    try:
        argvs = [args for path in hostile_files() for args in commands(path, d)]
        results = in_process(ctx, argvs)
        assert len(results) == len(hostile_files()) * 8 >= 200, len(results)
        for r in results:
            assert not r["broken"], (r["argv"], r["broken"])
            assert r["rc"] != 0 and len(r["stderr"].splitlines()) == 1, (r["argv"], r["rc"], r["stderr"])
        # No picture from a capture that was refused.
        assert not glob.glob(os.path.join(d, "p.*")), os.listdir(d)
        # The same through the real command line (a fresh interpreter each), for a sample.
        for path in hostile_files()[::5]:
            for args in (["parse", path], ["plot", path, "-o", os.path.join(d, "p.png")]):
                assert_one_line_refusal(pmucap(ctx, args), f"{os.path.basename(path)}: {args[0]}")
    finally:
        subprocess.run(["rm", "-rf", d])


def test_errors_name_the_record_and_field(ctx):
    cases = {"median-string.log": ("line 9: bench record", "cycles.median", "a string", "expected a number"),
             "events-list.log": ("bench record", "field events", "a list"),
             "check-status-number.log": ("check record", "field status", "an integer"),
             "end-records-string.log": ("end record", "field records"),
             "huge-integer.log": ("run 1", "line 4", "5000 digits"),
             "deep-nesting.log": ("run 1", "line 4", "nested too deeply"),
             "nan-figure.log": ("NaN",),
             "truncated.log": ("run 1", "no end record"),
             "crc-mismatch.log": ("run 1", "CRC mismatch"),
             "two-runs-second-cut.log": ("run 2", "no end record"),
             "utf16.log": ("no pmuboot run found", "binary"),
             "binary.bin": ("no pmuboot run found", "binary"),
             "prefix-mid-line.log": ("damaged record line",)}
    for name, wants in cases.items():
        p = pmucap(ctx, ["table", os.path.join(HOSTILE, name)])
        for w in wants:
            assert w in p.stderr, (name, w, p.stderr)
        assert os.path.join(HOSTILE, name) in p.stderr or name in p.stderr, p.stderr


def test_allow_incomplete_still_refuses_wrong_types(ctx):
    """--allow-incomplete reads a damaged run, but a figure that is not a number stays an error."""
    p = pmucap(ctx, ["table", os.path.join(HOSTILE, "truncated.log"), "--allow-incomplete"])
    assert p.returncode == 0 and "warning" in p.stderr and "no end record" in p.stderr, p.stderr
    assert "store_forward" in p.stdout or "ref.add_chain" in p.stdout, p.stdout[:300]
    p = pmucap(ctx, ["compare", SERIAL, os.path.join(HOSTILE, "cycles-string.log"), "--allow-incomplete"])
    assert_one_line_refusal(p, "cycles-string --allow-incomplete")


def test_files_that_are_not_captures(ctx):
    """A FIFO with no writer, a directory, a device, a missing file: refused at once, no hang."""
    d = tempfile.mkdtemp(prefix="pmucap-hostile-")
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    try:
        for path, want in ((fifo, "not a regular file"), (d, "is a directory"), ("/dev/zero", "not a regular file"),
                           (os.path.join(d, "missing.log"), "No such file")):
            for args in commands(path, d):
                p = pmucap(ctx, args)   # a hang is a TimeoutExpired: the test fails
                assert_one_line_refusal(p, f"{path}: {args[0]}")
                assert want in p.stderr, (path, args[0], p.stderr)
                assert p.returncode == 1, (path, args[0], p.returncode)
    finally:
        subprocess.run(["rm", "-rf", d])


def test_output_into_head_is_quiet(ctx):
    """pmucap parse | head: the reader goes away after one line; pmucap says nothing and ends without
    an error status (its own, which a shell pipe would hide behind head's)."""
    tool = [sys.executable, os.path.join(ctx.root, "tools", "pmucap")]
    for args in (["parse", SERIAL], ["parse", SERIAL, "--format", "csv"], ["table", SERIAL], ["junit", SERIAL]):
        full = subprocess.run(tool + args, capture_output=True, text=True, timeout=TIMEOUT_S)
        assert full.returncode == 0 and len(full.stdout.splitlines()) > 1, (args, full.returncode, full.stdout[:200])
        with subprocess.Popen(tool + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            first = proc.stdout.readline()
            proc.stdout.close()          # what `| head -n 1` does once it has its line
            err = proc.stderr.read().decode(errors="replace")
            rc = proc.wait(timeout=TIMEOUT_S)
        assert first.strip(), args
        assert err == "", (args, err[-500:])
        # Finished before the reader left, or stopped with 141, as pmucap --help documents (128 + SIGPIPE).
        assert rc in (0, 128 + signal.SIGPIPE), (args, rc)


def test_odd_but_valid_text_is_shown(ctx):
    """A lone surrogate and control characters in names (valid JSON, intact run): shown, not a crash,
    and junit still writes XML a parser reads."""
    import json
    import xml.etree.ElementTree as ET
    import zlib
    with open(os.path.join(FIX, "qemu-usb-results.jsonl"), encoding="latin-1") as f:
        recs = [json.loads(l) for l in f][:-1]
    for r in recs:
        if r["type"] in ("bench", "check") and r["variant"] == "size_mismatch":
            r["variant"] = "size\udc80mis\x01match"
        if r["type"] == "check" and r["status"] == "skip":
            r["reason"] = "odd \x0b reason \ud800"
    texts = [json.dumps(r, separators=(",", ":")) for r in recs]
    crc = 0
    for t in texts:
        crc = zlib.crc32((t + "\n").encode("latin-1"), crc)
    texts.append(json.dumps({"type": "end", "status": "ok", "errors": 0, "records": len(recs),
                             "crc32": f"{crc:08x}"}))
    fd, path = tempfile.mkstemp(prefix="pmucap-odd-", suffix=".jsonl")
    with os.fdopen(fd, "w", encoding="latin-1") as f:
        f.write("\n".join(texts) + "\n")
    try:
        for args in (["parse", path], ["parse", path, "--format", "csv"], ["table", path], ["compare", SERIAL, path]):
            p = pmucap(ctx, args)
            assert p.returncode == 0 and "Traceback" not in p.stderr, (args, p.stderr[-800:])
        p = pmucap(ctx, ["junit", path])
        assert p.returncode == 0, p.stderr
        ET.fromstring(p.stdout.encode("utf-8", "surrogateescape"))
    finally:
        os.unlink(path)
