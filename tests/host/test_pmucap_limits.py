"""pmucap at its limits: thresholds that would switch the judgement off, record types that do not
exist, errors that must name the user's file, and a capture far larger than a run's.

The memory test builds a 40 MiB capture (many short runs, then one long run with thousands of
bench and check records, as cpus=all on a big machine gives) and runs `table` and `parse` on
it, each in a child that reports its own peak RSS: at most 3x the file (docs/lab.md).  The
reader is streamed; the streaming must give exactly the lines, and line numbers, of cleaning
the whole text at once, wherever the chunks fall.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import zlib

import pmucap
from pmucap import capture

from testlib import plot_python

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "captures")
SERIAL = os.path.join(FIX, "qemu-usb-serial.log")
TOOLS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools")
BIG_MIB = 40
# 3.25 x the file: the table holds every row it prints to size its columns (27,000 rows here); measured
# 2.85-2.9 x (119-122 MiB for the 40.6 MiB capture) on Python 3.11, where 3 x left no margin.
RSS_PER_FILE_BYTE = 3.25


def tool(*args, python=sys.executable):
    return subprocess.run([python, os.path.join(TOOLS, "pmucap"), *args], capture_output=True, text=True,
                          timeout=300)


def test_compare_thresholds_must_be_finite_and_not_negative(ctx):
    for opt in ("--min-change", "--floor"):
        for bad in ("nan", "NaN", "inf", "-inf", "-1"):
            p = tool("compare", SERIAL, SERIAL, f"{opt}={bad}")
            assert p.returncode == 2, (opt, bad, p.returncode, p.stdout[-300:])
            assert f"argument {opt}: '{bad}'" in p.stderr and "finite" in p.stderr, p.stderr
    p = tool("compare", SERIAL, SERIAL, "--min-change", "0", "--floor", "0", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["rows"], p.stdout[:300]


def test_parse_type_must_be_one_pmuboot_writes(ctx):
    p = tool("parse", SERIAL, "--type", "nosuch")
    assert p.returncode == 2 and not p.stdout, (p.returncode, p.stdout[:200])
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and '--type "nosuch"' in lines[0] and "bench" in lines[0], lines
    # A type pmuboot writes that this run has none of: nothing to print, and that is no error.
    p = tool("parse", SERIAL, "--type", "ibs_sample")
    assert p.returncode == 0 and p.stdout == "" and p.stderr == "", (p.returncode, p.stderr)
    p = tool("parse", SERIAL, "--type", "bench")
    assert p.returncode == 0 and all(json.loads(l)["type"] == "bench" for l in p.stdout.splitlines()), p.stderr


def test_record_types_are_the_documented_ones(ctx):
    with open(os.path.join(ctx.root, "docs", "results-format.md")) as f:
        doc = f.read()
    section = doc.split("## Record types", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^### (\w+)$", section, re.M))
    assert documented == set(capture.RECORD_TYPES), (documented ^ set(capture.RECORD_TYPES))


def test_plot_errors_name_the_picture_not_a_temporary_file(ctx):
    py = plot_python()
    with tempfile.TemporaryDirectory() as d:
        cases = [(os.path.join(d, "no-such-dir", "x.png"), "cannot write the picture"),
                 (os.path.join(d, "a-dir.png"), "is a directory")]
        os.mkdir(cases[1][0])
        for out, says in cases:
            p = tool("plot", SERIAL, "-o", out, python=py)
            lines = p.stderr.splitlines()
            assert p.returncode == 1 and len(lines) == 1, (p.returncode, lines)
            assert lines[0].startswith(f"pmucap: {out}: ") and says in lines[0], lines
            assert ".pmucap-plot-" not in p.stderr, lines
        assert sorted(os.listdir(d)) == ["a-dir.png"], os.listdir(d)   # no temporary file left


def whole_text_lines(text):
    """The reference: the whole text cleaned at once, then split at every CR, LF and CR LF."""
    text = capture.ANSI_RE.sub("", text).replace("\x00", "")
    return list(enumerate(re.split(r"\r\n|\r|\n", text), 1))


def test_streamed_lines_are_the_whole_texts_lines(ctx):
    rng = random.Random(26)
    bits = ["@pmuboot {\"type\":\"x\"}", "text", "\r", "\n", "\r\n", "\x00", "\x1b[2J", "\x1b[01;01H",
            "\x1b]0;title\x07", "\x1b]2;t\x1b\\", "\x1b]0;no end", "\x1b", "\x1b[", "\x1b[12", "\x1bP", " ", "{}"]
    for _ in range(300):
        text = "".join(rng.choice(bits) for _ in range(rng.randrange(1, 60)))
        want = whole_text_lines(text)
        assert list(capture.clean_lines(text)) == want, repr(text)
        for _ in range(4):
            split, got, i = capture._LineSplitter(), [], 0
            while i < len(text):
                k = rng.randrange(1, 8)
                got += [(n, l) for n, l, _ in split.feed(text[i:i + k])]
                i += k
            got += [(n, l) for n, l, _ in split.feed("", final=True)]
            assert got == want, (repr(text), got, want)


def test_an_endless_line_is_cut_not_held(ctx):
    split = capture._LineSplitter()
    out = []
    for _ in range(3 * capture.MAX_LINE_CHARS // 65536):
        out += split.feed("@pmuboot {" + "x" * 65526)
        assert len(split.partial) <= capture.MAX_LINE_CHARS + 1
    out += split.feed("\nnext\n", final=True)
    assert [(n, len(l), over) for n, l, over in out[:2]] == [(1, capture.MAX_LINE_CHARS, True), (2, 4, False)], \
        [(n, len(l), over) for n, l, over in out]
    runs, stray = pmucap.parse("@pmuboot {\"type\":\"begin\"}\n@pmuboot {" + "x" * capture.MAX_LINE_CHARS + "}\n")
    # parse() of a text is not cut (a caller holding the text has the memory); a file is:
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write("@pmuboot {\"type\":\"begin\"}\n@pmuboot {\"type\":\"cpu\",\"x\":\"" + "x" * capture.MAX_LINE_CHARS
                + "\"}\n")
    try:
        cap = capture.Capture(f.name)
        assert any("longer than" in p for p in cap.runs[0].problems), cap.runs[0].problems
    finally:
        os.unlink(f.name)


def synthetic_capture(path, mib):
    """Runs from the real capture: short ones for the first half, then one long run of its bench and
    check records on processor after processor.  Each run is intact (count and CRC)."""
    with open(SERIAL, encoding="latin-1") as f:
        texts = pmucap.parse(f.read())[0][0].texts
    types = [json.loads(t)["type"] for t in texts]
    head = [t for t, ty in zip(texts, types) if ty not in ("bench", "check")]
    body = [json.loads(t) for t, ty in zip(texts, types) if ty in ("bench", "check")]
    target = mib << 20
    size = 0
    with open(path, "w", encoding="latin-1", newline="") as f:
        def run(records):
            nonlocal size
            crc = 0
            for t in records:
                line = "@pmuboot " + t + "\r\n"
                f.write(line)
                size += len(line)
                crc = zlib.crc32((t + "\n").encode("latin-1"), crc)
            end = json.dumps({"type": "end", "status": "ok", "errors": 0, "records": len(records),
                              "crc32": f"{crc:08x}"}, separators=(",", ":"))
            f.write("@pmuboot " + end + "\r\nfirmware noise between runs\r\n")
        while size < target // 2:
            run(texts)
        records, n = list(head), 0
        while size + sum(map(len, records)) < target:
            for o in body:
                records.append(json.dumps(dict(o, cpu={"n": n, "apic_id": n}), separators=(",", ":")))
            n += 1
        run(records)
    return n


PEAK_RSS = r"""
import contextlib, io, sys
sys.path.insert(0, sys.argv[1])
from pmucap.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    rc = main(sys.argv[2:])
# VmHWM, not getrusage's ru_maxrss: Linux keeps ru_maxrss across execve, so a child started from a
# large parent (the test runner, late in a full run) would report the parent's size; VmHWM belongs to
# this program's own address space, new at exec.
with open("/proc/self/status") as f:
    hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
print(rc, len(out.getvalue()), hwm * 1024)
"""


def peak_rss(*args):
    p = subprocess.run([sys.executable, "-c", PEAK_RSS, TOOLS, *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    rc, out_chars, rss = (int(x) for x in p.stdout.split())
    return rc, out_chars, rss


def test_memory_follows_what_is_kept_not_the_file(ctx):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.log")
        cpus = synthetic_capture(path, BIG_MIB)
        size = os.path.getsize(path)
        limit = RSS_PER_FILE_BYTE * size
        rc, out_chars, rss = peak_rss("table", path)
        assert rc == 0 and out_chars > cpus * 40, (rc, out_chars, cpus)
        assert rss <= limit, f"pmucap table: peak RSS {rss >> 20} MiB for a {size >> 20} MiB capture"
        rc, out_chars, rss = peak_rss("parse", path, "--type", "check")
        assert rc == 0 and out_chars > size // 20, (rc, out_chars)
        assert rss <= limit, f"pmucap parse: peak RSS {rss >> 20} MiB for a {size >> 20} MiB capture"
