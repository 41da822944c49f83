"""events/uops.csv, the instruction table's µop events (docs/instr.md "µops and ports"): the generator
checks every row against the sets' vendor data and refuses a bad one with the file, line and the
problem; the committed table covers the cores issue 31 names."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import gen_events  # noqa: E402

VENDOR_HEADER = "name,event,umask,umask_ext,cmask,flags,counters,counters_htoff,fixed,msr,msr_value,alt,errata\n"


def tiny_tree(ctx, d, uops_rows):
    """An events/ folder with one Intel set `t` of two vendor events and the given uops.csv rows."""
    ev = os.path.join(d, "events")
    os.makedirs(os.path.join(ev, "vendor"))
    with open(os.path.join(ev, "sets.csv"), "w") as f:
        f.write("key,vendor,bases,doc,name,perf,vendor_name,data\n")
        f.write("t,intel,,doc,Test,,,perfmon X/events/x_core.json\n")
    with open(os.path.join(ev, "vendor", "t.csv"), "w") as f:
        f.write(VENDOR_HEADER + "UOPS_ISSUED.ANY,0x0e,0x01,,,,0-3,,,,,,\nUOPS_DISPATCHED.PORT_0,0xa1,0x01,,,,0-3,,,,,,\n")
    for name in ("ibs_derived.csv", "roles.csv", "amd_rules.csv"):
        shutil.copy(os.path.join(ctx.root, "events", name), ev)
    with open(os.path.join(ev, "uops.csv"), "w") as f:
        f.write("sets,what,port,name\n" + "".join(r + "\n" for r in uops_rows))
    return ev


def generate(ev):
    return subprocess.run([sys.executable, os.path.join(os.path.dirname(gen_events.__file__), "gen_events.py"),
                           "--dir", ev, "--out", os.path.join(ev, "x.c")], capture_output=True, text=True)


def test_generator_checks_the_uop_rows(ctx):
    good = ["t,issued,,UOPS_ISSUED.ANY", "t,port,p0,UOPS_DISPATCHED.PORT_0"]
    with tempfile.TemporaryDirectory() as d:
        p = generate(tiny_tree(ctx, d, good))
        assert p.returncode == 0, p.stderr
        text = open(os.path.join(d, "events", "x.c")).read()
        assert "const size_t events_uops_n = 2;" in text, text[-400:]
    cases = [
        ("t,retired,,UOPS_RETIRED.NOPE", "uops.csv:3: UOPS_RETIRED.NOPE is not an event of t"),
        ("nosuch,retired,,UOPS_ISSUED.ANY", "uops.csv:3: 'nosuch' is not a set"),
        ("t,executed,,UOPS_ISSUED.ANY", "uops.csv:3: what 'executed'"),
        ("t,port,,UOPS_ISSUED.ANY", "uops.csv:3: a port row needs its port label"),
        ("t,retired,p1,UOPS_ISSUED.ANY", "uops.csv:3: a port row needs its port label"),
        ("t,port,P-1,UOPS_ISSUED.ANY", "uops.csv:3: port label 'P-1'"),
        ("t,retired,,uops_issued.any", "uops.csv:3: uops_issued.any is listed twice for t"),
    ]
    for row, expect in cases:
        with tempfile.TemporaryDirectory() as d:
            p = generate(tiny_tree(ctx, d, good[:1] + [row]))
            assert p.returncode == 1, (row, p.stderr)
            assert expect in p.stderr, (row, expect, p.stderr)


def test_committed_table_covers_the_cores(ctx):
    """Sandy Bridge to the newest P-cores count µops retired and per port; the Atoms with port events
    have them; Zen 1-5 count ops retired and issued, Zen 1 its FP pipes."""
    v = gen_events.Vocabulary(os.path.join(ctx.root, "events"))
    v.load()
    kinds = {key: {gen_events.UOP_KINDS[k] for _, k, _ in rows} for key, rows in v.uops.items()}
    for key, want in [("sandybridge", {"retired", "issued", "dispatched", "port"}),
                      ("haswell", {"retired", "issued", "port"}),
                      ("skylake", {"retired", "issued", "dispatched", "port"}),
                      ("icelake", {"retired", "issued", "dispatched", "port"}),
                      ("goldencove", {"retired", "issued", "dispatched", "port"}),
                      ("graniterapids", {"retired", "issued", "dispatched", "port"}),
                      ("lioncove", {"retired", "issued", "dispatched", "port"}),
                      ("coyotecove", {"retired", "issued", "dispatched", "port"}),
                      ("crestmont", {"retired", "issued", "dispatched", "port"}),
                      ("skymont", {"retired", "issued", "dispatched", "port"}),
                      ("gracemont", {"retired", "issued"}),
                      ("zen1", {"retired", "issued", "port"}),
                      ("zen2", {"retired", "issued"}), ("zen3", {"retired", "issued"}),
                      ("zen4", {"retired", "issued"}), ("zen5", {"retired", "issued"}),
                      ("core", set())]:
        assert kinds[key] == want, (key, kinds[key], want)
    ports = {key: [p for _, k, p in rows if p] for key, rows in v.uops.items()}
    assert ports["goldencove"] == ["p0", "p1", "p4_9", "p6", "p7_8", "p2_3_10", "p5_11"], ports["goldencove"]
    assert ports["skylake"] == [f"p{i}" for i in range(8)]
