"""What a newcomer reads of a run (issue 34): the verdict says what a PASS rests on and is the table's
last line, the table's check counts are the image's own summary line, a variant the image did not run
has a row saying why, the header's iterations are the rows', and every abbreviation is explained.

The captures: tests/fixtures/captures/qemu-usb-serial.log (a QEMU boot), copies of its records with
records added (reframed: a fresh count and CRC), and a pmuboot-host run made here.
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import pmucap
from pmucap import capture, verdict
from testlib import reframe_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERIAL = os.path.join(ROOT, "tests", "fixtures", "captures", "qemu-usb-serial.log")
# The image's summary line (bench/stage.c): "bench: checks P passed, F failed, S skipped[, U unstable]".
SUMMARY_RE = re.compile(r"^bench: checks (\d+) passed, (\d+) failed, (\d+) skipped(?:, (\d+) unstable)?", re.M)
AVX512_WHY = "needs avx512f, not usable here: this processor does not have it (CPUID)"


def tool(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "pmucap"), *args],
                          capture_output=True, text=True, timeout=120)


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("latin-1")


def real_records():
    runs, _ = pmucap.parse(read(SERIAL))
    return [r for _, r in runs[0].records]


def written(records, summary=None):
    """A capture of records in a temporary file, with the image's summary line among them when given."""
    return reframe_file(records, "pmucap-newcomer-", summary)


def image_summary(text):
    """(passed, failed, skipped, unstable) of the image's summary line in a capture."""
    m = SUMMARY_RE.search(text.replace("\r", ""))
    assert m, "no 'bench: checks' line in the capture"
    return tuple(int(g or 0) for g in m.groups())


def table_counts(stdout):
    """(passed, failed, skipped, unstable) of the table's checks line."""
    line = next(l for l in stdout.splitlines() if l.startswith("checks: "))
    m = re.match(r"checks: (\d+) passed, (\d+) failed, (\d+) skipped, (\d+) unstable;", line)
    assert m, line
    return tuple(int(g) for g in m.groups())


def test_table_counts_are_the_image_summary_qemu(ctx):
    p = tool("table", SERIAL)
    assert p.returncode == 0, p.stderr
    assert table_counts(p.stdout) == image_summary(read(SERIAL)), p.stdout[-600:]


def test_table_counts_are_the_image_summary_host(ctx):
    out = ctx.run_host("run", "bench=ref,store_forward,split", check=True).stdout
    fd, path = tempfile.mkstemp(prefix="pmucap-newcomer-", suffix=".log")
    with os.fdopen(fd, "w") as f:
        f.write(out)
    try:
        p = tool("table", path)
        assert p.returncode == 0, p.stderr
        assert table_counts(p.stdout) == image_summary(out), (p.stdout[-600:], SUMMARY_RE.search(out).group())
        # Every variant with a check record is a row: the avx512 ones not run on a processor without it too.
        runs, _ = pmucap.parse(out)
        checked = {capture.variant_key(r) for _, r in runs[-1].records if r["type"] == "check"}
        shown = {l.split()[0] for l in p.stdout.splitlines() if l and "." in l.split()[0]}
        assert checked <= shown, sorted(checked - shown)
    finally:
        os.unlink(path)


def test_a_variant_not_run_has_a_row_saying_why(ctx):
    recs = real_records()
    skipped = [{"type": "check", "kernel": "store_forward", "variant": v, "control": None, "arena": None,
                "what": "runs", "reason": AVX512_WHY, "status": "skip"} for v in ("zmm_forward", "zmm_upper")]
    at = max(i for i, r in enumerate(recs) if r["type"] == "bench" and r.get("kernel") == "store_forward") + 1
    path = written(recs[:at] + skipped + recs[at:])
    try:
        p = tool("table", path)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        rows = [l for l in lines if l.startswith("store_forward.zmm_")]
        assert len(rows) == 2 and all("not run" in r and "runs:skip[" in r for r in rows), rows
        n = re.search(r"runs:skip\[(\d+)\]", rows[0]).group(1)
        assert f"[{n}] {AVX512_WHY}" in lines, lines
        # ... among its kernel's rows, not at the end.
        i = lines.index(rows[0])
        assert lines[i - 1].startswith("store_forward."), lines[i - 1:i + 1]
        assert table_counts(p.stdout)[2] == image_summary(read(SERIAL))[2] + 2
    finally:
        os.unlink(path)


def test_a_pass_that_verified_nothing_says_so_last(ctx):
    p = tool("table", SERIAL)
    last = p.stdout.splitlines()[-1]
    total = sum(image_summary(read(SERIAL)))
    assert last == f"verdict: PASS (nothing verified: no PMU counting; 0 of {total} checks ran)", last
    # Emulated (the cpu record says so): named too.
    recs = [dict(r, execution="emulated") if r["type"] == "cpu" else r for r in real_records()]
    path = written(recs)
    try:
        last = tool("table", path).stdout.splitlines()[-1]
        assert last.startswith("verdict: PASS (nothing verified: emulated, no PMU counting; 0 of "), last
    finally:
        os.unlink(path)


def test_a_pass_resting_on_checks_says_how_many(ctx):
    recs = real_records()
    first = next(i for i, r in enumerate(recs) if r["type"] == "check")
    recs[first] = dict(recs[first], status="pass")
    path = written(recs)
    try:
        p = tool("table", path)
        total = sum(image_summary(read(SERIAL)))
        assert p.stdout.splitlines()[-1] == f"verdict: PASS (1 of {total} checks passed; {total - 1} skipped)", \
            p.stdout[-300:]
        # junit: the verdict case passes here, and is skipped (not green) for the run that verified nothing.
        cases = {tc.get("name"): tc for tc in ET.fromstring(tool("junit", path).stdout).iter("testcase")}
        assert cases["verdict"].find("skipped") is None and cases["verdict"].find("failure") is None
        root = ET.fromstring(tool("junit", SERIAL).stdout)
        case = next(tc for tc in root.iter("testcase") if tc.get("name") == "verdict")
        assert case.find("skipped").get("message").startswith("PASS (nothing verified"), ET.tostring(case)
        props = {p.get("name"): p.get("value") for p in root.iter("property")}
        assert props["verdict"].startswith("PASS (nothing verified"), props
    finally:
        os.unlink(path)


def test_the_collector_run_page_shows_the_qualified_verdict(ctx):
    from pmucap import web_pages
    cap = capture.Capture(SERIAL)
    res = web_pages.results(cap.runs[-1])
    assert res["verdict_shown"].startswith("PASS (nothing verified"), res["verdict_shown"]
    assert res["checks"] == "0 passed, 0 failed, 13 skipped, 0 unstable", res["checks"]
    # The stored verdict stays the word the API and its queries use.
    assert cap.runs[-1].verdict() == ("PASS", [])


def test_header_iterations_are_the_rows(ctx):
    recs = real_records()
    benches = [i for i, r in enumerate(recs) if r["type"] == "bench"]
    recs[benches[0]] = dict(recs[benches[0]], iterations=28704)
    recs[benches[1]] = dict(recs[benches[1]], iterations=10096)
    recs = [dict(r, adaptive={"on": True}) if r["type"] == "bench_setup" else r for r in recs]
    path = written(recs)
    try:
        head = tool("table", path).stdout.splitlines()[1]
        setup = next(r for r in recs if r["type"] == "bench_setup")
        assert head.startswith(f"{setup['iterations']}..28704 iterations per run (bench_setup: at least "
                               f"{setup['iterations']}, adaptive) x "), head
    finally:
        os.unlink(path)
    head = tool("table", SERIAL).stdout.splitlines()[1]
    assert re.match(r"\d+ iterations x \d+ reps", head), head


# The abbreviations of a result line (bench/bench_record.c) and of the table.
ABBREVIATIONS = ("iqr", "n=", "out=", "rej=", "drop=", "it=", "~", "disturbed")


def test_every_abbreviation_is_explained(ctx):
    p = tool("table", "--legend")
    assert p.returncode == 0, p.stderr
    assert max(len(l) for l in p.stdout.splitlines()) <= 100, p.stdout
    keys = [l[2:].split("  ")[0] for l in p.stdout.splitlines()[1:] if l[2:3] != " "]
    for a in ABBREVIATIONS:
        assert any(k == a or k.startswith(a) for k in keys), (a, keys)
    with open(os.path.join(ROOT, "docs", "results-format.md"), encoding="utf-8") as f:
        doc = f.read()
    m = re.search(r"^## Reading a result line\n(.*?)(?=^## )", doc, re.M | re.S)
    assert m, "docs/results-format.md has no 'Reading a result line' section"
    for a in ABBREVIATIONS:
        assert f"`{a}" in m.group(1), a
    # The table says where the legend is.
    assert "--legend" in tool("table", SERIAL).stdout


def test_what_a_pass_rests_on_in_each_case(ctx):
    def words(*recs):
        t = verdict.Tally()
        for r in recs:
            t.note(r)
        return verdict.what_passed(t), t.verified()
    check = lambda s: {"type": "check", "status": s}   # noqa: E731
    audit = {"type": "audit", "status": "pass"}
    emulated = {"type": "cpu", "execution": "emulated"}
    no_pmu = {"type": "bench_setup", "counting": {"available": False, "reason": "no PMU"}}
    assert words(emulated, no_pmu, *[check("skip")] * 21) == \
        ("nothing verified: emulated, no PMU counting; 0 of 21 checks ran", False)
    assert words(*[check("pass")] * 15, *[check("skip")] * 2, *[check("unstable")] * 2) == \
        ("15 of 19 checks passed; 2 skipped, 2 unstable", True)
    # The audit verified the counters though every check was skipped: said first, not hidden.
    assert words(*[audit] * 7, *[check("skip")] * 3) == ("7 audit check(s) passed; 0 of 3 checks passed; 3 skipped", True)
    # Checks that ran but could not judge (unstable) verified nothing either.
    assert words(check("unstable"), check("unstable")) == ("nothing verified; 2 of 2 checks ran (2 unstable)", False)
    assert words() == ("nothing verified; 0 of 0 checks ran", False)
