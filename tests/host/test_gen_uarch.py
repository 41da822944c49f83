"""tools/gen_uarch.py: the microarchitecture table compiled from cpu/uarch.csv.

The committed data compiles to the very file the build uses, byte for byte on every run; every
line names a set of events/sets.csv (the one list of keys); and each kind of bad line stops the
generator with the file, the line and what is wrong."""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

DATA = (("cpu", "uarch.csv"), ("cpu", "uarch_notes.csv"), ("cpu", "uarch_features.csv"), ("events", "sets.csv"))


def gen(ctx, root, out):
    return subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "gen_uarch.py"), "--root", root,
                           "--out", out], capture_output=True, text=True)


def copy_tree(ctx, d):
    for parts in DATA:
        os.makedirs(os.path.join(d, *parts[:-1]), exist_ok=True)
        shutil.copy(os.path.join(ctx.root, *parts), os.path.join(d, *parts))


def edit(path, old, new, count=1):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert text.count(old) >= count, (path, old)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, count))


def line_of(path, text):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    raise AssertionError(f"{text!r} not in {path}")


def test_committed_table_is_the_built_one(ctx):
    built = os.path.join(ctx.build, "gen", "uarch_table.c")
    with tempfile.TemporaryDirectory() as d:
        outs = []
        for i in range(2):
            out = os.path.join(d, f"t{i}.c")
            p = gen(ctx, ctx.root, out)
            assert p.returncode == 0, p.stderr
            with open(out, encoding="utf-8") as f:
                outs.append(f.read())
    assert outs[0] == outs[1]
    with open(built, encoding="utf-8") as f:
        assert f.read() == outs[0], f"{built} is not what the committed data gives: rebuild"


def test_every_line_names_a_set_of_sets_csv(ctx):
    """The rows' event sets, read independently of the generator, are keys of events/sets.csv."""
    def rows(*parts):
        with open(os.path.join(ctx.root, *parts), encoding="utf-8") as f:
            return list(csv.DictReader(l for l in f if l.strip() and not l.startswith("#")))
    sets = rows("events", "sets.csv")
    keys = {r["key"]: r["vendor"] for r in sets}
    lines = rows("cpu", "uarch.csv")
    assert len(lines) > 100
    for r in lines:
        if r["event_set"]:
            assert keys.get(r["event_set"]) == ("intel" if r["vendor"] == "intel" else "amd"), r
    named = {r["event_set"] for r in lines}
    # Every set but the vendors' fallbacks (the sets without vendor data, one each) is some line's.
    fallbacks = {r["key"] for r in sets if not r["data"]}
    assert sorted(keys[k] for k in fallbacks) == ["amd", "intel"], fallbacks
    assert set(keys) - named == fallbacks, set(keys) - named
    assert {r["pmu"] for r in lines} == {"cpuid", "core2", "p6", "unsupported", "none"}


# (file, text to change, replacement, what the message must say, where: True for the replacement's
# line, None for the changed file as a whole, a file name for that file of the tree)
BAD = [
    ("uarch.csv", "intel,0x6,0x3c,,,,haswell,Haswell,haswell,", "intel,0x6,0x3c,,,,haswell,Haswell,haswel,",
     "event set 'haswel' is not a key of events/sets.csv", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,haswell,Haswell,haswell,", "intel,0x6,0x3c,,,,haswell,Haswell,zen4,",
     "event set 'zen4' is amd's; a intel CPU cannot use it", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,haswell,Haswell,haswell,vendor,,cpuid",
     "intel,0x6,0x3c,,,,haswell,Haswell,haswell,none,,cpuid", "basis 'none' goes with an empty event_set", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,haswell,Haswell,haswell,vendor,,cpuid",
     "intel,0x6,0x3c,,,,haswell,Haswell,haswell,related_core,,cpuid", "basis 'related_core' needs a note", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,haswell,Haswell,haswell,vendor,,cpuid",
     "intel,0x6,0x3c,,,,haswell,Haswell,haswell,vendor,k6,cpuid", "basis 'vendor' needs no note", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,haswell,Haswell,haswell,vendor,,cpuid",
     "intel,0x6,0x3c,,,,haswell,Haswell,haswell,vendor,,arch", "pmu 'arch' must be one of", True),
    ("uarch.csv", "amd,0x10,0x00-0xff,,,,k10,K10 (Family 10h),fam10h,vendor,,cpuid",
     "amd,0x10,0x00-0xff,,,,k10,K10 (Family 10h),fam10h,vendor,,p6", "pmu 'p6' is an Intel PMU", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,", "intel,0x6,0x3a-0x3c,,,,", "claims CPUs that", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,", "intel,0x6,0x3c-0x3b,,,,", "model range '0x3c-0x3b' runs backwards", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,", "intel,0x6,0x3c,0x10,,,", "stepping 0x10 is out of range 0..0xf", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,", "intel,0x6,60,,,,", "model '60' must be a hex number", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,", "intel,0x6,0x3c,,,0x000001,", "a native_model means something only", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,", "intel,0x6,0x3c,,little,,", "core_type 'little' must be one of", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,", "via,0x6,0x3c,,,,", "vendor 'via' must be one of", True),
    ("uarch.csv", "intel,0x6,0x3c,,,,haswell,Haswell,", "intel,0x6,0x3c,,,,Haswell,Haswell,",
     "key 'Haswell' must be lower-case", True),
    ("uarch_notes.csv", "hygon,\"libpfm4", "hygon_x,\"libpfm4", "note 'hygon' is not in uarch_notes.csv",
     "uarch.csv"),
    ("uarch_notes.csv", "note,text\n", "note,text\nspare,a note no line uses\n",
     "note 'spare' is used by no line", None),
    ("uarch.csv", "vendor,family,", "vendor,family2,", "header must be vendor,family,model", None),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,sapphirerapids",
     "AMX-TILE,intel,0x7,0x0,edx,24,sapphire_rapids", "core 'sapphire_rapids' is not a key of cpu/uarch.csv", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,sapphirerapids",
     "AMX-TILE,intel,0x7,0x0,edx,24,zen4 sapphirerapids", "core 'zen4' is amd's, the line is intel's", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,", "AMX-TILE,intel,0x7,0x0,edx,32,",
     "bit '32' must be a number 0..31", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,", "AMX-TILE,intel,0x7,0x0,rdx,24,",
     "reg 'rdx' must be one of", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,", "AMX-TILE,hygon,0x7,0x0,edx,24,",
     "vendor 'hygon' must be one of", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,", "AMX-TILE,intel,7,0x0,edx,24,",
     "leaf '7' must be a hex number", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,", "AMX-TILE,intel,0xd,0x0,edx,24,",
     "leaf 0xd subleaf 0x0: only leaf 0x7 subleaves 0 and 1 are read on every CPU", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,", "AMX-TILE,intel,0x7,0x2,edx,24,",
     "leaf 0x7 subleaf 0x2: only leaf 0x7", True),
    ("uarch_features.csv", "AMX-TILE,intel,0x7,0x0,edx,24,sapphirerapids emeraldrapids graniterapids,",
     "AMX-TILE,intel,0x7,0x0,edx,24,,", "no cores listed", True),
    ("uarch_features.csv", "AVX10,intel,0x7,0x1,", "AMX-TILE,intel,0x7,0x1,",
     "feature 'AMX-TILE' listed twice for intel", True),
    ("uarch_features.csv", "AVX10,intel,0x7,0x1,edx,19,graniterapids,\"Intel SDM Vol. 2A, CPUID leaf 07H subleaf 1 "
     "(EDX[19] AVX10); Intel AVX10 Architecture Specification (AVX10.1: Granite Rapids)\"",
     "AVX10,intel,0x7,0x1,edx,19,graniterapids,", "the line needs a source", True),
    ("sets.csv", ",Pentium Pro,libpfm4 intel-legacy/intel_ppro_events.h intel_ppro_pe", ",Pentium Pro,",
     "intel needs exactly one set without vendor data (its fallback); there are 2", None),
]


def test_bad_lines_are_refused_by_file_and_line(ctx):
    failures = []
    for name, old, new, want, names_line in BAD:
        with tempfile.TemporaryDirectory() as d:
            copy_tree(ctx, d)
            path = next(os.path.join(d, *p) for p in DATA if p[-1] == name)
            edit(path, old, new)
            out = os.path.join(d, "out.c")
            p = gen(ctx, d, out)
            msg = p.stderr.strip()
            if isinstance(names_line, str):
                where = next(os.path.join(d, *p) for p in DATA if p[-1] == names_line)
            else:
                where = f"{path}:{line_of(path, new.splitlines()[-1])}:" if names_line else path
            if p.returncode != 1 or want not in msg or where not in msg or os.path.exists(out) or \
                    "Traceback" in msg or len(msg.splitlines()) != 1:
                failures.append(f"{name}: {new!r}: exit {p.returncode}, {msg!r} (want {want!r} at {where})")
    assert not failures, "\n".join(failures)


def test_a_set_no_cpu_reaches_is_refused(ctx):
    with tempfile.TemporaryDirectory() as d:
        copy_tree(ctx, d)
        path = os.path.join(d, "cpu", "uarch.csv")
        # Arctic Wolf is the only core whose set is arcticwolf: give its lines Skymont's set instead.
        edit(path, "arcticwolf,vendor,", "skymont,vendor,", count=2)
        p = gen(ctx, d, os.path.join(d, "out.c"))
        assert p.returncode == 1, p.stderr
        assert "event set 'arcticwolf' is named by no line" in p.stderr and "no CPU reaches it" in p.stderr, \
            p.stderr
