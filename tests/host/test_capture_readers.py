"""The two capture readers agree: tools/pmucap/capture.py (authoritative: docs/results-format.md,
"Reading a capture") and lib/capture_host.c (pmuboot-host ibs-report, the fuzzers).

Every capture is read by both: the committed fixtures, every hostile capture, the fuzz corpus, and
damaged copies of the real captures made here (cut anywhere, line ends changed, NUL bytes and escape
sequences dropped into records, bytes changed, lines dropped or repeated, end records with fields of
the wrong type, values pmucap refuses, Latin-1 bytes, white space Python strips) and a few hundred
random edits of a short run (seeded, so every run of the test reads the same files).  For each, both must
find the same runs (where each starts and ends, its record lines, the count its end record is held
to, complete or not) and the same problems: the same kind, on the same line, of the same run or of
none, in the same order.  The C reader is built for this from tests/host/capture_dump.c.
"""
import glob
import json
import os
import random
import re
import subprocess
import tempfile

from pmucap import capture

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "captures")
SERIAL = os.path.join(FIX, "qemu-usb-serial.log")
SAVED = os.path.join(FIX, "qemu-usb-results.jsonl")
RANDOM_EDITS = 300

# capture.py's messages, by kind (lib/capture.h enum capture_problem_kind).  A message that matches
# none fails the test: a new kind of problem must be taught to the C reader too.
KINDS = [
    (re.compile(r"^line (\d+): damaged record line: "), "damaged_line"),
    (re.compile(r"^line (\d+): not a record: "), "not_a_record"),
    (re.compile(r"^line (\d+): record (is not valid JSON|is a JSON |nests deeper |has no type|type is )"),
     "bad_record"),
    (re.compile(r"^line (\d+): .* record before any begin record$", re.S), "before_begin"),
    (re.compile(r"^()no end record \(truncated capture\)$"), "no_end"),
    (re.compile(r"^()end record field 'records' is "), "bad_count"),
    (re.compile(r"^()end record counts "), "count_mismatch"),
    (re.compile(r"^()end record field 'crc32' is "), "bad_crc"),
    (re.compile(r"^()CRC mismatch "), "crc_mismatch"),
    (re.compile(r"^()end record field 'status' is "), "bad_status"),
]


def kind_of(msg):
    for rx, kind in KINDS:
        m = rx.match(msg)
        if m:
            return int(m.group(1) or 0), kind
    raise AssertionError(f"capture.py message of no known kind: {msg!r}")


def python_view(path):
    runs, stray = capture.parse(capture.read_capture(path))
    out = {"serial": None, "runs": [], "problems": []}
    for r in runs:
        out["runs"].append({"number": r.number, "start": r.start_line, "end": r.end.line if r.end else 0,
                            "count": len(r.texts), "complete": r.complete, "records": [n for n, _ in r.records]})
        out["problems"] += [[r.number, *kind_of(p)] for p in r.problems]
    out["problems"] += [[0, *kind_of(p)] for p in stray]
    return out


def c_views(ctx, exe, paths):
    p = subprocess.run([exe, *paths], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    views = [json.loads(line) for line in p.stdout.decode().splitlines()]
    assert len(views) == len(paths)
    return views


def by_run(problems):
    """Problems grouped by run (0: outside every run), each group in its reader's order."""
    out = {}
    for run, line, kind in problems:
        out.setdefault(run, []).append((line, kind))
    return out


def build_dumper(ctx, d):
    lib = os.path.join(ctx.build, "libpmuboot.a")
    assert os.path.exists(lib), f"{lib} is not built (make host)"
    exe = os.path.join(d, "capture_dump")
    p = subprocess.run(["gcc", "-std=gnu11", "-O1", "-Wall", "-Werror", "-DPMUBOOT_HOSTED", f"-I{ctx.root}",
                        f"-I{os.path.join(ctx.build, 'gen')}", "-o", exe, os.path.join(HERE, "capture_dump.c"),
                        lib], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return exe


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def derived(d):
    """Damaged and odd copies of the real captures, written into d; returns their paths."""
    rnd = random.Random(26)
    serial, saved = read_bytes(SERIAL), read_bytes(SAVED)
    lines = serial.split(b"\r\n")
    rec_at = [i for i, ln in enumerate(lines) if ln.startswith(b"@pmuboot ")]
    cases = {}

    def at_random(data, insert, n):
        for _ in range(n):
            k = rnd.randrange(len(data))
            data = data[:k] + insert + data[k:]
        return data

    for k in range(1, 9):
        cases[f"cut_{k}.log"] = serial[:len(serial) * k // 9]
        cases[f"cut_{k}.jsonl"] = saved[:len(saved) * k // 9]
    cases["cr_only.log"] = serial.replace(b"\r\n", b"\r")
    cases["lf_only.log"] = serial.replace(b"\r\n", b"\n")
    cases["cr_nul_lf.log"] = serial.replace(b"\r\n", b"\r\x00\n")
    for k in range(3):
        cases[f"nul_{k}.log"] = at_random(serial, b"\x00", 5)
        cases[f"csi_{k}.log"] = at_random(serial, b"\x1b[1;31m", 4)
        cases[f"osc_{k}.log"] = at_random(serial, b"\x1b]0;title\x07", 3)
        cases[f"esc2_{k}.log"] = at_random(serial, b"\x1b=", 3)
        cases[f"esc_open_{k}.log"] = at_random(serial, b"\x1b]", 2)
        cases[f"esc_bare_{k}.log"] = at_random(serial, b"\x1b", 3)
        cases[f"latin1_{k}.log"] = at_random(serial, b"\xe9", 2)
        cases[f"nul_{k}.jsonl"] = at_random(saved, b"\x00", 3)
    for k in range(4):
        i = rnd.choice(rec_at)
        damaged = list(lines)
        line = damaged[i]
        j = rnd.randrange(len(b"@pmuboot "), len(line))
        damaged[i] = line[:j] + bytes([line[j] ^ 0x01]) + line[j + 1:]
        cases[f"byte_{k}.log"] = b"\r\n".join(damaged)
        cases[f"drop_{k}.log"] = b"\r\n".join(lines[:i] + lines[i + 1:])
        cases[f"twice_{k}.log"] = b"\r\n".join(lines[:i + 1] + lines[i:])
    first, last = rec_at[0], rec_at[-1]
    cases["two_runs_second_cut.log"] = serial + b"\r\n".join(lines[first:last - 3])
    cases["records_before_begin.log"] = b"\r\n".join(lines[first + 1:first + 4] + lines)
    cases["mid_line_prefix.log"] = serial.replace(lines[rec_at[3]], b"BdsDxe: " + lines[rec_at[3]])
    cases["prefix_no_space.log"] = serial.replace(lines[rec_at[3]], lines[rec_at[3]].replace(b"@pmuboot ", b"@pmuboot"))
    cases["jsonl_in_serial.log"] = serial + b"\r\n{\"type\":\"x\"}\r\n"
    cases["noise_in_saved.jsonl"] = saved.replace(b"\n", b"\nnoise\n\n \x0c\n", 2)
    end = lines[last]
    for name, old, new in [("crc_upper", rb'"crc32":"([0-9a-f]{8})"', lambda m: m.group(0).upper()),
                           ("crc_short", rb'"crc32":"[0-9a-f]{8}"', b'"crc32":"abc"'),
                           ("records_float", rb'"records":(\d+)', lambda m: b'"records":' + m.group(1) + b".0"),
                           ("records_big", rb'"records":(\d+)', b'"records":123456789012345678901234'),
                           ("records_minus", rb'"records":(\d+)', b'"records":-1'),
                           ("status_number", rb'"status":"[a-z_]*"', b'"status":3'),
                           ("no_fields", rb'"records":.*\}$', b'"x":1}')]:
        cases[f"end_{name}.log"] = serial.replace(end, re.sub(old, new, end))
    body = lines[rec_at[5]]
    for name, value in [("deep17", b"[" * 15 + b"1" + b"]" * 15), ("deep70", b"[" * 70 + b"]" * 70),
                        ("int25", b"1" * 25), ("int24", b"-" + b"9" * 24), ("inf", b"1e400"), ("nan", b"NaN"),
                        ("str_latin1", b'"caf\xe9"'), ("str_ctrl", b'"a\x01b"'), ("str_surrogate", b'"\\ud800"')]:
        cases[f"value_{name}.log"] = serial.replace(body, body[:-1] + b',"zz":' + value + b"}")
    cases["type_empty.log"] = serial.replace(body, re.sub(rb'"type":"[a-z_]+"', b'"type":""', body))
    cases["type_escaped_begin.log"] = serial + b"\r\n@pmuboot {\"type\":\"\\u0062egin\"}\r\n"
    cases["trailing_space.log"] = serial.replace(body, body + b" \x0c\x85\xa0\t")
    cases["leading_space.log"] = serial.replace(body, body.replace(b"@pmuboot {", b"@pmuboot  {"))
    cases["array_record.log"] = serial.replace(body, b"@pmuboot [1,2]")
    # Random edits of a short run with the bytes the rules turn on: escapes and their ends, line ends,
    # NUL, the prefix, JSON punctuation, Latin-1 and the white space only Python strips.
    short = b"\r\n".join(lines[first - 2:first + 12] + lines[last - 4:])
    palette = [b"\x1b", b"[", b"]", b"\x07", b"\\", b"\r", b"\n", b"\x00", b"@pmuboot ", b"@pmuboot", b"{", b"}",
               b'"', b"1", b"\xe9", b"\x85", b" ", b"\x0c", b"e9", b"-", b".", b"type", b"begin", b"end", b":", b","]
    for k in range(RANDOM_EDITS):
        data = bytearray(short if k % 5 else saved[:3000])
        for _ in range(rnd.randrange(1, 6)):
            op, pos = rnd.random(), rnd.randrange(len(data) + 1)
            if op < 0.6:
                data[pos:pos] = rnd.choice(palette)
            elif op < 0.8:
                del data[pos:pos + rnd.randrange(1, 4)]
            elif pos < len(data):
                data[pos] = rnd.randrange(256)
        cases[f"random_{k:03d}.log"] = bytes(data)
    paths = []
    for name, data in sorted(cases.items()):
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    return paths


def test_both_readers_agree_on_every_capture(ctx):
    with tempfile.TemporaryDirectory() as d:
        exe = build_dumper(ctx, d)
        given = sorted(glob.glob(os.path.join(FIX, "*.log")) + glob.glob(os.path.join(FIX, "*.jsonl")) +
                       [f for f in glob.glob(os.path.join(FIX, "hostile", "*")) if not f.endswith(".py")] +
                       glob.glob(os.path.join(os.path.dirname(HERE), "fuzz", "corpus", "capture", "*")))
        made = derived(d)
        paths = given + made
        assert len(given) >= 30 and len(made) >= 70 + RANDOM_EDITS, (len(given), len(made))
        seen_kinds, wrong = set(), []
        for path, c in zip(paths, c_views(ctx, exe, paths)):
            py = python_view(path)
            name = os.path.relpath(path, d if path.startswith(d) else ctx.root)
            if py["runs"] != c["runs"]:
                wrong.append(f"{name}: runs differ:\n  pmucap {py['runs']}\n  C      {c['runs']}")
            pp, cp = by_run(py["problems"]), by_run(c["problems"])
            if pp != cp:
                wrong.append(f"{name}: problems differ:\n  pmucap {pp}\n  C      {cp}")
            seen_kinds |= {k for _, _, k in py["problems"]}
        assert not wrong, "\n".join(wrong[:8]) + (f"\n... and {len(wrong) - 8} more" if len(wrong) > 8 else "")
    # The inputs exercise every kind of problem.
    assert seen_kinds == {k for _, k in KINDS}, {k for _, k in KINDS} - seen_kinds
