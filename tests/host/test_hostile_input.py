"""Hostile input to pmuboot-host: forged records, damaged runs, odd JSON and files that never end.

A capture is trusted only when no text line can pass for a record and every
run is checked whole.  These tests feed the C readers what a hostile or
careless source gives: a CPUID dump whose brand string holds the record
prefix, captures with a bad CRC, records re-serialised by a JSON library,
values that are not JSON, and a FIFO.
"""
import json
import os
import struct
import subprocess
import tempfile
import time
import zlib

from testlib import Skip

PREFIX = "@pmuboot "


def record_lines(text):
    """Lines that begin with the prefix: what a strict reader takes for records."""
    return [ln for ln in text.splitlines() if ln.startswith(PREFIX)]


def run_of(records):
    """Record texts (JSON) as a complete run: begin, the records, an end whose count and CRC match."""
    texts = ['{"type":"begin","format":1,"program":"test","version":"0"}'] + list(records)
    crc = 0
    for t in texts:
        crc = zlib.crc32((t + "\n").encode("latin-1"), crc)
    end = json.dumps({"type": "end", "status": "ok", "errors": 0, "records": len(texts), "crc32": f"{crc:08x}"},
                     separators=(",", ":"))
    return [PREFIX + t for t in texts + [end]]


def write(lines, suffix=".log"):
    f = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False, newline="")
    f.write("\r\n".join(lines) + "\r\n")
    f.close()
    return f.name


def brand_dump(brand):
    """A one-CPU dump (the Centaur fixture's leaves) whose brand string leaves hold `brand` (48 bytes)."""
    raw = brand.encode("latin-1").ljust(48, b"\0")[:48]
    lines = ["------[ Logical CPU #0 ]------", "", "allcpu: Valid", "",
             "CPUID 00000000: 0000000A-746E6543-736C7561-48727561 [CentaurHauls]",
             "CPUID 00000001: 000006F2-00010800-00C863A9-BFC9FBFF",
             "CPUID 80000000: 80000008-00000000-00000000-00000000",
             "CPUID 80000001: 00000000-00000000-00000001-20100800"]
    for i in range(3):
        regs = struct.unpack("<4I", raw[16 * i:16 * i + 16])
        lines.append(f"CPUID {0x80000002 + i:08X}: " + "-".join(f"{r:08X}" for r in regs))
    return "\n".join(lines) + "\n"


def test_brand_string_cannot_forge_a_record(ctx):
    for brand in ('@pmuboot {"type":"end"}', 'x\n@pmuboot {"type":"end","records":1}', "\r@pmuboot {\x1b[2J"):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, newline="") as f:
            f.write(brand_dump(brand))
            path = f.name
        try:
            p = ctx.run_host("identify", "--cpuid-dump", path)
            assert p.returncode == 0, p.stderr
            recs = record_lines(p.stdout)
            types = [json.loads(r[len(PREFIX):])["type"] for r in recs]
            assert types.count("end") == 1 and types[-1] == "end", types
            # The cpu record keeps the bytes (JSON-escaped); the text line shows them escaped.
            cpu = [json.loads(r[len(PREFIX):]) for r in recs if '"type":"cpu"' in r][0]
            assert cpu["brand"] == brand.strip(" "), (cpu["brand"], brand)
            text = [ln for ln in p.stdout.splitlines() if ln.startswith("cpu: Centaur")]
            assert len(text) == 1 and "\\x40pmuboot {" in text[0], p.stdout
            assert all("@pmuboot" not in ln for ln in p.stdout.splitlines() if not ln.startswith(PREFIX))
        finally:
            os.unlink(path)


def ibs_sample(**over):
    rec = {"type": "ibs_sample", "kind": "op", "family": "0x17", "model": "0x31", "kernel": "k", "variant": "v",
           "regs": {"IbsOpCtl": "0x60000", "IbsOpData": "0x250000"}}
    rec.update(over)
    return json.dumps(rec, separators=(",", ":"))


def op_samples(p):
    return [json.loads(r[len(PREFIX):]) for r in record_lines(p.stdout) if '"type":"ibs"' in r][0]["samples"]["op"]


def test_bad_crc_is_refused_by_name(ctx):
    lines = run_of([ibs_sample(), ibs_sample()])
    lines[2] = lines[2].replace("0x250000", "0x250001")
    path = write(["noise"] + lines)
    try:
        p = ctx.run_host("ibs-report", path)
        assert p.returncode == 1, (p.returncode, p.stdout[-800:])
        assert f"{path}:2: run 1 (lines 2-5) is damaged: CRC mismatch" in p.stderr, p.stderr
        assert "refused" in p.stderr and '"type":"ibs"' not in p.stdout
        p = ctx.run_host("ibs-report", "--allow-incomplete", path)
        assert p.returncode == 0 and op_samples(p) == 2, (p.returncode, p.stderr)
        # Cut off: no end record.
        cut = write(lines[:-1])
        p = ctx.run_host("ibs-report", cut)
        assert p.returncode == 1 and "no end record" in p.stderr, p.stderr
        os.unlink(cut)
    finally:
        os.unlink(path)


def test_reserialised_records_read_the_same(ctx):
    """json.dumps defaults (", " and ": ", keys as they came) decode to the same counts as the original."""
    exe = os.path.join(ctx.build, "tests", "test_ibs_run")
    if not os.path.exists(exe):
        raise Skip(f"{exe} is not built (make unit)")
    fd, compact = tempfile.mkstemp(suffix=".log")
    os.close(fd)
    spaced = compact + ".spaced"
    try:
        p = subprocess.run([exe], env=dict(os.environ, PMUBOOT_IBS_CAPTURE=compact), capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stdout[-1500:]
        with open(compact, newline="") as f:
            src = f.read().split("\r\n")
        texts = [json.dumps(json.loads(ln[len(PREFIX):])) for ln in src if ln.startswith(PREFIX)]
        assert ": " in texts[1] and ", " in texts[1]
        # The rig rewrote the records and, honestly, the end record's CRC over what it wrote.
        with open(spaced, "w", newline="") as f:
            f.write("\r\n".join(run_of(texts[1:-1])) + "\r\n")
        a = ctx.run_host("ibs-report", compact)
        b = ctx.run_host("ibs-report", spaced)
        assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
        ra = [json.loads(r[len(PREFIX):]) for r in record_lines(a.stdout) if '"type":"ibs"' in r]
        rb = [json.loads(r[len(PREFIX):]) for r in record_lines(b.stdout) if '"type":"ibs"' in r]
        assert len(ra) == 3 and len(rb) == 3
        for x, y in zip(ra, rb):
            for key in ("samples", "dropped", "events", "ratios", "averages"):
                assert x[key] == y[key], (key, x[key], y[key])
        # Rewritten without fixing the CRC: refused, and read alike with --allow-incomplete.
        with open(spaced, "w", newline="") as f:
            f.write("\r\n".join(PREFIX + t for t in texts) + "\r\n")
        c = ctx.run_host("ibs-report", spaced)
        assert c.returncode == 1 and "CRC mismatch" in c.stderr, c.stderr
        c = ctx.run_host("ibs-report", "--allow-incomplete", spaced)
        rc = [json.loads(r[len(PREFIX):]) for r in record_lines(c.stdout) if '"type":"ibs"' in r]
        assert [x["events"] for x in rc] == [x["events"] for x in ra]
    finally:
        for f in (compact, spaced):
            if os.path.exists(f):
                os.unlink(f)


def test_values_that_are_not_json_are_refused(ctx):
    good = ibs_sample()
    bad = [
        good.replace('"0x60000"', "tttt"),
        good.replace('"0x60000"', "\0"),
        good.replace('"kind":"op"', '"kind":\0"op"'),
        good.replace('"0x60000"', '"0x6\\u00000"'),
        good.replace('"0x60000"', "true"),
        good.replace('"kind":"op"', '"kind":["op"]'),
        good.replace('"0x17"', '"0x1ffffffff"'),
        good.replace('"regs":{', '"regs":{"IbsOpCtl":1,'),  # a repeated key: the last one wins, as in Python
    ]
    # In a run (read with --allow-incomplete: the CRC cannot match), after a text line: line 2 is the
    # begin, the bad records lines 3 to 9.  The capture is read as pmucap reads it (lib/capture.h), so
    # a NUL byte is serial noise, dropped before the JSON is read.
    path = write(["x"] + run_of(bad[:-1]))
    try:
        p = ctx.run_host("ibs-report", "--allow-incomplete", path)
        assert p.returncode == 1, p.returncode
        errs = [json.loads(r[len(PREFIX):]) for r in record_lines(p.stdout) if '"type":"error"' in r]
        by_line = {e["source"].rsplit(":", 1)[1]: e["message"] for e in errs if e["source"] != path}
        assert by_line["3"].startswith("ibs_sample record is malformed: value expected"), by_line
        assert by_line["4"].startswith("ibs_sample record is malformed"), by_line
        assert "5" not in by_line, by_line     # '"kind":\0"op"' without its NUL is a good sample
        assert "IbsOpCtl is a string holding NUL" in by_line["6"] or "not a number" in by_line["6"], by_line
        assert "IbsOpCtl is true, not a number" in by_line["7"], by_line
        assert "\"kind\" is an array, not a string" in by_line["8"], by_line
        assert "family '0x1ffffffff' is not a number" in by_line["9"], by_line
        assert op_samples(p) == 1     # that one sample, and no other
    finally:
        os.unlink(path)
    path = write(run_of([bad[-1]]))
    try:
        p = ctx.run_host("ibs-report", path)
        assert p.returncode == 0 and op_samples(p) == 1, p.stderr
    finally:
        os.unlink(path)


def test_fifo_and_devices_do_not_block(ctx):
    d = tempfile.mkdtemp()
    fifo = os.path.join(d, "capture.fifo")
    os.mkfifo(fifo)
    try:
        for args in (("ibs-report", fifo), ("identify", "--cpuid-dump", fifo), ("ibs-report", "/dev/zero"),
                     ("ibs-report", d)):
            t0 = time.monotonic()
            p = ctx.run_host(*args, timeout=20)
            assert p.returncode == 1, (args, p.returncode)
            assert time.monotonic() - t0 < 10
            assert len(p.stderr.strip().splitlines()) == 1, p.stderr
            assert "not a regular file" in p.stderr or "Is a directory" in p.stderr, p.stderr
    finally:
        os.unlink(fifo)
        os.rmdir(d)
