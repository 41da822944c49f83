"""The dependency rule (docs/developing.md): tools/layering.py on the tree, and on
synthetic trees that break it, so the checker is shown to catch what it must."""
import os
import re
import subprocess
import sys
import tempfile

import layering


def _tree(files):
    """A throwaway git repository holding files {path: text}; returns its root."""
    d = tempfile.mkdtemp(prefix="pmuboot-layering-")
    for path, text in files.items():
        os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(d, path), "w") as f:
            f.write(text)
    subprocess.run(["git", "init", "-q", d], check=True)
    return d


def _check(files):
    d = _tree(files)
    try:
        return layering.check(d)
    finally:
        subprocess.run(["rm", "-rf", d])


def test_tree_keeps_the_rule(ctx):
    p = subprocess.run([sys.executable, "tools/layering.py"], cwd=ctx.root, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-1000:]


def test_forbidden_edge_is_caught(ctx):
    probs = _check({"platform/a.c": '#include "boot/b.h"\n', "boot/b.h": "\n"})
    assert any("platform/ may not include boot/" in p for p in probs), probs


def test_pmu_may_not_include_bench(ctx):
    probs = _check({"pmu/count/x.c": '#include "bench/y.h"\n', "bench/y.h": "\n"})
    assert any("pmu/count/ may not include bench/" in p for p in probs), probs


def test_allowed_edge_passes(ctx):
    assert _check({"bench/a.c": '#include "pmu/count/c.h"\n', "pmu/count/c.h": '#include "lib/l.h"\n',
                   "lib/l.h": "\n"}) == []


def test_header_circle_is_caught(ctx):
    probs = _check({"lib/a.h": '#include "lib/b.h"\n', "lib/b.h": '#include "lib/a.h"\n'})
    assert any("circle" in p and "lib/a.h" in p for p in probs), probs


def test_stale_include_guard_is_caught(ctx):
    probs = _check({"pmu/count/a.h": "#ifndef PMUBOOT_PMU_A_H\n#define PMUBOOT_PMU_A_H\n#endif\n"})
    assert any("include guard PMUBOOT_PMU_A_H, expected PMUBOOT_PMU_COUNT_A_H" in p for p in probs), probs
    assert _check({"pmu/count/a.h": "#ifndef PMUBOOT_PMU_COUNT_A_H\n#define PMUBOOT_PMU_COUNT_A_H\n#endif\n"}) == []


def test_relative_include_is_refused(ctx):
    probs = _check({"lib/a.c": '#include "b.h"\n', "lib/b.h": "\n"})
    assert any("not a path from the repository root" in p for p in probs), probs


def test_every_room_in_the_table_exists(ctx):
    for room in layering.ALLOWED:
        if room == "tests/fuzz" and not os.path.isdir(os.path.join(ctx.root, room)):
            continue
        assert os.path.isdir(os.path.join(ctx.root, room)), room


def test_each_msr_number_defined_once(ctx):
    """Every `#define MSR_* <number>` in the sources names a different address (lib/x86/msr_*.h)."""
    seen = {}
    dup = []
    out = subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=ctx.root, capture_output=True, text=True).stdout
    for rel in out.split():
        if rel.startswith("tests/"):
            continue
        with open(os.path.join(ctx.root, rel), encoding="utf-8", errors="replace") as f:
            for m in re.finditer(r"^#define\s+((?:IBS_)?MSR_\w+)\s+(0x[0-9A-Fa-f]+)u?\b", f.read(), re.M):
                addr = int(m.group(2), 16)
                if addr in seen and seen[addr][1] != m.group(1):
                    dup.append(f"{m.group(1)} in {rel} and {seen[addr][1]} in {seen[addr][0]}: 0x{addr:x}")
                elif addr in seen:
                    dup.append(f"{m.group(1)} defined in {rel} and {seen[addr][0]}")
                seen[addr] = (rel, m.group(1))
    assert not dup, dup
    assert len(seen) > 30, f"only {len(seen)} MSR numbers found: is the pattern stale?"


def test_each_cpuid_leaf_defined_once(ctx):
    """Every `#define CPUID_LEAF_* <number>` outside tests is in lib/x86/cpuid.h, once per leaf."""
    seen, bad = {}, []
    out = subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=ctx.root, capture_output=True, text=True).stdout
    for rel in out.split():
        if rel.startswith("tests/"):
            continue
        with open(os.path.join(ctx.root, rel), encoding="utf-8", errors="replace") as f:
            for m in re.finditer(r"^#define\s+(CPUID_LEAF_\w+)\s+(0x[0-9A-Fa-f]+)u?\b", f.read(), re.M):
                leaf = int(m.group(2), 16)
                if rel != "lib/x86/cpuid.h":
                    bad.append(f"{m.group(1)} defined in {rel}, not lib/x86/cpuid.h")
                elif leaf in seen:
                    bad.append(f"{m.group(1)} and {seen[leaf]} both name leaf 0x{leaf:x}")
                seen.setdefault(leaf, m.group(1))
    assert not bad, bad
    assert len(seen) >= 10, f"only {len(seen)} leaves found: is the pattern stale?"
