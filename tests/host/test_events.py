"""pmuboot-host events: the event vocabulary as CSV, checked against the seed documents."""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

import gen_uarch
from testlib import Skip

HEADER = ("uarch,name,event,umask,cmask,inv,edge,counters,precise,source,description,"
          "any,umask_ext,counters_smt_off,flags,msr,msr_value,alt,errata,roles")
# Every event-set key, from the one table of them (events/sets.csv, through the reader the table
# generators share).
KEYS = [key for key, _, _ in gen_uarch.read_sets(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))]
HEXH = re.compile(r"^([0-9A-F]{2})H$")
FRAG = re.compile(r"^[A-Z0-9_.]+$")


def events_csv(ctx, *args):
    p = ctx.run_host("events", *args, check=True)
    lines = p.stdout.splitlines()
    assert lines and lines[0] == HEADER, f"header is {lines[:1]}"
    return p.stdout, list(csv.DictReader(io.StringIO(p.stdout)))


def seed_lines(ctx, prefix):
    d = ctx.shared_path("seeds")
    name = next((f for f in sorted(os.listdir(d)) if f.startswith(prefix)), None)
    if not name:
        raise Skip(f"seed {prefix}* not in {d}")
    with open(os.path.join(d, name), encoding="utf-8") as f:
        lines = [l.strip() for l in f.read().splitlines() if l.strip()]
    out = []
    for l in lines:     # Silvermont's PDF puts the H suffix on a line of its own
        if l == "H" and out and re.match(r"^[0-9A-F]{2}$", out[-1]):
            out[-1] += "H"
        else:
            out.append(l)
    return out


def parse_code_umask_name(lines):
    """(name, code, umask) from tables laid out code, umask, name (Core, Goldmont, Silvermont)."""
    toks = []   # (token, alone on its line, last on its line)
    for l in lines:
        parts = l.split()
        for i, t in enumerate(parts):
            toks.append((t, len(parts) == 1, i == len(parts) - 1))
    found, i = [], 0
    while i + 2 < len(toks):
        a, b, c = (HEXH.match(toks[i][0]), HEXH.match(toks[i + 1][0]), FRAG.match(toks[i + 2][0]))
        if not (a and b and c):
            i += 1
            continue
        j, name = i + 2, toks[i + 2][0]
        while toks[j][2] and j + 1 < len(toks) and toks[j + 1][1] and FRAG.match(toks[j + 1][0]) \
                and not HEXH.match(toks[j + 1][0]):
            j += 1
            name += toks[j][0]
        found.append((name, int(a.group(1), 16), int(b.group(1), 16)))
        i = j + 1
    return found


def parse_p6(lines):
    found, state, name, code, listed = [], "idle", "", 0, 0
    for l in lines:
        m = HEXH.match(l)
        if state == "idle":
            if m:
                code, name, state = int(m.group(1), 16), "", "name"
        elif state == "name":
            if m and name:
                found.append((name, code, int(m.group(1), 16)))
                state = "idle"
            elif FRAG.match(l) or (l.startswith("_") and FRAG.match(l[1:])):
                name += l
            else:
                state, listed = "umasks", 0
        elif state == "umasks":
            if m:
                found.append((name, code, int(m.group(1), 16)))
                listed += 1
            elif listed:
                state = "idle"
    return found


def check_listed(rows, key, seed):
    mine = [r for r in rows if r["uarch"] == key]
    assert mine, f"no rows for {key}"
    for name, code, umask in seed:
        hits = [r for r in mine if (r["name"] == name or r["name"].startswith(name + "."))
                and int(r["event"], 16) == code and int(r["umask"], 16) == umask]
        assert hits, f"{key}: seed event {name} {code:02X}H/{umask:02X}H not listed"


def test_goldmont_lists_every_seed_event(ctx):
    seed = parse_code_umask_name(seed_lines(ctx, "002_"))
    assert len(seed) == 13, seed
    _, rows = events_csv(ctx, "--uarch", "goldmont")
    check_listed(rows, "goldmont", seed)
    assert {r["uarch"] for r in rows} == {"goldmont"}
    sf = next(r for r in rows if r["name"] == "LD_BLOCKS.STORE_FORWARD")
    assert sf["precise"] == "1" and "goldmont_core.json" in sf["source"], sf
    assert sf["description"], sf        # a role row: our own words


def test_silvermont_lists_every_seed_event(ctx):
    seed = parse_code_umask_name(seed_lines(ctx, "003_"))
    assert len(seed) == 11, seed
    _, rows = events_csv(ctx, "--uarch", "silvermont")
    check_listed(rows, "silvermont", seed)


def test_core_lists_every_seed_event(ctx):
    seed = parse_code_umask_name(seed_lines(ctx, "000_"))
    assert [s[0] for s in seed] == ["LOAD_BLOCK.STA", "LOAD_BLOCK.STD", "LOAD_BLOCK.OVERLAP_STORE"], seed
    _, rows = events_csv(ctx, "--uarch", "core")
    check_listed(rows, "core", seed)


def test_p6_lists_every_seed_event(ctx):
    seed = parse_p6(seed_lines(ctx, "004_"))
    assert len(seed) == 12, seed
    _, rows = events_csv(ctx, "--uarch", "p6")
    check_listed(rows, "p6", seed)
    kni = [r for r in rows if r["name"].startswith("EMON_KNI_PREF_DISPATCHED.")]
    assert sorted(int(r["umask"], 16) for r in kni) == [0, 1, 2, 3]
    assert all(r["counters"] == "0-1" for r in kni), kni


def test_ibs_derived_events_listed(ctx):
    text = "\n".join(seed_lines(ctx, "001_"))
    seed = re.findall(r"^Event Select 0x([0-9A-F]{4}) (.+)\nAbbreviation: (.+)$", text, re.M)
    assert len(seed) == 59
    _, rows = events_csv(ctx, "--uarch", "ibs")
    assert len(rows) == 59
    by_code = {int(r["event"], 16): r for r in rows}
    for code, name, abbrev in seed:
        r = by_code.get(int(code, 16))
        assert r, f"IBS 0x{code} missing"
        assert r["name"] == name and r["description"].startswith(f"[{abbrev}] "), r
    # ...and in the full listing, as the IBS work's acceptance needs.
    _, every = events_csv(ctx, "--uarch", "all")
    assert sum(r["uarch"] == "ibs" for r in every) == 59


def test_full_listing_sorted_and_deterministic(ctx):
    out1, rows = events_csv(ctx, "--uarch", "all")
    out2, _ = events_csv(ctx, "--uarch", "all")
    assert out1 == out2
    assert {r["uarch"] for r in rows} == set(KEYS) | {"ibs"}
    keys = [r["uarch"] for r in rows]
    assert keys == sorted(keys)
    for k in set(keys) - {"ibs"}:
        names = [r["name"] for r in rows if r["uarch"] == k]
        assert names == sorted(names), k
    for r in rows:
        assert r["source"], r      # vendor rows carry no prose: only role rows have a description
        assert len(r) == len(HEADER.split(",")), r
    described = {r["uarch"] for r in rows if r["description"]}
    assert described == set(KEYS) | {"ibs"}, set(KEYS) - described


def test_list_keys(ctx):
    p = ctx.run_host("events", "--uarch", "list", check=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)) and keys[-1] == "ibs"
    assert set(keys) == set(KEYS) | {"ibs"}
    for r in rows:
        assert r["name"] and int(r["events"]) > 0 and r["vendor"] in ("intel", "amd"), r
    by = {r["key"]: r for r in rows}
    assert (by["skylake_server"]["perf"], by["skylake_server"]["vendor_name"]) == ("skylakex", "SKX")
    assert (by["zen4"]["perf"], by["zen4"]["vendor_name"]) == ("amdzen4", "Family 19h (Zen 4)")


def test_this_cpus_set_by_default(ctx):
    """Without --uarch: the set identification gives the CPU this runs on."""
    p = ctx.run_host("identify", check=True)
    m = re.search(r'"event_set":"([a-z0-9_]+)"', p.stdout)
    _, rows = events_csv(ctx)
    if not m:
        assert not rows
        return
    assert rows and {r["uarch"] for r in rows} == {m.group(1)}


def test_grep_and_vendor_columns(ctx):
    _, rows = events_csv(ctx, "--uarch", "icelake", "--grep", "ld_blocks")
    names = {r["name"] for r in rows}
    assert "LD_BLOCKS.STORE_FORWARD" in names and all("LD_BLOCKS" in n for n in names), names
    sf = next(r for r in rows if r["name"] == "LD_BLOCKS.STORE_FORWARD")
    assert sf["counters"] == "0-3" and sf["roles"] == "stlf_block", sf
    _, rows = events_csv(ctx, "--uarch", "icelake", "--grep", "OCR.DEMAND_DATA_RD.L3_HIT.SNOOP_MISS")
    assert len(rows) == 1
    o = rows[0]
    assert (o["msr"], o["msr_value"], o["alt"]) == ("0x1a6+0x1a7", "0x2003c0001", "0xbb/0x01"), o
    _, rows = events_csv(ctx, "--uarch", "skylake", "--grep", "LD_BLOCKS.STORE_FORWARD")
    assert rows[0]["counters_smt_off"] == "0-7", rows
    _, rows = events_csv(ctx, "--uarch", "cascadelakex", "--grep", "L2_LINES_OUT.USELESS_PREF")
    assert len(rows) == 1 and "deprecated" in rows[0]["flags"].split(), rows
    _, rows = events_csv(ctx, "--uarch", "fam15h", "--grep", "CPU_CLK_UNHALTED")
    assert [r["counters"] for r in rows] == ["0-2"], rows
    _, rows = events_csv(ctx, "--uarch", "fam15h", "--grep", "nosuchevent")
    assert rows == []


def test_bad_uarch_names_it_and_lists_keys(ctx):
    p = ctx.run_host("events", "--uarch", "pentium4")
    assert p.returncode == 2
    assert "unknown microarchitecture 'pentium4'" in p.stderr
    for k in ("goldmont", "zen5", "ibs"):
        assert k in p.stderr
    assert p.stdout == ""


def test_spec_resolution(ctx):
    p = ctx.run_host("events", "--uarch", "goldencove", "--spec", "ld_blocks.store_forward", check=True)
    assert "event=0x03 umask=0x82" in p.stdout
    p = ctx.run_host("events", "--uarch", "skylake", "--spec", "LD_BLOCKS.STORE_FORWARD", check=True)
    assert "event=0x03 umask=0x02" in p.stdout
    p = ctx.run_host("events", "--uarch", "zen4", "--spec", "r1000000c1", check=True)
    assert "event=0x1c1" in p.stdout and p.stdout.rstrip().endswith("raw")
    # perf's spellings; a raw spec of a catalogue event keeps its restriction.
    p = ctx.run_host("events", "--uarch", "icelake", "--spec", "ld_blocks:store_forward", check=True)
    assert "event=0x03 umask=0x02" in p.stdout and "counters=0-3" in p.stdout
    p = ctx.run_host("events", "--uarch", "icelake", "--spec", "cpu/event=0x03,umask=0x02/", check=True)
    assert "counters=0-3" in p.stdout and p.stdout.rstrip().endswith("raw")
    p = ctx.run_host("events", "--uarch", "goldencove", "--spec", "LD_BLOCKS_PARTIAL.ADDRESS_ALIAS")
    assert p.returncode == 1
    assert "unknown event 'LD_BLOCKS_PARTIAL.ADDRESS_ALIAS'" in p.stderr
    assert "nearest: LD_BLOCKS.ADDRESS_ALIAS" in p.stderr


def test_generated_tables_are_deterministic(ctx):
    gen = os.path.join(ctx.root, "tools", "gen_events.py")
    with tempfile.TemporaryDirectory() as d:
        outs = []
        for i in range(2):
            out = os.path.join(d, f"t{i}.c")
            subprocess.run([sys.executable, gen, "--out", out], check=True, capture_output=True)
            with open(out, "rb") as f:
                outs.append(f.read())
    assert outs[0] == outs[1]
    built = os.path.join(ctx.build, "gen", "events_table.c")
    with open(built, "rb") as f:
        assert f.read() == outs[0], f"{built} is stale"


def test_generator_rejects_bad_rows(ctx):
    """A wrong row stops the build with the file, line and the problem."""
    gen = os.path.join(ctx.root, "tools", "gen_events.py")
    src = os.path.join(ctx.root, "events")
    cases = [
        # Role rows must name a vendor event with its exact encoding.
        ("skymont.csv", "LD_BLOCKS.NOPE,0x03,0x01,,,,,,src,desc", "is not an event of"),
        ("_lnc.csv", "INST_RETIRED.ANY_P,0xc0,0x01,,,,,instructions,src,desc", "the vendor data"),
        ("_lnc.csv", "CPU_CLK_UNHALTED.THREAD_P,0x3c,0x00,,,0-7,,,src,desc", "come from the vendor data"),
        ("skymont.csv", "LD_BLOCKS.X,0x103,0x01,,,,,,src,desc", "event 0x103 is out of range"),
        ("skymont.csv", "LD_BLOCKS.X,0x03,0x01,,,,,speedy,src,desc", "unknown role 'speedy'"),
        ("skymont.csv", "LD_BLOCKS.X,0x03,0x01,,,,,,,desc", "needs its public source"),
        ("skymont.csv", "LD_BLOCKS.STORE_FORWARD,0x03,0x09,,,,,,src,desc", "appears twice"),
        ("zen1.csv", "X.Y,0x03,0x01,,any,,,,src,desc", "only on Intel"),
        ("vendor/zen1.csv", "X.Y,0x03,0x01,,,bogus,,,,,,,", "unknown flag 'bogus'"),
        ("vendor/zen1.csv", "X.Y,0x03,0x01,,,,0-99,,,,,,", "out of range"),
    ]
    for fname, row, expect in cases:
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "vendor"))
            for sub in ("", "vendor"):
                for f in os.listdir(os.path.join(src, sub)):
                    if f.endswith(".csv"):
                        with open(os.path.join(src, sub, f)) as a, open(os.path.join(d, sub, f), "w") as b:
                            b.write(a.read())
            with open(os.path.join(d, fname), "a") as f:
                f.write(row + "\n")
            p = subprocess.run([sys.executable, gen, "--dir", d, "--out", os.path.join(d, "x.c")],
                               capture_output=True, text=True)
            assert p.returncode == 1, (row, p.stderr)
            assert expect in p.stderr and fname in p.stderr, (row, p.stderr)


def test_linux_narrowed_rows_are_listed(ctx):
    """Issue 22 defect e: the committed tables carry the intersection of perfmon's and Linux's
    counter lists (docs/events.md, "Where perfmon and Linux disagree")."""
    def rows(key, word):
        return {r["name"]: r for r in csv.DictReader(io.StringIO(
            ctx.run_host("events", "--uarch", key, "--grep", word, check=True).stdout))}
    for key in ("lioncove", "lioncove_lnl", "cougarcove"):
        ocr = rows(key, "OCR.")
        assert ocr and all(r["counters"] == "0-3" for r in ocr.values()), (key, ocr)
        assert rows(key, "MEM_INST_RETIRED.ANY")["MEM_INST_RETIRED.ANY"]["counters"] == "0-3"
        # Disjoint lists: perfmon's kept, as the overrides file says.
        assert rows(key, "TOPDOWN.MEMORY_BOUND")["TOPDOWN.MEMORY_BOUND_SLOTS"]["counters"] == "3"
    for key in ("sapphirerapids", "goldencove", "emeraldrapids", "redwoodcove", "graniterapids"):
        ca = rows(key, "_L1D_MISS")
        assert ca["CYCLE_ACTIVITY.CYCLES_L1D_MISS"]["counters"] == "2", (key, ca)
        assert ca["CYCLE_ACTIVITY.STALLS_L1D_MISS"]["counters"] == "2", (key, ca)
    # The merged-pair flag follows events/amd_rules.csv: 003H on Family 17h and later, 05FH on 19h.
    assert "pair" in rows("zen3", "ALLOC_MAB")["ALLOC_MAB_COUNT"]["flags"]
    assert "pair" not in rows("zen5", "ALLOC_MAB")["ALLOC_MAB_COUNT"]["flags"]
