"""pmuboot-host instr --list: the catalogue's forms a CPU has, with their statuses (docs/instr.md).

On this host (whatever its CPU: every x86-64 core has the base, x87 and SSE2 forms) and on CPUID dumps
of an Intel core with AVX-512 and AMX, AMD cores with and without AVX-512 and an AMD K8 with 3DNow!;
the coverage the issue asks (at least 1,000 forms, at most 15% excluded); the summary's counts are
the list's; --match and --extension choose; bad input exits 2 naming it."""
import os
import re

DUMPS = os.path.join("tests", "fixtures", "cpuid-real")
SPR = "GenuineIntel00806F8_SapphireRapids_05_CPUID.txt"
ZEN4 = "AuthenticAMD0A60F12_K19_Raphael_04_CPUID.txt"
ZEN1 = "AuthenticAMD0800F11_K17_Zen_CPUID4.txt"
K8 = "AuthenticAMD0020FB1_K8_Manchester_CPUID.txt"
HASWELL = "GenuineIntel00306C3_Haswell_CPUID.txt"
SUMMARY = re.compile(r"^pmuboot-host instr: (\d+) forms for (.*), (\d+) to measure, (\d+) excluded \((\d+)\.(\d)%\)$",
                     re.M)


def listing(ctx, *args):
    p = ctx.run_host("instr", "--list", *args, check=True)
    rows = [line.split("\t") for line in p.stdout.splitlines()]
    m = SUMMARY.search(p.stderr)
    assert m, p.stderr[:500]
    return rows, m, p.stderr


def dump(ctx, name):
    return ("--cpuid-dump", os.path.join(ctx.root, DUMPS, name))


def check_rows(rows, m):
    excluded = 0
    for r in rows:
        assert len(r) == 4, r
        asm, iform, ext, status = r
        assert re.match(r"^[A-Z]", asm) and iform and ext, r
        assert re.match(r"^(measure: (latency|throughput)|no kernel: \S|excluded: \S)", status), r
        excluded += status.startswith("excluded: ")
    forms = int(m.group(1))
    assert forms == len(rows)
    assert int(m.group(4)) == excluded and int(m.group(3)) == forms - excluded
    return {r[0] for r in rows}, {r[2] for r in rows}, excluded


def test_this_host_meets_the_coverage(ctx):
    rows, m, err = listing(ctx)
    names, exts, excluded = check_rows(rows, m)
    assert len(rows) >= 1000 and excluded <= 0.15 * len(rows), m.group(0)
    for want in ("ADD r64, r64", "ADD r64, m64", "SHL r64, cl", "ROR r16, 1", "IMUL r64, r64", "MOVQ xmm, r64",
                 "PADDD xmm, xmm"):
        assert want in names, want
    assert {"BASE", "X87", "SSE2"} <= exts
    assert "this CPU" in m.group(2)
    # Every exclusion reason and every extension has its summary line, with the counts the list gives.
    for ext in exts:
        n = sum(1 for r in rows if r[2] == ext)
        assert re.search(rf"^  extension {re.escape(ext)} +{n} forms", err, re.M), ext
    status = {r[0]: r[3] for r in rows}
    assert status["ADD r64, r64"].startswith("measure: latency op1->op1") and "throughput" in status["ADD r64, r64"]
    # PUSH and POP move the stack pointer the harness owns: measured as balanced pairs, the pair's round trip.
    assert status["PUSH r64"] == "measure: latency op1->stack; throughput", status["PUSH r64"]
    assert status["POP r64"] == "measure: latency stack->op1; throughput", status["POP r64"]
    assert status["CPUID"].startswith("excluded: serialising")
    assert status["JMP rel32"].startswith("excluded: control transfer")
    assert status["OUT dx, al"].startswith("excluded: I/O")


def test_an_intel_dump_with_avx512_and_amx(ctx):
    rows, m, err = listing(ctx, *dump(ctx, SPR))
    names, exts, excluded = check_rows(rows, m)
    assert len(rows) >= 1000 and excluded <= 0.15 * len(rows)
    assert "VADDPS zmm{k}, zmm, zmm" in names and "VPERMB zmm, zmm, m512" in names
    assert "AVX512EVEX" in exts and "SSE4a" not in exts and "XOP" not in exts and "3DNOW" not in exts
    amx = [r for r in rows if r[2] == "AMX_TILE"]
    assert amx and all(r[3].startswith("excluded: needs AMX tile state") for r in amx)
    assert "image would set" in err


def test_amd_dumps_with_and_without_avx512(ctx):
    rows, m, _ = listing(ctx, *dump(ctx, ZEN4))
    names, exts, excluded = check_rows(rows, m)
    assert "AVX512EVEX" in exts and "SSE4a" in exts and excluded <= 0.15 * len(rows)
    rows, m, _ = listing(ctx, *dump(ctx, ZEN1))
    names, exts, excluded = check_rows(rows, m)
    assert "AVX2" in exts and "SSE4a" in exts and "AVX512EVEX" not in exts
    assert not any("zmm" in n for n in names)
    assert len(rows) >= 1000 and excluded <= 0.15 * len(rows)
    rows, m, _ = listing(ctx, *dump(ctx, K8))
    names, exts, _ = check_rows(rows, m)
    assert "3DNOW" in exts and "AVX" not in exts and "SSE4" not in exts
    assert "PFADD mm, mm" in names


def test_match_and_extension_choose(ctx):
    rows, m, _ = listing(ctx, *dump(ctx, HASWELL), "--match", "^ADD r64")
    names, _, _ = check_rows(rows, m)
    assert names == {"ADD r64, r64", "ADD r64, m64", "ADD r64, imm32", "ADD r64, imm8"}, names
    rows, m, _ = listing(ctx, *dump(ctx, HASWELL), "--extension", "avx2,FMA")
    _, exts, _ = check_rows(rows, m)
    assert exts == {"AVX2", "FMA"}
    rows, m, _ = listing(ctx, *dump(ctx, HASWELL), "--extension", "AVX2", "--match", "^VPADDD ymm")
    names, _, _ = check_rows(rows, m)
    assert names == {"VPADDD ymm, ymm, ymm", "VPADDD ymm, ymm, m256"}


def test_bad_input_exits_2_naming_it(ctx):
    p = ctx.run_host("instr", "--list", "--match", "ADD (r64")
    assert p.returncode == 2 and "'ADD (r64'" in p.stderr and "position 5" in p.stderr, p.stderr
    p = ctx.run_host("instr", "--list", "--match", "[z-a]")
    assert p.returncode == 2 and "backwards" in p.stderr, p.stderr
    p = ctx.run_host("instr", "--list", "--extension", "SSE2,AVX513")
    assert p.returncode == 2 and "unknown extension 'AVX513'" in p.stderr, p.stderr
    p = ctx.run_host("instr", "--list", "--frobnicate")
    assert p.returncode == 2 and "'--frobnicate'" in p.stderr
    p = ctx.run_host("instr", "--list", "--cpu", "x")
    assert p.returncode == 2 and "--cpu" in p.stderr
    p = ctx.run_host("instr", "--list", "--cpuid-dump", "/nonexistent/dump.txt")
    assert p.returncode == 1 and "/nonexistent/dump.txt" in p.stderr
    p = ctx.run_host("instr", "--reps", "0", "--match", "^STD$")
    assert p.returncode == 2 and "--reps wants 1..255, not '0'" in p.stderr and not p.stdout, p.stderr
    for bad in ("1441", "-1", "ten", ""):
        p = ctx.run_host("instr", "--minutes", bad, "--match", "^STD$")
        assert p.returncode == 2 and f"--minutes wants 0..1440, not '{bad}'" in p.stderr and not p.stdout, p.stderr
    p = ctx.run_host("instr", "pack", "--minutes", "5", "-o", os.devnull)
    assert p.returncode == 2 and "--minutes" in p.stderr, p.stderr
    p = ctx.run_host("instr", "--help")
    assert p.returncode == 0 and "--list" in p.stdout
    p = ctx.run_host("--help")
    assert re.search(r"^  instr \[--list\]", p.stdout, re.M)
