"""pmucap and the instruction table (issue 31; docs/results-format.md "instr", docs/lab.md): `table` prints it,
`compare` lists exactly the forms whose figures differ beyond noise (an unstable one is never a
difference), `export --instr` writes CSV that the csv module reads back, and a malformed instr record is
named by its line while the rest of the capture is used.  The captures are tests/fixtures/instr-captures
(make_instr.py: two invented machines; no figure there is any core's)."""
import contextlib
import csv
import io
import json
import os
import runpy
import subprocess
import sys
import tempfile
import types

from pmucap import capture, instr  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PMUCAP = os.path.join(ROOT, "tools", "pmucap")
FIX = os.path.join(ROOT, "tests", "fixtures", "instr-captures")
A, B, BAD = (os.path.join(FIX, f"instr-{n}.jsonl") for n in ("a", "b", "bad"))
BENCH_ONLY = os.path.join(ROOT, "tests", "fixtures", "captures", "qemu-usb-results.jsonl")


# The fixtures' own script: what they hold (FORMS, B_CHANGES, BAD...) is read from it, not written again here.
mk = types.SimpleNamespace(**runpy.run_path(os.path.join(FIX, "make_instr.py")))


def tool(*args):
    return subprocess.run([sys.executable, PMUCAP, *args], capture_output=True, text=True, timeout=60)


@contextlib.contextmanager
def capture_of(records):
    """The path of a saved results file holding records (framed: count and CRC), for the with block."""
    with tempfile.TemporaryDirectory(prefix="pmucap-instr-") as d:
        path = os.path.join(d, "run.jsonl")
        with open(path, "w", encoding="latin-1", newline="") as f:
            f.write(mk.frame(records))
        yield path


def table_lines(stdout):
    """The instruction table's lines, its heading and column titles left out, up to the first blank line."""
    lines = stdout.split("\ninstruction table: ", 1)[1].splitlines()[2:]
    return lines[:lines.index("")] if "" in lines else lines


def test_the_fixtures_are_what_the_script_writes(ctx):
    for name, text in mk.captures().items():
        with open(os.path.join(FIX, name), encoding="latin-1", newline="") as f:
            assert f.read() == text, f"{name} differs from make_instr.py's: run it again"


def test_table_prints_the_instruction_table(ctx):
    p = tool("table", A)
    assert p.returncode == 0 and p.stderr == "", (p.returncode, p.stderr)
    assert "no bench records" not in p.stdout, p.stdout[:400]
    assert "instruction table: 31 form(s), 30 with a figure, 1 without" in p.stdout, p.stdout[:600]
    rows = {}
    for line in table_lines(p.stdout):
        if line.startswith("["):
            break
        name = next(f[0] for f in sorted(mk.FORMS, key=lambda f: -len(f[0])) if line.startswith(f[0] + " "))
        rows[name] = line
    assert list(rows) == [f[0] for f in mk.FORMS if f[0] != mk.ONLY_B], list(rows)
    i = {f[0]: n for n, f in enumerate(mk.FORMS)}
    # ADD r64, r64 from op2 to op1: 1 cycle, the definition; each pair with its figure.
    assert "op2->op1 1.00," in rows["ADD r64, r64"], rows["ADD r64, r64"]
    # The largest register pair is marked, and only it: IMUL's op2->op1; ADD r64, m64's op1->op1, though its
    # load (op2) and address (op2.addr) pairs are larger.
    imul = mk.invented(i["IMUL r64, r64"], 1)
    assert f"op2->op1 {imul:.2f}*" in rows["IMUL r64, r64"] and rows["IMUL r64, r64"].count("*") == 1
    add_m = [mk.invented(i["ADD r64, m64"], j) for j in range(3)]
    assert max(add_m) > add_m[0] and f"op1->op1 {add_m[0]:.2f}*" in rows["ADD r64, m64"], (add_m, rows["ADD r64, m64"])
    assert rows["ADD r64, m64"].count("*") == 1
    # Throughput and how; uops; ports; why.
    assert " loop " in rows["ADD r64, m64"] and "retired 2" in rows["ADD r64, m64"] and "p0:0.5 p1:0.5" in \
        rows["ADD r64, m64"], rows["ADD r64, m64"]
    assert rows[mk.FAULTED].split()[-6:] == ["faulted:", "#UD", "although", "CPUID", "enables", "it"], rows[mk.FAULTED]
    assert rows[mk.EMULATED].endswith("emulated") and not rows["ADD r64, r64"].endswith("emulated")
    # A pair through a connecting instruction points to a note saying so.
    assert "[1]" in rows["MOVQ xmm, r64"] and "[1] through MOVQ r64, xmm" in p.stdout
    # The bench table of a capture without instr records is as it was: no instruction table.
    p = tool("table", BENCH_ONLY)
    assert p.returncode == 0 and "instruction table" not in p.stdout and "add_chain" in p.stdout, p.stdout[:300]


def test_compare_lists_exactly_the_forms_beyond_noise(ctx):
    p = tool("compare", A, B, "--format", "json")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)["instr"]
    by = {}
    for r in res["rows"]:
        by.setdefault(r["status"], []).append((r["form"], r["figure"]))
    assert sorted(by["differs"]) == sorted(mk.DIFFERENT), by
    # VPERMB is far off on B, but unstable there: listed as unstable, never as a difference.
    assert by["unstable"] == [mk.UNSTABLE], by
    assert by["bound"] == [("PDEP r64, r64, r64", "latency op2->op1")] and \
        by["one run"] == [("ADCX r64, r64", "throughput")], by
    assert by["only in A"] == [(mk.ONLY_A, None)] and by["only in B"] == [(mk.ONLY_B, None)], by
    # ROR (below the tolerance) and POPCNT (beyond it, but inside B's spread) are no difference.
    named = {f for rows in by.values() for f, _ in rows}
    assert "ROR r16, 1" not in named and "POPCNT r64, r64" not in named, named
    c = res["counts"]
    assert (c["differs"], c["unstable"], c["both"], c["only in A"], c["only in B"]) == (3, 1, 30, 1, 1), c
    # The text says the same, with the counts; --fail-on-change exits 3; B against A lists the same forms.
    p = tool("compare", A, B, "--fail-on-change")
    assert p.returncode == 3, (p.returncode, p.stderr)
    assert "3 figure(s) differ beyond noise, 1 unstable" in p.stdout, p.stdout
    flagged = [l for l in p.stdout.splitlines() if l.endswith("DIFFERS beyond noise")]
    assert sorted(l.split("  ")[0] for l in flagged) == sorted(f for f, _ in mk.DIFFERENT), flagged
    assert any(l.startswith("VPERMB zmm, zmm, m512") and "unstable: not judged" in l for l in p.stdout.splitlines())
    back = json.loads(tool("compare", B, A, "--format", "json").stdout)["instr"]
    assert sorted((r["form"], r["figure"]) for r in back["rows"] if r["status"] == "differs") == sorted(mk.DIFFERENT)
    # A run against itself: nothing differs, and --fail-on-change passes.
    p = tool("compare", A, A, "--fail-on-change")
    assert p.returncode == 0 and "0 instruction figure(s) differ beyond noise" in p.stdout, p.stdout[-300:]
    # CSV: the instruction rows in compare's columns.
    rows = list(csv.DictReader(io.StringIO(tool("compare", A, B, "--format", "csv").stdout)))
    assert sorted((r["variant"], r["metric"]) for r in rows if r["change"] == "differs") == sorted(mk.DIFFERENT)
    # Bench captures keep their comparison: no instruction section.
    p = tool("compare", BENCH_ONLY, BENCH_ONLY)
    assert p.returncode == 0 and "instruction" not in p.stdout, p.stdout[-300:]


def fig(what, cycles, q1=None, q3=None, unstable=None, bound="exact"):
    f = instr.Figure(what)
    f.cycles, f.unstable, f.bound = cycles, unstable, bound
    if q1 is not None:
        f.spread = {"q1": q1, "q3": q3}
    return f


def test_the_rule_at_its_edges(ctx):
    lat, thr = "latency op2->op1", "throughput"
    # Latency: 0.15 cycle at small figures, 7% of the smaller at large ones.
    assert instr.differ(fig(lat, 1.0), fig(lat, 1.14)) == instr.SAME
    assert instr.differ(fig(lat, 1.0), fig(lat, 1.16)) == instr.DIFFERS
    assert instr.differ(fig(lat, 10.0), fig(lat, 10.6)) == instr.SAME
    assert instr.differ(fig(lat, 10.0), fig(lat, 10.8)) == instr.DIFFERS
    assert instr.differ(fig(lat, 10.8), fig(lat, 10.0)) == instr.DIFFERS     # symmetric
    # Throughput: 0.05 cycle, 15%.
    assert instr.differ(fig(thr, 0.25), fig(thr, 0.29)) == instr.SAME
    assert instr.differ(fig(thr, 0.25), fig(thr, 0.31)) == instr.DIFFERS
    assert instr.differ(fig(thr, 2.0), fig(thr, 2.25)) == instr.SAME
    assert instr.differ(fig(thr, 2.0), fig(thr, 2.35)) == instr.DIFFERS
    # Beyond the tolerance but inside either figure's spread (q3 - q1): no difference.
    assert instr.differ(fig(lat, 3.0, 2.9, 3.1), fig(lat, 4.0, 3.0, 5.1)) == instr.SAME
    assert instr.differ(fig(lat, 3.0, 1.9, 4.1), fig(lat, 4.0, 3.9, 4.1)) == instr.SAME
    assert instr.differ(fig(lat, 3.0, 2.9, 3.1), fig(lat, 4.0, 3.9, 4.1)) == instr.DIFFERS
    # Unstable, bounds, one side unmeasured.
    assert instr.differ(fig(lat, 3.0), fig(lat, 9.0, unstable="spread")) == instr.UNSTABLE
    assert instr.differ(fig(lat, 3.0), fig(lat, 9.0, bound="upper")) == instr.BOUND
    assert instr.differ(fig(lat, 3.0), fig(lat, None)) == instr.ONE_RUN


def test_export_csv_parses_back(ctx):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "table.csv")
        p = tool("export", "--instr", A, "-o", out)
        assert p.returncode == 0 and p.stdout == "" and p.stderr == "", (p.returncode, p.stderr)
        with open(out, "rb") as f:
            raw = f.read()
        assert raw.count(b"\r\n") == raw.count(b"\n") and raw.endswith(b"\r\n"), raw[:200]
        assert b'"ADD r64, r64"' in raw
        with open(out, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    from pmucap import cmd_export
    head, body = rows[0], rows[1:]
    assert tuple(head) == cmd_export.COLUMNS, head
    recs = [r for _, r in capture.Capture(A).pick().records if r["type"] == "instr"]
    assert len(body) == sum(max(1, len(r["latency"] or [])) for r in recs), len(body)
    got = [dict(zip(head, r)) for r in body]
    # Every pair of every form, with its figure as the record holds it.
    want = [(r["asm"], p["from"], p["to"], repr(p["cycles"])) for r in recs for p in (r["latency"] or [])]
    assert [(g["asm"], g["from"], g["to"], g["latency"]) for g in got if g["from"]] == want
    faulted = [g for g in got if g["asm"] == mk.FAULTED]
    assert len(faulted) == 1 and faulted[0]["from"] == "" and faulted[0]["latency"] == "" and \
        faulted[0]["why"].startswith("faulted: #UD"), faulted
    # One largest register pair per form that has one; the record's line for each row.
    for r in recs:
        marks = [g for g in got if g["asm"] == r["asm"] and g["largest_register_pair"] == "true"]
        assert len(marks) == (1 if r["latency"] else 0), (r["asm"], marks)
    assert {g["line"] for g in got if g["asm"] == "ADD r64, r64"} == {str(recs[0].line)}
    # Names that need quoting (a quote, a comma, a line break) come back as they were, on stdout too.
    odd = "ODD \"r64\", r64\nnext line"
    with capture_of(mk.head("X") + [{"type": "instr", "asm": odd, "latency": [], "throughput": None}]) as path:
        p = tool("export", "--instr", path)
    assert p.returncode == 0, p.stderr
    rows = list(csv.reader(io.StringIO(p.stdout, newline="")))
    assert rows[1][1] == odd and len(rows) == 2, rows
    # A latency the renamer resolved: 0, with the chain's rate in its own column; a rate that is no number is named.
    moved = {"type": "instr", "asm": "MOV r64, r64", "throughput": None,
             "latency": [{"from": "op2", "to": "op1", "cycles": 0.0, "chain_rate": 0.171, "bound": "exact"}]}
    with capture_of(mk.head("X") + [moved]) as path:
        p = tool("export", "--instr", path)
    assert p.returncode == 0, p.stderr
    rows = list(csv.reader(io.StringIO(p.stdout, newline="")))
    got = dict(zip(rows[0], rows[1]))
    assert (got["latency"], got["latency_chain_rate"]) == ("0.0", "0.171"), got
    with capture_of(mk.head("X") + [moved]) as path:
        p = tool("table", "--legend", path)
    assert "op2->op1 0.00r" in p.stdout and "the renamer resolved the chain" in p.stdout, p.stdout
    moved["latency"][0]["chain_rate"] = "fast"
    with capture_of(mk.head("X") + [moved]) as path:
        p = tool("export", "--instr", path)
    assert "latency[0].chain_rate" in p.stderr, p.stderr


def test_a_long_cell_does_not_widen_every_line_and_unstable_figures_go_one_a_line(ctx):
    """A full table has a few forms with a dozen pairs: their cells no longer pad every other line (a full table
    of the development host was 836 characters a line), and its thousands of unstable figures are listed one a
    line under a count by reason, not on one line."""
    def one(asm, npairs, unstable=None):
        lat = [{"from": f"op{j + 2}", "to": "op1", "cycles": 1.0 + j, "bound": "exact", "spread": mk.spread(1.0 + j),
                "unstable": unstable} for j in range(npairs)]
        return {"type": "instr", "cpu": {"n": 0}, "asm": asm, "iform": asm.split()[0], "extension": "BASE",
                "isa_set": "I86", "latency": lat, "throughput": None}
    recs = [one(f"ADD{i} r64, r64", 1) for i in range(40)] + [one("WIDE r64, r64", 12)] + \
        [one("SHAKY r64, r64", 1, "outliers"), one("JITTERY r64, r64", 1, "spread")]
    with capture_of(mk.head("X") + recs) as path:
        p = tool("table", path)
    assert p.returncode == 0, p.stderr
    lines = table_lines(p.stdout)
    wide = next(l for l in lines if l.startswith("WIDE "))
    others = [l for l in lines if l.startswith("ADD")]
    assert len(others) == 40 and "op13->op1 12.00" in wide, lines
    assert max(len(l) for l in others) < len(wide) - 100, (max(len(l) for l in others), len(wide))
    assert "~ unstable: 2 figure(s), marked ~ above (outliers 1, spread 1):" in p.stdout, p.stdout[-400:]
    assert "~ SHAKY r64, r64 latency op2->op1 (outliers)\n" in p.stdout and \
        "~ JITTERY r64, r64 latency op2->op1 (spread)\n" in p.stdout, p.stdout[-400:]


def test_match_chooses_the_forms_shown_and_exported(ctx):
    """--match REGEX (table, export --instr) keeps the forms whose asm name it finds; a bad expression exits 2
    naming it, an expression no form matches exits 1 saying so."""
    names = [f[0] for f in mk.FORMS if f[0] != mk.ONLY_B]
    want = [n for n in names if n.startswith("ADD ")]
    assert 1 < len(want) < len(names), want
    p = tool("table", "--match", "^ADD ", A)
    assert p.returncode == 0, p.stderr
    assert f"instruction table: {len(want)} form(s) of {len(names)} matching '^ADD '," in p.stdout, p.stdout[-800:]
    shown = [l for l in table_lines(p.stdout) if l and l[0].isupper() and not l.startswith("[")]
    assert [next(n for n in names if l.startswith(n + " ")) for l in shown] == want, shown
    rows = list(csv.DictReader(io.StringIO(tool("export", "--instr", "--match", "^ADD ", A).stdout)))
    assert sorted({r["asm"] for r in rows}) == sorted(want), rows
    for args in (("table", "--match", "(", A), ("export", "--instr", "--match", "[z-a]", A)):
        p = tool(*args)
        assert p.returncode == 2 and "--match" in p.stderr and "not a regular expression" in p.stderr, p.stderr
    p = tool("export", "--instr", "--match", "^NOSUCH", A)
    assert p.returncode == 1 and f"none of run 1's {len(names)} instruction forms matches '^NOSUCH'" in p.stderr, \
        p.stderr


def test_compare_lists_what_differs_first_and_counts_the_unstable_that_agree(ctx):
    """A full table has thousands of unstable figures, most within the tolerance of the other run's: text lists
    what differs first and counts those instead of listing them (--all lists them; json has them all)."""
    def one(asm, c, unstable=None):
        return {"type": "instr", "cpu": {"n": 0}, "asm": asm, "iform": asm.split()[0], "extension": "BASE",
                "isa_set": "I86", "throughput": None,
                "latency": [{"from": "op2", "to": "op1", "cycles": c, "bound": "exact", "spread": mk.spread(c),
                             "unstable": unstable}]}
    # (asm, A's figure, B's figure, B's unstable): within the tolerance, unstable; far, unstable; far, stable.
    forms = [(f"ADD r{w}, r{w}", 1.0, 1.01, "outliers") for w in (8, 16, 32)] + \
        [("IMUL r64, r64", 3.0, 3.9, "spread"), ("POPCNT r64, r64", 3.0, 4.0, None)]
    recs_a = mk.head("A") + [one(f, a) for f, a, _, _ in forms]
    recs_b = mk.head("B") + [one(f, b, u) for f, _, b, u in forms]
    with capture_of(recs_a) as pa, capture_of(recs_b) as pb:
        text = tool("compare", pa, pb).stdout
        every = tool("compare", "--all", pa, pb).stdout
        res = json.loads(tool("compare", "--format", "json", pa, pb).stdout)["instr"]
    lines = text.splitlines()
    listed = [l.split("  ")[0] for l in lines if l.endswith("not judged") or l.endswith("DIFFERS beyond noise")]
    assert listed == ["POPCNT r64, r64", "IMUL r64, r64"], text        # what differs first, the far unstable one
    assert "3 unstable figure(s) within the tolerance of the other run's not listed (--all lists them)" in text, text
    assert "4 unstable" in text and lines[-1] == "1 instruction figure(s) differ beyond noise", text
    assert sum(l.endswith("unstable: not judged") for l in every.splitlines()) == 4 and "not listed" not in every
    assert sorted(r["form"] for r in res["rows"] if r["status"] == "unstable") == \
        sorted(f for f, _, _, u in forms if u), res["rows"]
    assert [r["status"] for r in res["rows"]] == ["differs"] + ["unstable"] * 4, res["rows"]   # json: the same order


def test_export_misuse_and_nothing_to_export(ctx):
    p = tool("export", A)
    assert p.returncode == 2 and "--instr" in p.stderr, (p.returncode, p.stderr)
    p = tool("export", "--instr", BENCH_ONLY)
    assert p.returncode == 1 and "has no instr records to export" in p.stderr, (p.returncode, p.stderr)
    assert len(p.stderr.splitlines()) == 1, p.stderr


def bad_lines():
    """(line number, words its problem must hold) of every malformed record of instr-bad.jsonl."""
    want = {json.dumps(r, sort_keys=True): words for r, words in mk.BAD}
    out = []
    with open(BAD, encoding="latin-1") as f:
        for n, line in enumerate(f, 1):
            k = json.dumps(json.loads(line), sort_keys=True)
            if k in want:
                out.append((n, want[k]))
    assert len(out) == len(mk.BAD)
    return out


def test_bad_records_are_named_by_line_and_the_rest_used(ctx):
    bad = bad_lines()
    p = tool("table", BAD)
    assert p.returncode == 0 and "Traceback" not in p.stderr, (p.returncode, p.stderr)
    problems = [l for l in p.stdout.splitlines() if l.startswith("not used: ")]
    assert len(problems) == len(bad), problems
    for (n, words), line in zip(bad, problems):
        assert line.startswith(f"not used: run 1, line {n}: instr record") and words in line, (n, words, line)
    assert "instruction table: 31 form(s)" in p.stdout, p.stdout[:300]
    # export and compare: the same problems as warnings on stderr, the good forms used.
    p = tool("export", "--instr", BAD)
    warnings = [l for l in p.stderr.splitlines() if l.startswith("pmucap: warning: ")]
    assert p.returncode == 0 and len(warnings) == len(bad) and "Traceback" not in p.stderr, p.stderr
    for (n, words), line in zip(bad, warnings):
        assert f"line {n}: instr record" in line and words in line and line.endswith("the record is not used"), line
    # instr-bad holds machine A's forms besides the bad records: the same CSV but for the records' lines.
    def no_line(text):
        return [r[:-1] for r in csv.reader(io.StringIO(text))]
    assert no_line(p.stdout) == no_line(tool("export", "--instr", A).stdout)
    p = tool("compare", A, BAD, "--format", "json")
    res = json.loads(p.stdout)["instr"]
    assert p.returncode == 0 and res["counts"]["both"] == 31 and res["counts"]["differs"] == 0, res["counts"]
    assert len(res["problems"]) == len(bad) and all(x.startswith("B: run 1, line ") for x in res["problems"])


def test_forms_on_several_processors_and_parse_type(ctx):
    recs = mk.head("X")
    for n in (0, 1):
        recs.append({"type": "instr", "cpu": {"n": n}, "asm": "ADD r64, r64", "iform": "ADD_GPRv_GPRv_01",
                     "latency": [{"from": "op2", "to": "op1", "cycles": 1.0, "bound": "exact", "via": None}],
                     "throughput": None})
    with capture_of(recs) as path:
        table, parsed = tool("table", path), tool("parse", "--type", "instr", path)
    assert table.returncode == 0, table.stderr
    lines = table_lines(table.stdout)
    assert [l.split("  ")[0] for l in lines] == ["0:ADD r64, r64", "1:ADD r64, r64"], lines
    assert parsed.returncode == 0 and [json.loads(l)["cpu"]["n"] for l in parsed.stdout.splitlines()] == [0, 1], \
        parsed.stderr


ODD_VALUES = (None, True, 0, -1, 1.5, "", "x", [], [1], ["op1"], {}, {"a": 1}, {"cycles": "x"}, [{}], [None])


def paths(v, prefix=()):
    """Every path into a JSON value (keys and list indices)."""
    yield prefix
    if isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, prefix + (i,))


def replaced(v, path, new):
    if not path:
        return new
    out = dict(v) if isinstance(v, dict) else list(v)
    out[path[0]] = replaced(v[path[0]], path[1:], new)
    return out


def test_any_value_anywhere_is_a_form_or_a_named_problem(ctx):
    """Every field of a few records replaced by values of every JSON type: the reader keeps the record or names
    what is wrong, and the table, the CSV and the comparison are made of what it kept, never an exception."""
    from pmucap import cmd_export
    base = [r for _, r in capture.Capture(A).pick().records if r["type"] == "instr"]
    picked = [r for r in base if r["asm"] in ("ADD r64, m64", mk.FAULTED, "MUL r64")]
    made = []
    for rec in picked:
        for path in paths(dict(rec)):
            if path in ((), ("type",)):
                continue
            for v in ODD_VALUES:
                r = capture.Record(replaced(dict(rec), path, v))
                r.line, r.run = 9, 1
                if isinstance(r.get("iform"), str):
                    r["iform"] += f"#{len(made)}"   # a form of its own: each one kept goes into the table
                made.append(r)

    class FakeRun:
        records = [(r.line, r) for r in made]
    table = instr.read(FakeRun())
    assert table.forms and table.problems, (len(table.forms), len(table.problems))
    assert all(p.startswith("run 1, line 9: instr record") for p in table.problems), table.problems[:3]
    instr.rows(table)
    cmd_export.write(cmd_export.form_rows(table), io.StringIO())
    instr.compare(table, instr.read(capture.Capture(A).pick()))
    instr.compare_fleet([("a", table), ("b", table)])


def test_a_bench_figure_in_place_of_the_number_is_read(ctx):
    rec = capture.Record({"type": "instr", "asm": "ADD r64, r64", "latency": [
        {"from": "op2", "to": "op1", "cycles": {"median": 1.0, "q1": 0.99, "q3": 1.01, "n": 11}, "bound": "exact"}],
        "throughput": {"cycles": {"min": 0.2}, "how": "loop"}})
    try:
        instr.check(rec)
        raise AssertionError("a figure without its median was read")
    except instr.Bad as e:
        assert str(e) == "field throughput.cycles has no median", e
    rec["throughput"] = None
    f = instr.check(rec).latency[0]
    assert (f.cycles, f.spread, f.noise) == (1.0, {"q1": 0.99, "q3": 1.01, "n": 11}, 1.01 - 0.99), (f.cycles, f.spread)
