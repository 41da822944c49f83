"""tools/gen_oracle.py: the PMU model's table of what each event counts (pmu/count/oracle.csv and its C form
pmu/count/pmu_oracle_host.c), classified from the vendors' own event descriptions.

The committed table is re-derived from ../shared/vendor-events and must be byte-identical (skips without
../shared); the C table must be the CSV's; and the generator must refuse, by name, the rows it cannot
classify honestly (checked on small made-up vendor files, so without ../shared too).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "gen_oracle.py")
CSV = os.path.join(ROOT, "pmu", "count", "oracle.csv")
C = os.path.join(ROOT, "pmu", "count", "pmu_oracle_host.c")


def tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=300)


def test_oracle_rederived_from_vendor_events(ctx):
    vendor = ctx.shared_path("vendor-events")
    with tempfile.TemporaryDirectory() as d:
        csv_out, c_out = os.path.join(d, "oracle.csv"), os.path.join(d, "oracle.c")
        p = tool("--vendor-events", vendor, "--csv", csv_out, "--c", c_out)
        assert p.returncode == 0, p.stderr
        for new, committed in ((csv_out, CSV), (c_out, C)):
            with open(new, encoding="utf-8") as a, open(committed, encoding="utf-8") as b:
                assert a.read() == b.read(), f"{committed} is not what tools/gen_oracle.py makes of {vendor}"


def test_c_table_is_the_csv(ctx):
    p = tool("--c-from-csv", CSV, "--c", C, "--check")
    assert p.returncode == 0, p.stderr


def rows():
    with open(CSV, encoding="utf-8") as f:
        lines = [l.rstrip("\n").split(",") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0]
    return [dict(zip(head, l)) for l in lines[1:]]


def test_reference_clocks_as_the_vendors_say(ctx):
    """3CH/01H is not REF_TSC everywhere (issue 30): the table says what each core's description says."""
    ref = {(r["set"]): r["counts"] for r in rows() if r["event"] == "0x3c" and r["umask"] == "0x01"
           and r["fixed"] == "-1" and r["any"] == "0"}
    want = {"core": "bus_clocks", "bonnell": "bus_clocks", "coreduo": "bus_clocks", "nehalem": "ref_133mhz",
            "westmere": "ref_133mhz", "sandybridge": "ref_100mhz", "haswell": "ref_100mhz", "broadwell": "ref_100mhz",
            "skylake": "ref_crystal", "skylake_server": "ref_crystal", "cascadelakex": "ref_crystal",
            "icelake": "ref_crystal", "tigerlake": "ref_crystal", "rocketlake": "ref_crystal",
            "goldencove": "ref_tsc", "lioncove": "ref_tsc", "gracemont": "ref_tsc", "tremont": "ref_tsc",
            "silvermont": "ref_tsc"}
    for s, counts in want.items():
        assert ref.get(s) == counts, f"{s}: 3CH/01H counts {ref.get(s)}, want {counts}"
    # Fixed counter 2 counts at the TSC's rate on every core that has one.
    assert {r["counts"] for r in rows() if r["fixed"] == "2"} == {"ref_tsc"}


def make_vendor(d, events):
    """A one-set event tree (events/sets.csv) and a perfmon file holding `events`."""
    os.makedirs(os.path.join(d, "events"))
    with open(os.path.join(d, "events", "sets.csv"), "w") as f:
        f.write("key,vendor,bases,doc,name,perf,vendor_name,data\n"
                "made,intel,,x,Made up,,Made,perfmon MADE/events/made_core.json\n")
    os.makedirs(os.path.join(d, "v", "intel", "MADE", "events"))
    base = {"Counter": "0,1,2,3", "CounterMask": "0", "EdgeDetect": "0", "Invert": "0", "AnyThread": "0",
            "SampleAfterValue": "100003", "PEBS": "0", "MSRIndex": "0x00", "MSRValue": "0x00"}
    with open(os.path.join(d, "v", "intel", "MADE", "events", "made_core.json"), "w") as f:
        json.dump({"Header": {"Version": "1"}, "Events": [dict(base, **e) for e in events]}, f)


GOOD = [
    {"EventName": "INST_RETIRED.ANY_P", "EventCode": "0xC0", "UMask": "0x00",
     "BriefDescription": "Number of instructions retired.", "PublicDescription": "x"},
    {"EventName": "CPU_CLK_UNHALTED.THREAD_P", "EventCode": "0x3C", "UMask": "0x00",
     "BriefDescription": "Thread cycles when thread is not in halt state", "PublicDescription": "x"},
    {"EventName": "BR_INST_RETIRED.ALL_BRANCHES", "EventCode": "0xC4", "UMask": "0x00",
     "BriefDescription": "All branch instructions retired.", "PublicDescription": "x"},
]


def generate(events):
    with tempfile.TemporaryDirectory() as d:
        make_vendor(d, events)
        p = tool("--vendor-events", os.path.join(d, "v"), "--events", os.path.join(d, "events"),
                 "--csv", os.path.join(d, "o.csv"), "--c", os.path.join(d, "o.c"))
        text = open(os.path.join(d, "o.csv")).read() if p.returncode == 0 else ""
        return p, text


def test_generator_refuses_bad_rows_by_name(ctx):
    p, text = generate(GOOD)
    assert p.returncode == 0, p.stderr
    assert "made,INST_RETIRED.ANY_P,0xc0,0x00,0x00,-1,0,instructions,thread" in text
    cases = [
        # A reference clock whose description states no rate.
        ({"EventName": "CPU_CLK_UNHALTED.REF_X", "EventCode": "0x3C", "UMask": "0x01",
          "BriefDescription": "Reference cycles when the core is not in halt state.", "PublicDescription": "y"},
         "CPU_CLK_UNHALTED.REF_X: a reference clock whose description states no rate"),
        # Two rows with one encoding that say different things.
        ({"EventName": "ODD.ALIAS", "EventCode": "0xC0", "UMask": "0x00",
          "BriefDescription": "All branch instructions retired.", "PublicDescription": "y"},
         "ODD.ALIAS: same encoding as INST_RETIRED.ANY_P"),
        # A clock-named event whose description is its own name.
        ({"EventName": "CPU_CLK_UNHALTED.MYSTERY", "EventCode": "0x3C", "UMask": "0x04",
          "BriefDescription": "CPU_CLK_UNHALTED.MYSTERY", "PublicDescription": "CPU_CLK_UNHALTED.MYSTERY"},
         "CPU_CLK_UNHALTED.MYSTERY: its description is a placeholder"),
        # Core clocks on the fixed counter the SDM gives reference cycles.
        ({"EventName": "CPU_CLK_UNHALTED.WRONG", "EventCode": "0x00", "UMask": "0x03", "Counter": "Fixed counter 2",
          "BriefDescription": "Core cycles when the thread is not in halt state", "PublicDescription": "y"},
         "CPU_CLK_UNHALTED.WRONG: on fixed counter 2 it says core_clocks"),
    ]
    for extra, words in cases:
        p, _ = generate(GOOD + [extra])
        assert p.returncode == 1, extra
        assert words in p.stderr, p.stderr
    # A set whose descriptions give no branches event is refused, named.
    p, _ = generate(GOOD[:2])
    assert p.returncode == 1 and "made: no general-counter event its vendor describes as counting branches" in p.stderr
