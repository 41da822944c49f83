"""tools/cpuid_fixture.py and tests/fixtures/cpuid-real/: the committed reductions of the real dumps.

The InstLatx64 dumps of ../shared/cpuid-dumps/ may not be copied into the
repository, so the tests read their reductions (the leaves pmuboot reads, in
pmuboot's compact format).  Here, when ../shared is present (and only then:
these tests skip without it), every fixture is re-derived with the tool and
must be byte for byte the committed one, and pmuboot-host must ask each
fixture the same CPUID questions and get the same answers as from the full
dump, on every CPU block.  The tool itself is checked on the hand-written
AIDA64-format fixtures, which are committed, so that part runs everywhere.
"""
import json
import os
import subprocess
import sys

from testlib import cpuid_dumps

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "cpuid_fixture.py")
REAL = os.path.join(ROOT, "tests", "fixtures", "cpuid-real")
HAND = os.path.join(ROOT, "tests", "fixtures", "cpuid")


def tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=120)


def asked(ctx, path, *args):
    """The CPUID questions pmuboot-host asked of a dump with their answers, and its records (path-free)."""
    p = subprocess.run([ctx.host, args[0], "--cpuid-dump", path, *args[1:]], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, PMUBOOT_CPUID_TRACE="1"))
    trace = [l for l in p.stderr.splitlines() if l.startswith("cpuid-trace: ")]
    recs = []
    for line in p.stdout.splitlines():
        if line.startswith("@pmuboot "):
            r = json.loads(line[len("@pmuboot "):])
            for k in ("source", "crc32"):      # the file name and its line numbers differ, nothing else may
                r.pop(k, None)
            recs.append(r)
    assert p.returncode == 0 and trace, (path, args, p.returncode, p.stderr[-500:])
    return trace, recs


def blocks(path):
    with open(path, encoding="ascii") as f:
        return sorted({int(l.split(":", 1)[0][4:]) for l in f if l.startswith("CPU ")})


def same_answers(ctx, full, reduced, program_spec):
    """Every block identifies the same from both files, and the same questions get the same answers."""
    n = blocks(reduced)
    assert n == list(range(len(n))) and n, reduced
    for b in n:
        a = asked(ctx, full, "identify", "--cpu", str(b))
        r = asked(ctx, reduced, "identify", "--cpu", str(b))
        assert a == r, f"{reduced} block {b}: answers differ from {full}:\n{a}\n{r}"
    assert asked(ctx, full, "program", program_spec) == asked(ctx, reduced, "program", program_spec), reduced
    return len(n)


def spec_for(name):
    return "event=0xc0,umask=0" if name.startswith("GenuineIntel") else "event=0x76,umask=0"


def test_fixtures_are_rederived_from_the_dumps(ctx):
    shared = ctx.shared_path("cpuid-dumps")
    dumps = sorted(f for f in os.listdir(shared) if f.endswith(".txt"))
    assert dumps == sorted(f for f in os.listdir(REAL) if f.endswith(".txt")), "one fixture per dump"
    p = tool(*(os.path.join(shared, f) for f in dumps))
    assert p.returncode == 0, p.stderr
    committed = ""
    for f in dumps:
        with open(os.path.join(REAL, f), encoding="ascii", newline="") as fh:
            committed += fh.read()
    if p.stdout != committed:
        for f in dumps:
            one = tool(os.path.join(shared, f)).stdout
            with open(os.path.join(REAL, f), encoding="ascii", newline="") as fh:
                assert one == fh.read(), f"{f}: stale; run tools/cpuid_fixture.py -o {REAL} {shared}/*.txt"
    assert p.stdout == committed


def test_fixtures_answer_as_the_dumps_do(ctx):
    shared = ctx.shared_path("cpuid-dumps")
    total = 0
    for f in sorted(os.listdir(REAL)):
        if f.endswith(".txt"):
            total += same_answers(ctx, os.path.join(shared, f), os.path.join(REAL, f), spec_for(f))
    assert total >= 300, total       # every CPU block of 45 dumps


def test_readme_table_is_the_dumps_readme(ctx):
    path = ctx.shared_path("cpuid-dumps", "README.md")
    assert cpuid_dumps.readme_table(path) == cpuid_dumps.README_TABLE


def test_tool_on_the_hand_written_dumps(ctx):
    """Runs without ../shared: reduce the committed AIDA64-format fixtures and compare the answers."""
    cases = ["intel_core2_report.txt", "kvm_cascadelake.txt", "amd_ibs_flags_invalid.txt", "amd_future_model.txt",
             "intel_hybrid_ecore_first.txt", "intel_future_family13.txt", "intel_p6_pentium3.txt"]
    out = os.path.join(ctx.build, "tests", "cpuid-fixture-tool")
    os.makedirs(out, exist_ok=True)
    p = tool("-o", out, *(os.path.join(HAND, c) for c in cases))
    assert p.returncode == 0, p.stderr
    for c in cases:
        with open(os.path.join(out, c), encoding="ascii") as f:
            text = f.read()
        assert text.startswith("# pmuboot cpuid fixture 1\n# source: " + c), text[:200]
        assert "[" not in text.split("\n", 4)[4], f"{c}: an annotation was kept"
        same_answers(ctx, os.path.join(HAND, c), os.path.join(out, c), spec_for("GenuineIntel" if "intel" in c else c))
    # The hybrid fixture keeps its core types; the Core 2 report's untagged leaf-4 lines (subleaves 0, 1, 2 by
    # their order: cpu/cache.c reads them) are kept.
    with open(os.path.join(out, "intel_hybrid_ecore_first.txt"), encoding="ascii") as f:
        hybrid = f.read()
    with open(os.path.join(out, "intel_core2_report.txt"), encoding="ascii") as f:
        core2 = f.read()
    assert "CPU 0: 00000004.02: " in core2 and "00000004.03" not in core2 and "0000000A.00: " in core2, core2
    assert "# processor: GenuineIntel family 0x6 model 0xF" in core2, core2
    assert hybrid.count("CPU 0: 00000000.00:") == 1 and "CPU 1: 0000001A.00: 40" in hybrid, hybrid


def test_tool_refuses_bad_input(ctx):
    for name, words in [("bad_hex.txt", ":3: not a register line"), ("bad_missing_leaf0.txt", ":2: leaf 00000001 before"),
                        ("bad_empty.txt", "no CPUID register lines")]:
        p = tool(os.path.join(HAND, name))
        assert p.returncode == 1 and words in p.stderr and "Traceback" not in p.stderr, (name, p.stderr)
        assert p.stdout == "", (name, p.stdout)
    p = tool("/nonexistent/dump.txt")
    assert p.returncode == 1 and "/nonexistent/dump.txt" in p.stderr and "Traceback" not in p.stderr, p.stderr
