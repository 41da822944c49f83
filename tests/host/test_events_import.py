"""tools/events_import: the committed tables are what the vendors' data says, and the import
refuses what it cannot check.  The tests that read ../shared/vendor-events skip without it."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile



def run_import(ctx, *args):
    return subprocess.run([sys.executable, "-m", "tools.events_import", *args], cwd=ctx.root,
                          capture_output=True, text=True, timeout=300)


def sets(ctx):
    path = os.path.join(ctx.root, "events", "sets.csv")
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(l for l in f if l.strip() and not l.startswith("#")))


def listing(ctx, key):
    p = ctx.run_host("events", "--uarch", key, check=True)
    return {r["name"]: r for r in csv.DictReader(io.StringIO(p.stdout))}


def mask(text):
    """'0-3' / '0+2' / 'any' / 'none fixed1' (pmuboot-host's counters column) -> (mask, fixed)."""
    parts = text.split()
    fixed = int(parts[1][5:]) if len(parts) > 1 else None
    m = 0
    if parts[0] not in ("any", "none"):
        for p in parts[0].split("+"):
            lo, _, hi = p.partition("-")
            for c in range(int(lo), int(hi or lo) + 1):
                m |= 1 << c
    return m, fixed


def test_committed_tables_match_the_vendor_data(ctx):
    vendor = ctx.shared_path("vendor-events")
    p = run_import(ctx, "--check", "--vendor-events", vendor)
    assert p.returncode == 0, p.stderr
    assert "sets" in p.stdout


def test_import_is_byte_identical_on_rerun(ctx):
    vendor = ctx.shared_path("vendor-events")
    with tempfile.TemporaryDirectory() as d:
        outs = []
        for i in range(2):
            ev = os.path.join(d, f"e{i}")
            shutil.copytree(os.path.join(ctx.root, "events"), ev)
            shutil.rmtree(os.path.join(ev, "vendor"))
            p = run_import(ctx, "--vendor-events", vendor, "--events", ev)
            assert p.returncode == 0, p.stderr
            outs.append({f: open(os.path.join(ev, "vendor", f), "rb").read()
                         for f in sorted(os.listdir(os.path.join(ev, "vendor")))})
        assert outs[0] == outs[1]
        committed = os.path.join(ctx.root, "events", "vendor")
        assert sorted(outs[0]) == sorted(os.listdir(committed))


def perfmon_events(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["Events"]


def left_out(ctx, key):
    """The event names events/vendor/KEY.csv's header says the import left out."""
    with open(os.path.join(ctx.root, "events", "vendor", f"{key}.csv"), encoding="utf-8") as f:
        return {m.group(1) for m in re.finditer(r"^# left out: ([A-Za-z0-9_.:]+): ", f.read(), re.M)}


def linux_entries(ctx, key):
    """tools/events_import/linux_constraints.csv's entries for one set, in table order, read here
    with a plain split: [(lo, hi, umask or None, ubit, mask, resolve)]."""
    out = []
    with open(os.path.join(ctx.root, "tools", "events_import", "linux_constraints.csv")) as f:
        rows = list(csv.DictReader(l for l in f if l.strip() and not l.startswith("#")))
    for r in rows:
        if key not in r["sets"].split():
            continue
        lo, _, hi = r["event"].partition("-")
        um = r["umask"]
        out.append((int(lo, 16), int(hi or lo, 16), int(um.split()[-1], 16) if um else None, um.startswith("bit"),
                    int(r["mask"], 16), r["resolve"]))
    return out


def narrowed(entries, forms, allowed):
    """perfmon's counter list kept to the first Linux entry matching one of the event's forms."""
    for code, umask in forms:
        for lo, hi, um, ubit, mask, resolve in entries:
            if lo <= code <= hi and (um is None or (umask & um == um if ubit else umask == um)):
                both = allowed & mask
                return allowed if not both and resolve == "perfmon" else both
    return allowed


def test_intel_coverage(ctx):
    """Every Intel set with a perfmon file lists >= 99% of its non-deprecated core events with
    the exact encoding and counter restriction, read here straight from the JSON (kept to
    Linux's narrower lists where tools/events_import/linux_constraints.csv says so)."""
    vendor = ctx.shared_path("vendor-events")
    checked = 0
    for s in sets(ctx):
        if not s["data"].startswith("perfmon "):
            continue
        entries = linux_entries(ctx, s["key"])
        evs = perfmon_events(os.path.join(vendor, "intel", s["data"].split()[1]))
        mine = listing(ctx, s["key"])
        base = 1 if not any(e.get("Counter") == "Fixed counter 0" for e in evs) else 0
        # Events the import leaves out are named, with the reason, in the vendor table's header.
        skipped = left_out(ctx, s["key"])
        assert skipped <= {e["EventName"] for e in evs}, f"{s['key']}: left out but not in the file: {skipped}"
        assert all(e["EventName"] not in mine for e in evs if e["EventName"] in skipped)
        want = [e for e in evs if e.get("Deprecated", "0") != "1" and e["EventName"] not in skipped]
        missing = []
        for e in want:
            r = mine.get(e["EventName"])
            if not r:
                missing.append(e["EventName"])
                continue
            m, fixed = mask(r["counters"])
            if e["Counter"].startswith("Fixed counter"):
                ok = fixed == int(e["Counter"].split()[-1]) - base and r["counters"].startswith("none")
            else:
                # Offcore: form 1 pairs with OFFCORE_RSP_0 (1A6H), form 2 with OFFCORE_RSP_1 (1A7H);
                # an event documented with 1A7H alone is its second form.
                form = -1 if e.get("MSRIndex", "0").strip().lower() == "0x1a7" else 0
                code = int(e["EventCode"].split(",")[form], 16)
                umask = int(e["UMask"].split(",")[form], 16)
                allowed = sum(1 << int(c) for c in e["Counter"].split(","))
                codes = [int(x, 16) for x in e["EventCode"].split(",")]
                umasks = [int(x, 16) for x in e["UMask"].split(",")]
                forms = [(codes[0], umasks[0]), (codes[-1], umasks[-1])]
                allowed = narrowed(entries, forms, allowed)
                ok = (int(r["event"], 16), int(r["umask"], 16), int(r["cmask"]), r["inv"], r["edge"], m) == \
                     (code, umask, int(e["CounterMask"]), e["Invert"], e["EdgeDetect"], allowed)
            if not ok:
                missing.append(f"{e['EventName']} (differs: {r})")
        assert len(missing) <= len(want) // 100, f"{s['key']}: {len(missing)} of {len(want)}: {missing[:5]}"
        checked += 1
    assert checked >= 47, checked     # every perfmon core file identification can reach


UMASK_ARRAY = re.compile(r"static const amd64_umask_t (\w+)\[\]\s*=\s*\{(.*?)\n\};", re.S)
ENTRY = re.compile(r"\{\s*\.name\s*=\s*\"(\w+)\".*?\.code\s*=\s*(0x[0-9a-fA-F]+|\d+)(.*?)\n\s*\}", re.S)


def test_amd_coverage(ctx):
    """Every (event, unit mask) of each AMD family's libpfm4 table is listed, read here with a
    plain pattern match rather than the importer's parser."""
    vendor = ctx.shared_path("vendor-events")
    checked = 0
    for s in sets(ctx):
        if not (s["data"].startswith("libpfm4 amd/")):
            continue
        with open(os.path.join(vendor, s["data"].split()[1]), encoding="latin-1") as f:
            text = f.read()
        arrays = {m.group(1): [int(x, 0) for x in re.findall(r"\.ucode\s*=\s*(0x[0-9a-fA-F]+|\d+)", m.group(2))]
                  for m in UMASK_ARRAY.finditer(text)}
        pairs = set()
        table = text[text.index(s["data"].split()[2] + "[]"):]
        for m in ENTRY.finditer(table):
            code, rest = int(m.group(2), 0), m.group(3)
            um = re.search(r"\.umasks\s*=\s*(\w+)", rest)
            grp = re.search(r"\.ngrp\s*=\s*(\d+)", rest)
            if not um:
                pairs.add((code, 0))
            elif not grp or grp.group(1) == "1":
                pairs.update((code, u) for u in arrays[um.group(1)] if u <= 0xFF)
        listed = {(int(r["event"], 16), int(r["umask"], 16)) for r in listing(ctx, s["key"]).values()}
        assert pairs and pairs <= listed, f"{s['key']}: missing {sorted(pairs - listed)[:8]}"
        checked += 1
    assert checked == 13, checked


def minimal_tree(ctx, d, data, role_rows=""):
    """An events/ folder with one imported set (data: the sets.csv data column)."""
    ev = os.path.join(d, "events")
    os.makedirs(ev)
    with open(os.path.join(ev, "sets.csv"), "w") as f:
        f.write("key,vendor,bases,doc,name,perf,vendor_name,data\n")
        f.write(f"t,{'amd' if 'amd/' in data else 'intel'},,doc,Test,,,{data}\n")
    if role_rows:
        with open(os.path.join(ev, "t.csv"), "w") as f:
            f.write("name,event,umask,cmask,flags,counters,fixed,roles,source,description\n" + role_rows + "\n")
    shutil.copy(os.path.join(ctx.root, "events", "ibs_derived.csv"), ev)
    shutil.copy(os.path.join(ctx.root, "events", "roles.csv"), ev)
    shutil.copy(os.path.join(ctx.root, "events", "amd_rules.csv"), ev)
    return ev


def perfmon_file(d, events):
    v = os.path.join(d, "vendor-events", "intel", "X", "events")
    os.makedirs(v)
    with open(os.path.join(v, "x_core.json"), "w") as f:
        json.dump({"Header": {"Version": "1"}, "Events": events}, f)
    return os.path.join(d, "vendor-events")


GOOD = {"EventName": "LD_BLOCKS.STORE_FORWARD", "EventCode": "0x03", "UMask": "0x02", "Counter": "0,1,2,3",
        "CounterMask": "0", "Invert": "0", "EdgeDetect": "0", "AnyThread": "0", "MSRIndex": "0x00",
        "MSRValue": "0x00", "BriefDescription": "prose", "PublicDescription": "prose"}


def test_import_refuses_what_it_cannot_check(ctx):
    cases = [
        (dict(GOOD, NewField="1"), "unknown field(s) NewField"),
        (dict(GOOD, MSRIndex="0x1234"), "MSRIndex 0x1234"),
        (dict(GOOD, EventCode="0x03, 0xBB", MSRIndex="0x3F6"), "two event forms"),
        (dict(GOOD, Invert="2"), "Invert '2'"),
        (dict(GOOD, Counter="0,x"), "counter"),
        (dict(GOOD, Equal="1"), "Equal=1"),
    ]
    for ev, expect in cases:
        with tempfile.TemporaryDirectory() as d:
            vendor = perfmon_file(d, [ev])
            events = minimal_tree(ctx, d, "perfmon X/events/x_core.json")
            p = run_import(ctx, "--vendor-events", vendor, "--events", events)
            assert p.returncode == 1, (ev, p.stdout)
            assert expect in p.stderr and "x_core.json" in p.stderr and "LD_BLOCKS.STORE_FORWARD" in p.stderr, \
                (expect, p.stderr)


def test_paired_forms_left_out_by_name(ctx):
    """An event in one form per (unit mask, extra MSR) pair (Nova Lake's MEM_LOAD_L2_MISS_RETIRED.*)
    is left out and named in the table's header; without perfmon's restriction it is refused.  An
    offcore event documented with OFFCORE_RSP_1 alone (Knights Landing) is its second form."""
    paired = dict(GOOD, EventName="MEM_LOAD.PAIRED", EventCode="0xD6", UMask="0x01,0x02,0x04,0x08",
                  MSRIndex="0x3E0,0x3E1,0x3E2,0x3E3", MSRValue="0x1", ProgrammingRestriction="MSRIndex-UMask")
    rsp1 = dict(GOOD, EventName="OFFCORE_RESPONSE.X", EventCode="0xB7", UMask="0x01,0x02", MSRIndex="0x1a7",
                MSRValue="0x14800", Offcore="1")
    with tempfile.TemporaryDirectory() as d:
        vendor = perfmon_file(d, [GOOD, paired, rsp1])
        events = minimal_tree(ctx, d, "perfmon X/events/x_core.json")
        p = run_import(ctx, "--vendor-events", vendor, "--events", events)
        assert p.returncode == 0, p.stderr
        text = open(os.path.join(events, "vendor", "t.csv")).read()
        assert "# left out: MEM_LOAD.PAIRED: 4 forms, unit mask 0x01/0x02/0x04/0x08" in text, text
        assert "\nMEM_LOAD.PAIRED," not in text and "\nLD_BLOCKS.STORE_FORWARD,0x03,0x02," in text
        assert "\nOFFCORE_RESPONSE.X,0xb7,0x02,,,,0-3,,,0x1a7,0x14800,," in text, text
    with tempfile.TemporaryDirectory() as d:
        unpaired = dict(paired)
        del unpaired["ProgrammingRestriction"]
        vendor = perfmon_file(d, [unpaired])
        events = minimal_tree(ctx, d, "perfmon X/events/x_core.json")
        p = run_import(ctx, "--vendor-events", vendor, "--events", events)
        assert p.returncode == 1 and "MEM_LOAD.PAIRED: more than two event codes or unit masks" in p.stderr, p.stderr


def test_role_row_must_match_the_vendor(ctx):
    with tempfile.TemporaryDirectory() as d:
        vendor = perfmon_file(d, [GOOD])
        events = minimal_tree(ctx, d, "perfmon X/events/x_core.json",
                              "LD_BLOCKS.STORE_FORWARD,0x03,0x82,,,,,stlf_block,@doc,Blocked forwards")
        p = run_import(ctx, "--vendor-events", vendor, "--events", events)
        assert p.returncode == 1
        assert "t.csv:2: role row LD_BLOCKS.STORE_FORWARD" in p.stderr, p.stderr
        # The right encoding imports; the vendor file carries no prose.
        with open(os.path.join(events, "t.csv"), "w") as f:
            f.write("name,event,umask,cmask,flags,counters,fixed,roles,source,description\n"
                    "LD_BLOCKS.STORE_FORWARD,0x03,0x02,,,,,stlf_block,@doc,Blocked forwards\n")
        p = run_import(ctx, "--vendor-events", vendor, "--events", events)
        assert p.returncode == 0, p.stderr
        text = open(os.path.join(events, "vendor", "t.csv")).read()
        assert "LD_BLOCKS.STORE_FORWARD,0x03,0x02,,,,0-3," in text and "prose" not in text


def test_libpfm_refusals(ctx):
    with tempfile.TemporaryDirectory() as d:
        amd = os.path.join(d, "vendor-events", "amd")
        os.makedirs(amd)
        with open(os.path.join(amd, "x.h"), "w") as f:
            f.write('static const amd64_entry_t amd64_x_pe[]={\n{ .name = "E", .desc = "d", .code = 0x76,'
                    ' .flags = AMD64_FL_SOMETHING_NEW },\n};\n')
        events = minimal_tree(ctx, d, "libpfm4 amd/x.h amd64_x_pe family=0x15")
        p = run_import(ctx, "--vendor-events", os.path.join(d, "vendor-events"), "--events", events)
        assert p.returncode == 1 and "x.h" in p.stderr and "E" in p.stderr, p.stderr
        with open(os.path.join(amd, "x.h"), "w") as f:
            f.write('static const amd64_entry_t amd64_x_pe[]={\n{ .name = "CYC", .desc = "d", .code = 0x76 },\n'
                    '{ .name = "FP", .desc = "d", .code = 0x3 },\n};\n')
        p = run_import(ctx, "--vendor-events", os.path.join(d, "vendor-events"), "--events", events)
        assert p.returncode == 0, p.stderr
        text = open(os.path.join(events, "vendor", "t.csv")).read()
        assert "CYC,0x76,0x00,,,,0-2," in text     # Family 15h: PERF_CTL[2:0]
        assert "FP,0x03,0x00,,,,3," in text        # FP unit event 003H: PERF_CTL3 only


def test_import_needs_the_vendor_folder(ctx):
    p = run_import(ctx, "--vendor-events", "/nonexistent/vendor-events", "--check")
    assert p.returncode == 2 and "/nonexistent/vendor-events" in p.stderr


def test_linux_constraints_file_is_well_formed(ctx):
    """Every entry of the Linux overrides names perfmon sets of events/sets.csv, a table and a mask,
    and the importer reads it (it refuses a malformed file with the line named)."""
    perfmon_sets = {s["key"] for s in sets(ctx) if s["data"].startswith("perfmon ")}
    path = os.path.join(ctx.root, "tools", "events_import", "linux_constraints.csv")
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if l.strip() and not l.startswith("#")))
    assert rows
    for r in rows:
        assert set(r["sets"].split()) <= perfmon_sets, r
        assert r["table"].startswith("intel_") and r["table"].endswith("_event_constraints"), r
        assert int(r["mask"], 16) > 0, r
    with tempfile.TemporaryDirectory() as d:
        bad = os.path.join(d, "lc.csv")
        with open(bad, "w") as f:
            f.write("file,table,sets,event,umask,mask,resolve\ncore.c,intel_x_event_constraints,t,0xzz,,0xf,\n")
        vendor = perfmon_file(d, [GOOD])
        events = minimal_tree(ctx, d, "perfmon X/events/x_core.json")
        p = run_import(ctx, "--vendor-events", vendor, "--events", events, "--linux-constraints", bad)
        assert p.returncode == 1 and "lc.csv:2" in p.stderr and "0xzz" in p.stderr, p.stderr


OCR = dict(GOOD, EventName="OCR.DEMAND_DATA_RD.ANY_RESPONSE", EventCode="0x2A,0x2B", UMask="0x01,0x01",
           Counter="0,1,2,3,4,5,6,7,8,9", MSRIndex="0x1a6,0x1a7", MSRValue="0x10001", Offcore="1")
MEMBOUND = dict(GOOD, EventName="TOPDOWN.MEMORY_BOUND_SLOTS", EventCode="0xa4", UMask="0x10", Counter="3")


def test_linux_constraints_narrow_perfmon(ctx):
    """Defect e: where Linux's table allows fewer counters than perfmon, the import keeps the
    intersection (matching an offcore row by its second form too), says so in the file's header,
    and refuses a disjoint pair unless the entry says which side wins."""
    def entries(resolve):
        return ("file,table,sets,event,umask,mask,resolve\n"
                "core.c,intel_lnc_event_constraints,t,0x2b,0x01,0xf,\n"
                f"core.c,intel_lnc_event_constraints,t,0xa4,0x10,0x1,{resolve}\n")
    with tempfile.TemporaryDirectory() as d:
        vendor = perfmon_file(d, [OCR, MEMBOUND])
        events = minimal_tree(ctx, d, "perfmon X/events/x_core.json")
        lc = os.path.join(d, "lc.csv")
        with open(lc, "w") as f:
            f.write(entries(""))
        p = run_import(ctx, "--vendor-events", vendor, "--events", events, "--linux-constraints", lc)
        assert p.returncode == 1 and "lc.csv:3" in p.stderr and "TOPDOWN.MEMORY_BOUND_SLOTS" in p.stderr \
            and "no counter in common" in p.stderr, p.stderr
        with open(lc, "w") as f:
            f.write(entries("perfmon"))
        p = run_import(ctx, "--vendor-events", vendor, "--events", events, "--linux-constraints", lc)
        assert p.returncode == 0, p.stderr
        text = open(os.path.join(events, "vendor", "t.csv")).read()
        assert "OCR.DEMAND_DATA_RD.ANY_RESPONSE,0x2a,0x01,,,,0-3," in text, text
        assert "TOPDOWN.MEMORY_BOUND_SLOTS,0xa4,0x10,,,,3," in text, text
        assert "# narrowed by Linux intel_lnc_event_constraints 0x2b/0x01 (0-3): 1 row 0-9 -> 0-3" in text, text
        assert "perfmon's list kept" in text, text
