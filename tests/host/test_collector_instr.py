"""The collector's instruction tables (issue 31): the run page shows a run's `instr` records as a table, the
SKU page (and /api/sku) lists the forms whose figures differ between machines of one CPU model beyond their
noise (tools/pmucap/instr.py's rule), and every name from a record is escaped.  The runs are
tests/fixtures/instr-captures (make_instr.py), uploaded to a collector of the test's own
(tests/testlib/collector.py)."""
import copy
import html.parser
import json
import os
import runpy
import tempfile
import types
import urllib.parse

import testlib.collector as cl
from testlib.collector import Collector

FIX = os.path.join(cl.ROOT, "tests", "fixtures", "instr-captures")


# The fixtures' own script: what they hold (FORMS, B_CHANGES, BAD...) is read from it, not written again here.
mk = types.SimpleNamespace(**runpy.run_path(os.path.join(FIX, "make_instr.py")))


def fixture(name):
    with open(os.path.join(FIX, name), encoding="latin-1") as f:
        return f.read()


class Tables(html.parser.HTMLParser):
    """The text of every cell of every table with an id, by id: {id: [[cell text]]}; and every element's id."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tables, self.ids, self.cur, self.row, self.cell = {}, set(), None, None, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "table" and a.get("id"):
            self.cur = self.tables.setdefault(a["id"], [])
        elif tag == "tr" and self.cur is not None:
            self.row = []
            self.cur.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "table":
            self.cur = self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def page(c, path):
    status, body, hdrs = c.request("GET", path)
    assert status == 200 and hdrs.get("Content-Type", "").startswith("text/html"), (path, status, body[:300])
    return body.decode("utf-8")


def posted_page(c, text):
    """(the answer to uploading text, its run page's HTML); the run must be stored as PASS."""
    status, up = c.post(text)
    assert status == 201 and up["verdict"] == "PASS", up
    return up, page(c, f"/runs/{up['id']}")


def sku_path(api=False):
    return ("/api/sku" if api else "/sku") + "?cpu=" + urllib.parse.quote(mk.BRAND, safe="")


def test_run_page_shows_the_instruction_table(ctx):
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        _, html_a = posted_page(c, fixture("instr-a.jsonl"))
        t = Tables(html_a)
        rows = {r[0]: r for r in t.tables["instr"][1:]}
        want = [f[0] for f in mk.FORMS if f[0] != mk.ONLY_B]
        assert list(rows) == want, list(rows)
        # ADD r64, r64: op2->op1 is 1 cycle (the definition); the largest register pair is bold.
        assert "op2->op1 1.00" in rows["ADD r64, r64"][1], rows["ADD r64, r64"]
        assert "<td class=\"nowrap\">ADD r64, m64</td>" in html_a
        assert rows[mk.FAULTED][1] == "-" and rows[mk.FAULTED][5] == "faulted: #UD although CPUID enables it"
        assert rows[mk.EMULATED][5] == "emulated", rows[mk.EMULATED]
        bold = [r for r in html_a.split("<tr>") if r.startswith("<td class=\"nowrap\">IMUL r64, r64<")][0]
        assert "op2->op1 <strong>3.30</strong>" in bold.replace("&gt;", ">"), bold
        # A run of bench records only keeps its page as it was: no instruction table.
        t = Tables(posted_page(c, cl.upload_text("machine-a.jsonl"))[1])
        assert "instr" not in t.tables and "results" in t.tables, sorted(t.tables)


def test_a_full_instruction_table_is_taken_under_the_default_limit(ctx):
    """A full table (instr=all) is the largest run a machine sends: 26.6 MB on the development host's Xeon,
    which the old default (16 MiB) refused.  A run as large, of the fixtures' records with invented figures,
    is stored under the default limit, the collector's peak RSS growing by at most 8x the upload (as for any
    run: test_collector_hostile.py), and its page lists every form.  The page reads the run into
    figures and renders every row: with it the growth stays within 16x (measured: 3x storing the
    development host's table, 9x with its page)."""
    full = 26_600_000
    recs = mk.head("INSTR-FULL")
    size, n = 0, 0
    while size < full:
        form = mk.FORMS[n % len(mk.FORMS)]
        rec = mk.record(n % len(mk.FORMS), (f"{form[0]} #{n}",) + tuple(form[1:]), "a")
        size += len(json.dumps(rec)) + 1
        recs.append(rec)
        n += 1
    text = mk.frame(recs)
    assert len(text) > 16 << 20
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        before = c.peak_rss()
        status, up = c.post(text)
        assert status == 201 and up["verdict"] == "PASS", (status, up)
        stored = c.peak_rss() - before
        assert stored <= 8 * len(text), f"storing it grew the peak RSS {stored >> 20} MiB for {len(text) >> 20} MiB"
        html_full = page(c, f"/runs/{up['id']}")
        assert f">{recs[-1]['asm']}</td>" in html_full and html_full.count("<tr>") >= n, n
        grown = c.peak_rss() - before
        assert grown <= 16 * len(text), f"with its page the peak RSS grew {grown >> 20} MiB for {len(text) >> 20} MiB"


def test_run_page_chooses_forms_by_their_name(ctx):
    """?match= on the run page keeps the instruction rows (and their unstable figures) whose form holds the
    text (^ and $ anchor it), saying how many of how many; it is no regular expression, so a backtracking
    one is only text, and what it holds is escaped."""
    names = [f[0] for f in mk.FORMS if f[0] != mk.ONLY_B]
    want = [n for n in names if n.startswith("ADD ")]
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        up, _ = posted_page(c, fixture("instr-a.jsonl"))
        text = page(c, f"/runs/{up['id']}?match=" + urllib.parse.quote("^ADD "))
        t = Tables(text)
        assert [r[0] for r in t.tables["instr"][1:]] == want, t.tables["instr"]
        assert f"{len(want)} of {len(names)} forms match ^ADD ." in " ".join(text.split()), text[:3000]
        assert 'value="^ADD "' in text
        ending = [n for n in names if n.endswith(", r64")]
        t = Tables(page(c, f"/runs/{up['id']}?match=" + urllib.parse.quote(", r64$")))
        assert ending and [r[0] for r in t.tables["instr"][1:]] == ending, t.tables["instr"]
        text = page(c, f"/runs/{up['id']}?match=" + urllib.parse.quote("(a+)+$<b>"))
        assert len(Tables(text).tables["instr"]) == 1 and "(a+)+$&lt;b&gt;" in text and "$<b>" not in text
        # B's one unstable figure is listed with its form, and not with the others.
        up_b, _ = posted_page(c, fixture("instr-b.jsonl"))
        shaky = mk.UNSTABLE[0]
        t = Tables(page(c, f"/runs/{up_b['id']}?match=" + urllib.parse.quote("^" + shaky.split()[0] + " ")))
        assert "instr-unstable" in t.ids and [r[0] for r in t.tables["instr"][1:]] == [shaky], t.tables["instr"]
        assert "instr-unstable" not in Tables(page(c, f"/runs/{up_b['id']}?match=%5EADD%20")).ids


def test_bad_records_are_named_and_the_rest_shown(ctx):
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        _, text = posted_page(c, fixture("instr-bad.jsonl"))
        t = Tables(text)
        assert len(t.tables["instr"]) - 1 == len(mk.FORMS) - 1, len(t.tables["instr"])
        assert "instr-problems" in t.ids
        problems = [line for line in html.unescape(text).splitlines() if "not used: run 1, line" in line]
        assert len(problems) == len(mk.BAD), problems
        for (_, words), line in zip(mk.BAD, problems):
            assert words in line, (words, line)


def test_names_from_records_are_escaped(ctx):
    hostile = ["VPERMB zmm{k}{z}, zmm, <script>alert(1)</script>", "{{ 7*7 }} r64, r64", "ADD \"r64\", 'r64' & more"]
    recs = mk.head("INSTR-HOSTILE")
    for i, name in enumerate(hostile):
        recs.append({"type": "instr", "cpu": {"n": 0}, "asm": name, "iform": f"<b>IFORM{i}</b>",
                     "latency": [{"from": "op2", "to": "<i>op1</i>", "cycles": 1.5, "bound": "exact",
                                  "via": "<img src=x onerror=alert(1)>"}],
                     "throughput": {"cycles": 0.5, "how": "<u>loop</u>"}, "ports": "<p0>", "why": None,
                     "emulated": False})
    recs.append({"type": "instr", "asm": "<svg onload=alert(1)>", "latency": "<not a list>"})
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        _, text = posted_page(c, mk.frame(recs))
        for raw in ("<script>", "<img", "<i>", "<u>", "<p0>", "<svg", "<b>IFORM"):
            assert raw not in text, raw
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "{{ 7*7 }} r64, r64" in text
        assert "49" not in text.split("<table id=\"instr\">")[1].split("</table>")[0]
        rows = Tables(text).tables["instr"][1:]
        assert [r[0] for r in rows] == hostile, rows
        assert "not used" in text and "&lt;svg onload=alert(1)&gt;" in text


def test_run_page_shows_identifications_doubt(ctx):
    """A cpu record's uarch_doubt (a model number its features contradict) is shown beside the CPU,
    escaped; a run without one shows none, and one of the wrong type is named, not shown as a doubt."""
    doubt = "CPUID enumerates AMX-TILE (leaf 0x7 subleaf 0 EDX[24]), which no <b>Rocket Lake</b> has"
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        recs = mk.head("INSTR-DOUBT")
        recs[2]["uarch_doubt"] = doubt
        _, text = posted_page(c, mk.frame(recs + [mk.record(0, mk.FORMS[0], "a")]))
        t = Tables(text)
        assert "uarch-doubt" in t.ids
        assert "DOUBT: CPUID enumerates AMX-TILE" in text and "<b>Rocket" not in text, text
        assert "&lt;b&gt;Rocket Lake&lt;/b&gt;" in text
        _, text = posted_page(c, fixture("instr-a.jsonl"))
        assert "uarch-doubt" not in Tables(text).ids
        recs = mk.head("INSTR-DOUBT-BAD")
        recs[2]["uarch_doubt"] = 7
        _, text = posted_page(c, mk.frame(recs + [mk.record(0, mk.FORMS[0], "a")]))
        assert "DOUBT: not used:" in html.unescape(text) and "uarch_doubt is an integer" in html.unescape(text)


def test_sku_page_counts_the_unstable_figures_that_agree(ctx):
    """Two full tables have thousands of unstable figures, nearly all agreeing across the machines: the page
    lists what differs first and an unstable figure only when it may hide a difference (its machines' figures
    apart beyond the tolerance), counting the others; /api/sku has every row."""
    a = mk.machine("a")
    b = copy.deepcopy(a)
    b[1]["smbios"]["system_serial"] = "INSTR-Q"
    forms = [r for r in b if r.get("type") == "instr" and r.get("latency")]
    near, far, moved = forms[0], forms[1], forms[2]
    near["latency"][0].update(cycles=near["latency"][0]["cycles"] + 0.01, unstable="outliers")
    far["latency"][0].update(cycles=far["latency"][0]["cycles"] + 2.0, unstable="spread")
    moved["latency"][0].update(cycles=moved["latency"][0]["cycles"] + 2.0)
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        for recs in (a, b):
            status, up = c.post(mk.frame(recs))
            assert status == 201 and up["verdict"] == "PASS", up
        text = page(c, sku_path())
        t = Tables(text)
        body = t.tables["instr-fleet"][1:]
        assert [(r[0], r[2]) for r in body] == [(moved["asm"], "differs"), (far["asm"], "unstable")], body
        assert "instr-quiet" in t.ids and "1 unstable figure(s) within the tolerance" in text, text[-2000:]
        status, sku = c.get(sku_path(api=True))
        assert status == 200 and near["asm"] in {r["form"] for r in sku["instr"]["rows"]}, sku["instr"]["rows"]
        assert [r["status"] for r in sku["instr"]["rows"]] == ["differs", "unstable", "unstable"], sku["instr"]
        # The two runs' page lists and counts the same way.
        text = page(c, "/compare?a=1&b=2")
        t = Tables(text)
        assert [(r[0], r[4]) for r in t.tables["instr-compare"][1:]] == \
            [(moved["asm"], "differs"), (far["asm"], "unstable")], t.tables["instr-compare"]
        assert "instr-quiet" in t.ids and "1 unstable figure(s) within the tolerance" in text, text[-2000:]


def test_sku_page_lists_the_forms_that_differ_beyond_noise(ctx):
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        ids = []
        for name in ("instr-a.jsonl", "instr-b.jsonl"):
            status, up = c.post(fixture(name))
            assert status == 201, (name, up)
            ids.append(up["id"])
        t = Tables(page(c, sku_path()))
        rows = t.tables["instr-fleet"]
        head, body = rows[0], rows[1:]
        assert head[:3] == ["asm", "figure", "status"] and len(head) == 5, head
        listed = {(r[0], r[1]): r[2] for r in body}
        want = {k: "differs" for k in mk.DIFFERENT}
        want[mk.UNSTABLE] = "unstable"
        assert listed == want, listed
        # The JSON API says the same.
        status, sku = c.get(sku_path(api=True))
        assert status == 200, sku
        got = {(r["form"], r["figure"]): r["status"] for r in sku["instr"]["rows"]}
        assert got == want and sku["instr"]["counts"]["differs"] == len(mk.DIFFERENT), sku["instr"]
        unstable = next(r for r in sku["instr"]["rows"] if r["status"] == "unstable")
        assert sorted(f["unstable"] or "" for f in unstable["machines"].values()) == ["", "spread"], unstable
        json.dumps(sku, allow_nan=False)
        # The two runs compared (the compare page and /api/compare): the same forms, and those in one run only.
        t = Tables(page(c, f"/compare?a={ids[0]}&b={ids[1]}"))
        listed = {(r[0], r[1]): r[4] for r in t.tables["instr-compare"][1:]}
        assert {k: v for k, v in listed.items() if v in ("differs", "unstable")} == want, listed
        assert listed[(mk.ONLY_A, "(all)")] == "only in A" and listed[(mk.ONLY_B, "(all)")] == "only in B", listed
        status, cmp_ = c.get(f"/api/compare?a={ids[0]}&b={ids[1]}")
        assert status == 200 and cmp_["instr"]["counts"]["differs"] == len(mk.DIFFERENT), cmp_.get("instr")
