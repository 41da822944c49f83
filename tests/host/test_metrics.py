"""pmuboot-host metrics: the top-down formulas evaluated by the image's own C code, checked against Python.

For every table (every Intel core with a perfmon metric file, the E-core spreadsheet's columns, Zen 4 and
Zen 5) a CPUID dump of that core is identified (a committed fixture; for cores no fixture has, a copy of a
related one with the CPUID.1 signature changed), its metrics are listed, random counts are given to
`metrics --eval`, and every value is compared with an independent evaluation in Python:

  - against the vendor's own Formula (needs ../shared): the perfmon JSON's Formula over its aliases, eval'd
    by Python itself (its if/else, min, max, comparisons and true division) over exact Fractions; the E-core
    spreadsheet's cells with the other rows' names substituted in, times 100 for the tree nodes (pmuboot
    reports them in percent); AMD's formulas transcribed here from Linux's amdzen4/amdzen5 pipeline.json;
  - against the committed tables (no ../shared): events/metrics/KEY.csv's formulas, eval'd the same way.

A division by zero in Python (ZeroDivisionError) must be a null with "division by zero" in C.  The
tolerance is 1e-9 relative (the issue asks 1e-6; the number type is exact to about 1e-19 per operation).
"""
import csv
import json
import os
import random
import re
import tempfile
from fractions import Fraction


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REAL = os.path.join(ROOT, "tests", "fixtures", "cpuid-real")
FIX = os.path.join(ROOT, "tests", "fixtures", "cpuid")
TOL = Fraction(1, 10 ** 9)

# key -> (fixture, block, CPUID.1:EAX to give it instead, or None)
CORES = {
    "haswell": ("GenuineIntel00306C3_Haswell_CPUID.txt", 0, None),
    "haswellx": ("GenuineIntel00306C3_Haswell_CPUID.txt", 0, 0x306F2),
    "broadwell": ("GenuineIntel00306D4_Broadwell2_CPUID.txt", 0, None),
    "broadwellx": ("GenuineIntel00306D4_Broadwell2_CPUID.txt", 0, 0x406F1),
    "skylake": ("GenuineIntel00506E3_Skylake_CPUID.txt", 0, None),
    "skylake_server": ("GenuineIntel0050654_SkylakeXeon_CPUID9.txt", 0, None),
    "cascadelakex": ("GenuineIntel0050654_SkylakeXeon_CPUID9.txt", 0, 0x50657),
    "icelake": ("GenuineIntel00706E5_IceLakeY_CPUID.txt", 0, None),
    "icelake_server": ("GenuineIntel00706E5_IceLakeY_CPUID.txt", 0, 0x606A6),
    "rocketlake": ("GenuineIntel00706E5_IceLakeY_CPUID.txt", 0, 0xA0671),
    "tigerlake": ("GenuineIntel00806C1_TigerLake_01_CPUID.txt", 0, None),
    "goldencove": ("GenuineIntel00906A4_AlderLakeP_00_CPUID.txt", 0, None),
    "gracemont": ("GenuineIntel00906A4_AlderLakeP_00_CPUID.txt", 4, None),
    "sapphirerapids": ("GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", 0, None),
    "emeraldrapids": ("GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", 0, 0xC06F2),
    "graniterapids": ("GenuineIntel00806F8_SapphireRapids_05_CPUID.txt", 0, 0xA06D1),
    "redwoodcove": ("GenuineIntel00A06A4_MeteorLake_10_CPUID.txt", 0, None),
    "crestmont": ("GenuineIntel00A06A4_MeteorLake_10_CPUID.txt", None, None),     # its first Atom block
    "lioncove": ("intel_arrowlake_h_three_core_types.txt", 0, None),
    "skymont": ("intel_arrowlake_h_three_core_types.txt", 1, None),
    "crestmont_arl": ("intel_arrowlake_h_three_core_types.txt", 2, None),
    "lioncove_lnl": ("intel_arrowlake_h_three_core_types.txt", 0, 0xB06D1),
    "skymont_lnl": ("intel_arrowlake_h_three_core_types.txt", 1, 0xB06D1),
    "sierraforest": ("GenuineIntel00B06E0_AlderLakeN_02_CPUID.txt", 0, 0xA06F3),
    "grandridge": ("GenuineIntel00B06E0_AlderLakeN_02_CPUID.txt", 0, 0xB0661),
    "zen4": ("AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt", 0, None),
    "zen5": ("AuthenticAMD0B40F40_K20_GraniteRidge_02_CPUID.txt", 0, None),
}


def fixture(name):
    for d in (REAL, FIX):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise AssertionError(f"no fixture {name}")


def first_atom_block(path):
    for line in open(path):
        m = re.match(r"^CPU (\d+): core Intel Atom", line)
        if m:
            return int(m.group(1))
    raise AssertionError(f"{path}: no Atom block")


def dump_for(key, tmp):
    """(path, block) of a dump identified as the table's core."""
    name, block, sig = CORES[key]
    path = fixture(name)
    if block is None:
        block = first_atom_block(path)
    if sig is not None:
        # The same CPU with another signature: every block's CPUID.1:EAX replaced.
        out = os.path.join(tmp, f"{key}.txt")
        with open(path) as f, open(out, "w") as g:
            for line in f:
                m = re.match(r"^(CPU \d+: 00000001\.00: )([0-9A-F]{8})( .*)$", line.rstrip("\n"))
                g.write(f"{m.group(1)}{sig:08X}{m.group(3)}\n" if m else line)
        path = out
    return path, block


def listing(ctx, path, block):
    p = ctx.run_host("metrics", "--cpuid-dump", path, "--cpu", str(block))
    assert p.returncode == 0, f"metrics --cpuid-dump {path} --cpu {block}: exit {p.returncode}: {p.stderr}"
    return json.loads(p.stdout)


def evaluate(ctx, path, block, counts, tmp, expect_rc=0):
    cpath = os.path.join(tmp, "counts.json")
    with open(cpath, "w") as f:
        json.dump(counts, f)
    p = ctx.run_host("metrics", "--cpuid-dump", path, "--cpu", str(block), "--eval", cpath)
    assert p.returncode == expect_rc, f"--eval exit {p.returncode} (want {expect_rc}): {p.stderr}"
    return json.loads(p.stdout) if expect_rc == 0 else p


def random_counts(inputs, rng):
    """A value for each input: counts up to 1e9, constants of their kind, retire latencies (-1: not measured)."""
    out = {}
    for name, kind in inputs.items():
        if kind == "constant":
            out[name] = rng.choice([0, 1]) if name == "HYPERTHREADING_ON" else rng.randint(1, 10 ** 7)
        elif kind == "retire_latency":
            out[name] = rng.choice([-1, rng.randint(1, 60)])
        else:
            out[name] = rng.randint(1, 10 ** 9)
    return out


def all_inputs(lst):
    ins = {}
    for m in lst["metrics"]:
        for i in m["inputs"]:
            ins[i["name"]] = i["kind"]
    return ins


# ---- Python's own evaluation ----

NUM = re.compile(r"(?<![\w.])(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)(?![\w.])")


def py_eval(expr, env):
    """expr evaluated by Python over Fractions: None for a division by zero."""
    expr = re.sub(r">\s*=", ">=", expr)
    expr = NUM.sub(lambda m: f'F("{m.group(1)}")', expr)
    try:
        return eval(expr, {"__builtins__": {}}, dict(env, F=Fraction, min=min, max=max))  # noqa: S307
    except ZeroDivisionError:
        return None


def compare(key, name, got, want, null_why):
    if want is None:
        assert got is None and null_why.get(name) == "division by zero", \
            f"{key} {name}: Python divides by zero, C gave {got} ({null_why.get(name)})"
        return
    assert got is not None, f"{key} {name}: C gave null ({null_why.get(name)}), Python {float(want)}"
    g = Fraction(repr(got)) if isinstance(got, float) else Fraction(got)
    if want == 0:
        assert abs(g) <= Fraction(1, 10 ** 12), f"{key} {name}: C {got}, Python 0"
    else:
        assert abs(g - want) <= TOL * abs(want), f"{key} {name}: C {got}, Python {float(want)!r}"


def committed_formulas(key):
    """{name: (python expression, {variable: input name})} from events/metrics/KEY.csv, metrics inlined."""
    out = {}
    with open(os.path.join(ROOT, "events", "metrics", key + ".csv")) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    for r in rows:
        if r["formula"] == "#NA":
            continue
        expr = r["formula"]
        # {metric:NAME}: that metric's formula, parenthesised.
        expr = re.sub(r"\{metric:([^}]*)\}", lambda m: "(" + out[m.group(1).strip()][0] + ")", expr)
        out[r["name"]] = (expr, None)
    final = {}
    for name, (expr, _) in out.items():
        names = {}

        def var(m):
            text = m.group(1).split("|")[0].strip()
            text = text[len("const:"):] if text.startswith("const:") else text
            v = names.setdefault(text, f"v{len(names)}")
            return v
        final[name] = (re.sub(r"\{([^{}]*)\}", var, expr), {v: n for n, v in names.items()})
    return final


def check_against_committed(ctx, key, tmp, rng):
    path, block = dump_for(key, tmp)
    lst = listing(ctx, path, block)
    assert lst["event_set"] == key, f"{path} block {block} identified as {lst['event_set']}, not {key}"
    counts = random_counts(all_inputs(lst), rng)
    res = evaluate(ctx, path, block, counts, tmp)
    forms = committed_formulas(key)
    for m in lst["metrics"]:
        expr, names = forms[m["name"]]
        env = {v: Fraction(counts[n]) for v, n in names.items()}
        compare(key, m["name"], res["metrics"][m["name"]], py_eval(expr, env), res["null_why"])
    assert not res["missing"], f"{key}: every input was given, yet {res['missing']}"
    return len(lst["metrics"])


def test_every_table_agrees_with_python_on_random_counts(ctx):
    """Every metric of every table against the committed formulas (no ../shared needed)."""
    rng = random.Random(20260723)
    tables = [r["key"] for r in csv.DictReader(
        line for line in open(os.path.join(ROOT, "events", "metrics", "tables.csv")) if not line.startswith("#"))]
    assert sorted(tables) == sorted(CORES), "a table without a dump here, or a dump without a table"
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for key in tables:
            for _ in range(2):
                total += check_against_committed(ctx, key, tmp, rng)
    assert total > 2 * 2000, f"only {total} metric evaluations"


# ---- against the vendors' files (../shared) ----

def perfmon_file(ctx, lst, path, block):
    """The metric file perfmon's mapfile.csv gives for the dump's CPU (model, and core type on hybrids)."""
    mapfile = ctx.shared_path("vendor-events", "intel", "mapfile.csv")
    ident = ctx.run_host("identify", "--cpuid-dump", path, "--cpu", str(block), check=True).stdout
    cpu = json.loads(next(line[len("@pmuboot "):] for line in ident.splitlines()
                          if line.startswith("@pmuboot ") and '"type":"cpu"' in line))
    model, stepping, core = int(cpu["model"], 16), cpu["stepping"], cpu.get("core_type")
    for r in csv.reader(open(mapfile)):
        if len(r) < 4 or r[3] != "metrics":
            continue
        m = re.match(r"GenuineIntel-6-([0-9A-F]{2})(?:-\[([0-9A-F]+)\])?$", r[0])
        if not m or int(m.group(1), 16) != model:
            continue
        if m.group(2) and f"{stepping:X}" not in m.group(2):
            continue
        # Hybrid parts: the metric files are the P-core's (Core Type 0x40).
        if len(r) > 4 and r[4] and core != "core":
            continue
        return ctx.shared_path("vendor-events", "intel", r[2].lstrip("/"))
    return None


def vendor_json_formulas(path):
    doc = json.load(open(path))
    out = {}
    for m in doc["Metrics"]:
        if m.get("Category") != "TMA" or int(m.get("Level", 9)) > 2:
            continue
        aliases = {e["Alias"]: e["Name"] for e in m.get("Events", [])}
        aliases.update({c["Alias"]: c["Name"] for c in m.get("Constants", [])})
        out[m["MetricName"]] = (m["Formula"], aliases)
    return out


def alias_env(aliases, counts):
    """The formula's aliases bound to the counts given for their names; a constant whose Name is a number
    (perfmon's "20", Dependent_Loads_Weight) is that number."""
    env = {}
    for alias, name in aliases.items():
        if re.match(r"^\d+(\.\d+)?$", name):
            env[alias] = Fraction(name)
        elif name in counts:
            env[alias] = Fraction(counts[name])
    return env


def ecore_formulas(ctx, column):
    path = ctx.shared_path("vendor-events", "intel", "E-core_TMA_Metrics.csv")
    rows = list(csv.reader(open(path, encoding="utf-8-sig")))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Key")
    hdr, body = rows[head], rows[head + 1:]
    ci = hdr.index(column)
    cells = {}
    for r in body:
        for k in (1, 2, 3):
            if len(r) > ci and r[k].strip():
                cells[r[k].strip()] = r[ci]
    word = re.compile(r"#?[A-Za-z_%][A-Za-z0-9_.%]*(?::[A-Za-z0-9=]+)*")
    constants = {"DurationTimeInMilliSeconds": "DURATIONTIMEINMILLISECONDS", "TSC": "SYSTEM_TSC_FREQ"}

    def expand(text, names):
        def sub(m):
            w = m.group(0)
            if w in ("if", "else", "min", "max"):
                return w
            if w in constants:
                return names.setdefault(constants[w], f"v{len(names)}")
            if w in cells:
                return "(" + expand(cells[w], names) + ")"
            return names.setdefault(w, f"v{len(names)}")
        return word.sub(sub, text)

    out, info = {}, False
    for r in body:
        if not r or len(r) <= ci:
            continue
        if r[0] == "." and r[1] == "metrics":
            info = True
        if r[0] in (".", "Aux") or r[ci].strip() in ("", "#NA"):
            continue
        names = {}
        if not info:
            level = 1 if r[1].strip() else 2 if r[2].strip() else 3
            if level == 3:
                continue
            out[r[level].strip()] = ("100 * (" + expand(r[ci], names) + ")", {v: n for n, v in names.items()})
        else:
            name = "Info_" + r[0].strip()[len("Info."):] + "_" + r[1].strip()
            out[name] = (expand(r[ci], names), {v: n for n, v in names.items()})
    return out


# AMD: Linux's pipeline.json (amdzen4, amdzen5) MetricExpr as facts, d_ratio(a, b) written a / b (pmuboot: null on
# zero, where Linux gives 0), ScaleUnit 100% as 100 *.  Events are perf's names; lat is the cmask-6/8 count.
AMD = {
    "zen4": dict(width=6, lat="de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6", restart="resyncs_or_nc_redirects",
                 l2=("frontend_bound_latency", "frontend_bound_bandwidth", "bad_speculation_mispredicts",
                     "bad_speculation_pipeline_restarts", "backend_bound_memory", "backend_bound_cpu",
                     "retiring_fastpath", "retiring_microcode")),
    "zen5": dict(width=8, lat="de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x8", restart="bp_redirects.resync",
                 l2=("frontend_bound_by_latency", "frontend_bound_by_bandwidth", "bad_speculation_from_mispredicts",
                     "bad_speculation_from_pipeline_restarts", "backend_bound_by_memory", "backend_bound_by_cpu",
                     "retiring_from_fastpath", "retiring_from_microcode")),
}


def amd_expected(key, c):
    a = AMD[key]
    F = Fraction

    def d(x, y):
        return None if x is None or y is None or y == 0 else F(x) / F(y)
    slots = a["width"] * c["ls_not_halted_cyc"]
    fe, be = c["de_no_dispatch_per_slot.no_ops_from_frontend"], c["de_no_dispatch_per_slot.backend_stalls"]
    ret, disp = c["ex_ret_ops"], c["de_src_op_disp.all"]
    misp, restart = c["ex_ret_brn_misp"], c[a["restart"]]
    lnc, nc, uc = c["ex_no_retire.load_not_complete"], c["ex_no_retire.not_complete"], c["ex_ret_ucode_ops"]
    bad, beb, retg = d(disp - ret, slots), d(be, slots), d(ret, slots)
    mem = d(lnc, nc)
    uratio = d(uc, ret)
    l2 = a["l2"]

    def pct(x):
        return None if x is None else 100 * x
    return {
        "frontend_bound": pct(d(fe, slots)), "bad_speculation": pct(bad), "backend_bound": pct(beb),
        "smt_contention": pct(d(c["de_no_dispatch_per_slot.smt_contention"], slots)), "retiring": pct(retg),
        l2[0]: pct(d(a["width"] * c[a["lat"]], slots)),
        l2[1]: pct(d(fe - a["width"] * c[a["lat"]], slots)),
        l2[2]: pct(d(bad * misp, misp + restart)) if bad is not None else None,
        l2[3]: pct(d(bad * restart, misp + restart)) if bad is not None else None,
        l2[4]: pct(beb * mem) if None not in (beb, mem) else None,
        l2[5]: pct(beb * (1 - mem)) if None not in (beb, mem) else None,
        l2[6]: pct(retg * (1 - uratio)) if None not in (retg, uratio) else None,
        l2[7]: pct(retg * uratio) if None not in (retg, uratio) else None,
    }


ECORE_COLUMN = {"gracemont": "GRT", "crestmont": "CMT", "crestmont_arl": "CMT", "skymont": "ARL-SKT",
                "skymont_lnl": "LNL-SKT"}


def test_every_table_agrees_with_the_vendor_formulas(ctx):
    """Every level 1 and 2 metric of every covered core against the vendor's own formula (../shared)."""
    ctx.shared_path("vendor-events", "intel")
    rng = random.Random(7)
    checked = {}
    with tempfile.TemporaryDirectory() as tmp:
        for key in CORES:
            path, block = dump_for(key, tmp)
            lst = listing(ctx, path, block)
            assert lst["event_set"] == key
            counts = random_counts(all_inputs(lst), rng)
            res = evaluate(ctx, path, block, counts, tmp)
            if key in AMD:
                want = amd_expected(key, counts)
                assert set(want) == set(res["metrics"]), f"{key}: {sorted(res['metrics'])}"
                for name, w in want.items():
                    compare(key, name, res["metrics"][name], w, res["null_why"])
                checked[key] = len(want)
                continue
            if key in ECORE_COLUMN:
                forms = ecore_formulas(ctx, ECORE_COLUMN[key])
                envs = {n: {v: Fraction(counts[i]) for v, i in names.items()} for n, (_, names) in forms.items()
                        if all(i in counts for i in names.values())}
            else:
                vfile = perfmon_file(ctx, lst, path, block)
                assert vfile, f"{key}: perfmon's mapfile.csv names no metric file for this CPU"
                assert os.path.basename(vfile) in lst["source"], f"{key}: {lst['source']} vs {vfile}"
                forms = vendor_json_formulas(vfile)
                envs = {n: alias_env(aliases, counts) for n, (_, aliases) in forms.items()}
            # Every metric the vendor gives is evaluated here or left out with a reason.
            listed = {m["name"] for m in lst["metrics"]}
            assert listed | set(lst["left_out"]) >= set(forms), \
                f"{key}: neither listed nor left out: {sorted(set(forms) - listed - set(lst['left_out']))}"
            for name in listed:
                expr, _ = forms[name]
                compare(key, name, res["metrics"][name], py_eval(expr, envs[name]), res["null_why"])
            checked[key] = len(listed)
    assert len(checked) == len(CORES) and sum(checked.values()) > 2000, checked


def test_left_out_metrics_name_events_the_core_lacks(ctx):
    """A left-out metric names an event that is not in the core's committed event table (events/vendor)."""
    with tempfile.TemporaryDirectory() as tmp:
        for key in ("skylake", "icelake_server", "crestmont_arl"):
            path, block = dump_for(key, tmp)
            lst = listing(ctx, path, block)
            names = {r["name"].upper() for r in csv.DictReader(
                line for line in open(os.path.join(ROOT, "events", "vendor", key + ".csv")) if not line.startswith("#"))}
            for metric, why in lst["left_out"].items():
                if "#NA" in why:
                    continue
                missing = re.findall(r"(\S+) is not an event of the set", why)
                assert missing, f"{key} {metric}: {why}"
                for ev in missing:
                    assert ev.upper() not in names, f"{key} {metric}: {ev} is in events/vendor/{key}.csv"
            for m in lst["metrics"]:
                for i in m["inputs"]:
                    if i["kind"] == "event":
                        base = i.get("counts", i["name"]).split(":")[0]
                        assert base.upper() in names, f"{key} {m['name']}: {base} is not the core's"


# ---- by hand: a few metrics worked out from the vendor files ----

def test_hand_checked_metrics(ctx):
    """Values worked out by hand from the vendor formulas for chosen counts."""
    with tempfile.TemporaryDirectory() as tmp:
        # Skylake Frontend_Bound = 100 * IDQ_UOPS_NOT_DELIVERED.CORE / (4 * CLKS), CLKS = THREAD_ANY / 2 with SMT on
        # (skylake_metrics.json): 100 * 600 / (4 * 1000) = 15 with SMT off; with SMT on THREAD_ANY 3000 -> 1500
        # clocks: 100 * 600 / 6000 = 10.  Retiring = 100 * RETIRE_SLOTS / SLOTS = 100 * 1000 / 4000 = 25.
        path, block = dump_for("skylake", tmp)
        lst = listing(ctx, path, block)
        counts = {i: 1 for i in all_inputs(lst)}
        counts.update({"IDQ_UOPS_NOT_DELIVERED.CORE": 600, "CPU_CLK_UNHALTED.THREAD": 1000,
                       "CPU_CLK_UNHALTED.THREAD_ANY": 3000, "UOPS_RETIRED.RETIRE_SLOTS": 1000,
                       "HYPERTHREADING_ON": 0, "INST_RETIRED.ANY": 2500})
        r = evaluate(ctx, path, block, counts, tmp)["metrics"]
        assert r["Frontend_Bound"] == 15 and r["Retiring"] == 25, r
        assert r["Info_Thread_IPC"] == 2.5, r["Info_Thread_IPC"]     # INST_RETIRED.ANY / THREAD
        counts["HYPERTHREADING_ON"] = 1
        assert evaluate(ctx, path, block, counts, tmp)["metrics"]["Frontend_Bound"] == 10
        # Sapphire Rapids Memory_Bound (sapphirerapids_metrics.json) = 100 * PERF_METRICS.MEMORY_BOUND / (the four
        # level 1 fields' sum): fields 30 + 20 + 40 + 110 = 200, memory bound 50 -> 25.
        path, block = dump_for("sapphirerapids", tmp)
        lst = listing(ctx, path, block)
        counts = {i: 1 for i in all_inputs(lst)}
        counts.update({"PERF_METRICS.RETIRING": 30, "PERF_METRICS.BAD_SPECULATION": 20,
                       "PERF_METRICS.FRONTEND_BOUND": 40, "PERF_METRICS.BACKEND_BOUND": 110,
                       "PERF_METRICS.MEMORY_BOUND": 50})
        r = evaluate(ctx, path, block, counts, tmp)["metrics"]
        assert r["Memory_Bound"] == 25, r["Memory_Bound"]
        assert r["Backend_Bound"] == 55, r["Backend_Bound"]          # 100 * 110 / 200
        # Gracemont (E-core spreadsheet, GRT): SLOTS = 5 * CPU_CLK_UNHALTED.CORE; Bad_Speculation is the residual
        # (SLOTS - FE - BE - RET) / SLOTS: 5 * 100 = 500, 500 - 100 - 200 - 150 = 50 -> 10 percent.
        path, block = dump_for("gracemont", tmp)
        lst = listing(ctx, path, block)
        counts = {i: 1 for i in all_inputs(lst)}
        counts.update({"CPU_CLK_UNHALTED.CORE": 100, "TOPDOWN_FE_BOUND.ALL": 100, "TOPDOWN_BE_BOUND.ALL": 200,
                       "TOPDOWN_RETIRING.ALL": 150})
        r = evaluate(ctx, path, block, counts, tmp)["metrics"]
        assert r["Bad_Speculation"] == 10 and r["Backend_Bound"] == 40, (r["Bad_Speculation"], r["Backend_Bound"])
        # Zen 4: backend_bound_memory = backend_bound * load_not_complete / not_complete: 100 * 300 / (6 * 100)
        # = 50 percent, times 25 / 100 -> 12.5.
        path, block = dump_for("zen4", tmp)
        lst = listing(ctx, path, block)
        counts = {i: 1 for i in all_inputs(lst)}
        counts.update({"ls_not_halted_cyc": 100, "de_no_dispatch_per_slot.backend_stalls": 300,
                       "ex_no_retire.load_not_complete": 25, "ex_no_retire.not_complete": 100})
        r = evaluate(ctx, path, block, counts, tmp)["metrics"]
        assert r["backend_bound"] == 50 and r["backend_bound_memory"] == 12.5, r
        # Retire latencies are inputs like any other, negative allowed ("not measured"): Lion Cove's
        # Info_Frontend_DSB_Switches_Ret (arrowlake_metrics_lioncove_core.json) is FRONTEND_RETIRED.ANY_DSB_MISS
        # times its retire latency over CPU_CLK_UNHALTED.THREAD: 30 * -1 / 10 = -3.
        path, block = dump_for("lioncove", tmp)
        lst = listing(ctx, path, block)
        ins = all_inputs(lst)
        lat = "FRONTEND_RETIRED.ANY_DSB_MISS:retire_latency"
        assert ins.get(lat) == "retire_latency", ins.get(lat)
        counts = {i: 7 for i in ins}
        counts.update({lat: -1, "FRONTEND_RETIRED.ANY_DSB_MISS": 30, "CPU_CLK_UNHALTED.THREAD": 10})
        assert evaluate(ctx, path, block, counts, tmp)["metrics"]["Info_Frontend_DSB_Switches_Ret"] == -3


def test_skylake_smt_on_sibling_parked_is_the_per_thread_form(ctx):
    """Issue 30: a Skylake core with SMT on (Kaby Lake i3-7100, 2 cores x 2 threads, the skylake formulas) whose
    sibling was parked: THREAD_ANY counts what THREAD counts.  Skylake's SLOTS (skylake_metrics.json) are
    4 x (THREAD_ANY / 2 if HYPERTHREADING_ON else THREAD): the per-core form halves them, the per-thread form
    (HYPERTHREADING_ON 0, what --eval supplies when the counts do not give it) does not."""
    path = fixture("GenuineIntel00906E9_KabyLake_01_CPUID.txt")
    assert listing(ctx, path, 0)["event_set"] == "skylake"
    counts = {"CPU_CLK_UNHALTED.THREAD": 1000, "CPU_CLK_UNHALTED.THREAD_ANY": 1000, "UOPS_RETIRED.RETIRE_SLOTS": 3000,
              "UOPS_ISSUED.ANY": 3200, "IDQ_UOPS_NOT_DELIVERED.CORE": 600, "INT_MISC.RECOVERY_CYCLES": 25,
              "INT_MISC.RECOVERY_CYCLES_ANY": 25}
    level1 = ("Frontend_Bound", "Bad_Speculation", "Backend_Bound", "Retiring")
    with tempfile.TemporaryDirectory() as tmp:
        r = evaluate(ctx, path, 0, counts, tmp)
        # 4000 slots: frontend 600, bad speculation 3200 - 3000 + 4 x 25 = 300, retiring 3000, backend the rest.
        got = [r["metrics"][k] for k in level1]
        assert all(abs(g - w) < 1e-9 for g, w in zip(got, [15, 7.5, 2.5, 75])), got
        assert all(0 <= v <= 100 for v in got) and abs(sum(got) - 100) < 1e-9, got
        assert r["constants"]["HYPERTHREADING_ON"] == 0, r["constants"]
        assert r["constants_why"]["HYPERTHREADING_ON"].startswith("not given: "), r["constants_why"]
        assert "per-thread form" in r["constants_why"]["HYPERTHREADING_ON"]
        # Given explicitly, the constant is the caller's: 0 the same, 1 the vendor's per-core form, which on these
        # counts halves the slots: Retiring 150%, Backend_Bound -92.5% (the kind of figure the issue reported).
        r0 = evaluate(ctx, path, 0, dict(counts, HYPERTHREADING_ON=0), tmp)
        assert [r0["metrics"][k] for k in level1] == got and r0["constants_why"] == {}, r0["constants_why"]
        r1 = evaluate(ctx, path, 0, dict(counts, HYPERTHREADING_ON=1), tmp)
        assert abs(r1["metrics"]["Retiring"] - 150) < 1e-9, r1["metrics"]["Retiring"]
        assert abs(r1["metrics"]["Backend_Bound"] + 92.5) < 1e-9, r1["metrics"]["Backend_Bound"]
        assert r1["constants"]["HYPERTHREADING_ON"] == 1 and r1["constants_why"] == {}


# ---- refusals and exit codes (committed fixtures only) ----

def test_bad_counts_and_unknown_keys_are_refused_by_name(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        path, block = dump_for("skylake", tmp)
        lst = listing(ctx, path, block)
        good = {i: 10 for i in all_inputs(lst)}
        for bad, needle in (({"NOT_AN_EVENT.X": 1}, "unknown key 'NOT_AN_EVENT.X'"),
                            ({"CPU_CLK_UNHALTED.THREAD": -3}, "'CPU_CLK_UNHALTED.THREAD' is -3"),
                            ({"CPU_CLK_UNHALTED.THREAD": "12"}, "'CPU_CLK_UNHALTED.THREAD' is a string"),
                            ({"INST_RETIRED.ANY": None}, "'INST_RETIRED.ANY' is null, not a non-negative number")):
            p = evaluate(ctx, path, block, dict(good, **bad), tmp, expect_rc=2)
            assert needle in p.stderr, p.stderr
            assert not p.stdout, "nothing printed on bad input"
        cpath = os.path.join(tmp, "list.json")
        with open(cpath, "w") as f:
            f.write("[1, 2]")
        p = ctx.run_host("metrics", "--cpuid-dump", path, "--eval", cpath)
        assert p.returncode == 2 and "want a JSON object" in p.stderr, p.stderr
        p = ctx.run_host("metrics", "--cpuid-dump", path, "--eval")
        assert p.returncode == 2 and "--eval wants a value" in p.stderr, p.stderr
        p = ctx.run_host("metrics", "--bogus")
        assert p.returncode == 2 and "unexpected argument '--bogus'" in p.stderr, p.stderr


def test_missing_counts_give_null_with_the_missing_inputs(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        path, block = dump_for("skylake", tmp)
        lst = listing(ctx, path, block)
        counts = {i: 10 + n for n, i in enumerate(all_inputs(lst))}
        del counts["IDQ_UOPS_NOT_DELIVERED.CORE"]
        counts["CPU_CLK_UNHALTED.THREAD"] = 0       # a zero denominator for everything over CLKS (SMT off)
        counts["HYPERTHREADING_ON"] = 0
        r = evaluate(ctx, path, block, counts, tmp)
        assert r["metrics"]["Frontend_Bound"] is None
        assert r["missing"]["Frontend_Bound"] == ["IDQ_UOPS_NOT_DELIVERED.CORE"], r["missing"]
        assert r["metrics"]["Retiring"] is None and r["null_why"]["Retiring"] == "division by zero"
        assert "Retiring" not in r["missing"]
        # With SMT on the clocks are THREAD_ANY / 2: the zero THREAD is not on that branch.
        counts["HYPERTHREADING_ON"] = 1
        r = evaluate(ctx, path, block, counts, tmp)
        assert r["metrics"]["Retiring"] is not None, r["null_why"].get("Retiring")


def test_a_core_without_formulas_exits_1_and_names_those_with(ctx):
    p = ctx.run_host("metrics", "--cpuid-dump", os.path.join(REAL, "GenuineIntel00206A7_SandyBridge_CPUID.txt"))
    assert p.returncode == 1, p.stderr
    assert "no top-down formulas for" in p.stderr and "skylake" in p.stderr and "zen5" in p.stderr, p.stderr
    assert not p.stdout


def test_help(ctx):
    for flag in ("-h", "--help"):
        p = ctx.run_host("metrics", flag)
        assert p.returncode == 0 and p.stdout.startswith("usage: pmuboot-host metrics"), p
        assert "-h, --help" in p.stdout and "--eval COUNTS.json" in p.stdout and not p.stderr, p
