"""Host: instruction forms measured on this machine (issue 31, docs/instr.md, "Measuring").

`pmuboot-host instr-dev` builds the kernels of the kernel builder's test forms (instr/kernel_forms.h),
assembles them with GNU as and measures them through the user-kernel harness.  What is checked follows
from definitions only, never from a published table: a dependent ADD r64, r64 chain is 1 cycle per add
(within 5%), no exact register chain is below 1 cycle, ADD's throughput is no worse than its latency, a
form that faults is recorded with its fault and the forms after it are still measured, and every record
has the fields docs/results-format.md ("instr") gives.  Timing checks are retaken on a busy host before they fail.
"""
import json
import re

PREFIX = "@pmuboot "
ALL = {}   # one measurement of every test form per test run, shared by the tests below
RETAKES = 3
OPERAND = re.compile(r"^(op[1-9](\.addr)?|flags|[a-z][a-z0-9]*)$")


def records(text):
    out = []
    for line in text.splitlines():
        if line.startswith(PREFIX):
            out.append(json.loads(line[len(PREFIX):]))
    return out


def measure(ctx, *forms):
    args = ["instr-dev"]
    for f in forms:
        args += ["--form", f]
    p = ctx.run_host(*args, timeout=600)
    assert p.returncode == 0, (args, p.returncode, p.stderr[-2000:])
    recs = records(p.stdout)
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "ok", recs[-1]
    return [r for r in recs if r["type"] == "instr"], p.stdout


def everything(ctx):
    if not ALL:
        recs, text = measure(ctx)
        ALL["recs"], ALL["text"] = recs, text
    return ALL["recs"]


def by_asm(recs, asm):
    out = [r for r in recs if r["asm"] == asm]
    assert out, (asm, [r["asm"] for r in recs])
    return out


def lat(rec, frm, to):
    for e in rec["latency"]:
        if e["from"] == frm and e["to"] == to:
            return e
    raise AssertionError(f"{rec['asm']}: no latency {frm}->{to} in {rec['latency']}")


def test_add_chain_is_one_cycle(ctx):
    """ADD r64, r64 op1->op1, both encodings: 1 cycle per add within 5% (retaken on a busy host)."""
    recs = by_asm(everything(ctx), "ADD r64, r64")
    assert {r["iform"] for r in recs} == {"ADD_GPRv_GPRv_01", "ADD_GPRv_GPRv_03"}
    for attempt in range(RETAKES + 1):
        bad = [(r["iform"], lat(r, "op1", "op1")["cycles"]) for r in recs
               if lat(r, "op1", "op1")["cycles"] is None or abs(lat(r, "op1", "op1")["cycles"] - 1.0) > 0.05]
        if not bad:
            break
        assert attempt < RETAKES, f"ADD r64, r64 op1->op1 not 1 cycle within 5% after {RETAKES} retakes: {bad}"
        recs, _ = measure(ctx, "ADD r64, r64")
    for r in recs:
        e = lat(r, "op1", "op1")
        assert e["bound"] == "exact" and e["via"] is None, e
        print(f"{r['iform']}: op1->op1 {e['cycles']:.3f} cycles, throughput {r['throughput']['cycles']:.3f} "
              f"({r['throughput']['how']})")


def test_no_exact_register_chain_below_one_cycle(ctx):
    """A chain of dependent instructions takes at least a cycle each, unless the core removes the
    instruction (moves, idioms: labelled, and left out here) or memory renaming forwards a store."""
    checked = 0
    for r in everything(ctx):
        if r["idiom"] and r["idiom"]["kind"] == "move elimination":
            continue
        for e in r["latency"]:
            if e["cycles"] is None or e["bound"] != "exact" or e["note"]:
                continue
            if e["cycles"] < 0.95:
                # Retaken: a disturbed run reads low only through a moving clock, and a chain through a
                # connector subtracts the connector timed at another moment (LEA r64, m read 0.945 through
                # `and r64, imm32` on a busy host). A retake taken beside another thread on the core
                # (unstable) proves nothing either way: up to RETAKES are made for one that is not, and
                # a figure none of them could take quietly is left unchecked (checked counts the rest).
                for _ in range(RETAKES):
                    again, _ = measure(ctx, r["asm"])
                    e2 = lat(again[0], e["from"], e["to"])
                    if e2["cycles"] is not None and not e2["unstable"]:
                        break
                else:
                    continue
                assert e2["cycles"] >= 0.95, (r["asm"], e, e2)
            checked += 1
    assert checked >= 20, checked


def test_add_throughput_not_above_latency(ctx):
    for attempt in range(RETAKES + 1):
        r = by_asm(everything(ctx) if attempt == 0 else measure(ctx, "ADD r64, r64")[0], "ADD r64, r64")[0]
        tp, l1 = r["throughput"]["cycles"], lat(r, "op1", "op1")["cycles"]
        if tp <= l1 * 1.05:
            break
        assert attempt < RETAKES, (tp, l1)
    assert r["throughput"]["how"] in ("unrolled", "loop")
    assert r["throughput"]["cycles"] == min(v for v in (r["throughput"]["unrolled"], r["throughput"]["loop"])
                                            if v is not None)


def test_fault_is_recorded_and_the_run_goes_on(ctx):
    recs, text = measure(ctx, "UD2", "ADD r64, r64")
    ud2 = by_asm(recs, "UD2")[0]
    assert ud2["fault"]["name"] == "#UD" and ud2["fault"]["vector"] == 6, ud2["fault"]
    assert ud2["fault"]["signal"] == "SIGILL", ud2["fault"]
    assert "faulted" in ud2["why"] and ud2["throughput"] is None, ud2
    assert "FAULT #UD" in text
    # The run went on: ADD was measured after UD2 faulted.  On a busy host (make test runs jobs beside it, and
    # the other vCPU can be this core's other thread) a kernel can lose every sample to contention: then its
    # why says so, which is a result too.
    for r in by_asm(recs, "ADD r64, r64"):
        l = lat(r, "op1", "op1")
        assert r["fault"] is None and (l["cycles"] is not None or "no sample could be kept" in (l.get("why") or "")), r


def test_records_have_their_fields(ctx):
    recs = everything(ctx)
    assert len(recs) >= 20, len(recs)
    keys = {"type", "cpu", "asm", "iform", "extension", "isa_set", "latency", "latency_skipped", "connectors", "throughput",
            "throughput_why",
            "idiom", "values", "uops", "ports", "uops_why", "cycles_source", "core_per_tsc", "fault", "why",
            "unstable", "emulated", "seconds"}
    for r in recs:
        assert keys <= set(r), (r["asm"], keys - set(r))
        assert r["uops"] is None and r["ports"] is None and r["uops_why"], r
        assert r["emulated"] is False and r["cycles_source"] in ("tsc_calibrated", "tsc"), r
        for e in r["latency"]:
            assert OPERAND.match(e["from"]) and OPERAND.match(e["to"]), e
            assert e["bound"] in ("exact", "upper"), e
            assert (e["cycles"] is None) == ("why" in e), e
            if e["bound"] == "upper":
                assert e["via"], e   # an upper bound names what it includes
        if r["fault"] is None and r["why"] is None:
            assert r["throughput"] is not None or r["latency"], r
    lines = [l for l in ALL["text"].splitlines() if l.startswith("instr ")]
    assert len(lines) == len(recs), (len(lines), len(recs))


def test_labels_and_stated_values(ctx):
    recs = everything(ctx)
    xor = by_asm(recs, "XOR r64, r64")[0]
    assert xor["idiom"]["kind"] == "zero idiom" and xor["idiom"]["latency"] is not None, xor["idiom"]
    assert by_asm(recs, "PCMPEQD xmm, xmm")[0]["idiom"]["kind"] == "ones idiom"
    assert by_asm(recs, "MOV r64, r64")[0]["idiom"]["kind"] == "move elimination"
    div = by_asm(recs, "DIV r64")[0]
    assert "dividend" in div["values"] and "every flag undefined" in div["latency_skipped"], div
    # The divisor's pair keeps the values through `xor` twice, subtracted: a divide takes more than a cycle.
    e = lat(div, "op1", "rax")
    assert e["bound"] == "exact" and e["cycles"] > 1.0 and "xor" in e["via"], e
    assert "rax, rdx" in div["throughput"]["chain"], div["throughput"]
    assert "flags" in by_asm(recs, "ADC r64, r64")[0]["throughput"]["chain"]
    # An address into a fixed result through an index of its own: a load and a multiply, on every x86 core
    # more than 5 cycles (the index the instance never wrote read 2 here).
    e = lat(by_asm(recs, "MUL m64")[0], "op1.addr", "rax")
    assert e["bound"] == "exact" and e["cycles"] > 5.0, e
    e = lat(by_asm(recs, "VMOVAPS xmm, m128")[0], "op2.addr", "op1")
    assert e["bound"] == "upper" and e["cycles"] > 3.0 and "to a general register" in e["via"], e
    movq = by_asm(recs, "MOVQ xmm, r64")[0]
    e = lat(movq, "op2", "op1")
    assert e["bound"] == "upper" and e["cycles"] >= 1.0, e   # a round trip of two moves between files


def test_bad_arguments_exit_2(ctx):
    p = ctx.run_host("instr-dev", "--form", "NOPE r64")
    assert p.returncode == 2 and "no test form 'NOPE r64'" in p.stderr, (p.returncode, p.stderr)
    p = ctx.run_host("instr-dev", "--reps", "0")
    assert p.returncode == 2 and "--reps wants" in p.stderr, p.stderr
    p = ctx.run_host("instr-dev", "--bogus")
    assert p.returncode == 2 and "'--bogus'" in p.stderr, p.stderr


def test_missing_assembler_is_named(ctx):
    p = ctx.run_host("instr-dev", "--form", "ADD r64, r64", "--as", "/nonexistent/as")
    assert p.returncode == 1, p.returncode
    recs = records(p.stdout)
    errors = [r for r in recs if r["type"] == "error"]
    assert errors and "'/nonexistent/as' not found" in errors[0]["message"], errors
    instr = [r for r in recs if r["type"] == "instr"]
    assert len(instr) == 2 and all(r["why"] and r["throughput"] is None for r in instr), instr


def test_the_catalogues_forms_through_pmuboot_host_instr(ctx):
    """`pmuboot-host instr --match` measures catalogue forms (not the test table): both encodings of ADD r64, r64
    by their iforms, a form that sets the direction flag (STD) without breaking the process's own string
    instructions after it (the harness's frame clears DF on return), and PUSH, which moves the stack pointer the
    harness owns, measured as a balanced PUSH/POP pair (the process goes on: its stack was left as it was)."""
    # MOVSXD r16, m16: GNU as refuses the SDM's spelling; the builder writes the same bytes as `data16 movsxd`.
    want = "^(ADD r64, r64|STD|IMUL r64, r64|PUSH r64|MOVSXD r16, m16)$"
    p = ctx.run_host("instr", "--match", want, timeout=600)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    recs = [r for r in records(p.stdout) if r["type"] == "instr"]
    assert sorted(r["iform"] for r in recs if r["asm"] == "ADD r64, r64") == ["ADD_GPRv_GPRv_01", "ADD_GPRv_GPRv_03"]
    assert [r["asm"] for r in recs if r["asm"] == "STD"] == ["STD"]
    for push in by_asm(recs, "PUSH r64"):     # each push paired with a pop: a push loop alone runs off the stack
        assert push["why"] is None and push["throughput"]["cycles"] > 0 and "pair" in push["throughput"]["chain"], push
    for r in recs:     # every form has a figure or says why not
        figure = any(e["cycles"] is not None for e in r["latency"] or []) or (r["throughput"] or {}).get("cycles")
        assert figure or r["why"], r
    imul = by_asm(recs, "IMUL r64, r64")[0]
    l = lat(imul, "op1", "op1")    # on a busy host every sample can go to contention: its why says so
    assert imul["why"] is None and (l["cycles"] >= 1 - 0.05 if l["cycles"] is not None
                                    else "no sample could be kept" in (l.get("why") or "")), imul
    listed = ctx.run_host("instr", "--list", "--match", want)
    status = {tuple(line.split("\t")[:2]): line.split("\t")[3] for line in listed.stdout.splitlines()}
    assert status[("PUSH r64", "PUSH_GPRv_50")] == "measure: latency op1->stack; throughput", status
    assert status[("ADD r64, r64", "ADD_GPRv_GPRv_01")].startswith("measure: latency op1->op1"), status
    # Each listed form once, whichever pass measured it (a form with a figure taken beside another thread
    # is measured again after the others, and only then written).
    assert sorted((r["asm"], r["iform"]) for r in recs) == sorted(
        k for k, st in status.items() if not st.startswith("excluded")), (recs, status)
    again = re.search(r"instr: \d+ forms measured, \d+ without a figure, .*; (\d+) left for later passes, "
                      r"(\d+) of them written with an earlier pass's figure", p.stdout)
    assert again and int(again.group(2)) <= int(again.group(1)) <= len(recs), p.stdout[-2000:]
    # A dump is listed, never measured.
    p = ctx.run_host("instr", "--cpuid-dump", "/nonexistent", "--match", "^STD$")
    assert p.returncode == 2 and "only this machine's measured" in p.stderr, p.stderr


def test_minutes_zero_is_one_pass(ctx):
    """--minutes 0: no form is left for a later pass, whatever the contention; each listed form is written once,
    from its one measurement (a figure taken beside another thread says so, it is not measured again)."""
    want = "^(ADD r64, r64|IMUL r64, r64|VPADDD xmm, xmm, xmm|ORPD xmm, m128)$"
    p = ctx.run_host("instr", "--minutes", "0", "--match", want, timeout=600)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    recs = [r for r in records(p.stdout) if r["type"] == "instr"]
    listed = ctx.run_host("instr", "--list", "--match", want).stdout.splitlines()
    assert sorted((r["asm"], r["iform"]) for r in recs) == sorted(tuple(l.split("\t")[:2]) for l in listed), recs
    assert re.search(r"; 0 left for later passes, 0 of them written with an earlier pass's figure", p.stdout), \
        p.stdout[-2000:]
    assert "instr: pass 2" not in p.stdout, p.stdout[-2000:]


def test_x87_forms_measured(ctx):
    """x87 forms (every x86-64 core has them) through `pmuboot-host instr --match`: each gets a throughput and no
    why, with pushes and pops balanced (a push onto a full stack would load NaNs, a pop of an empty one too;
    neither faults, so what is checked is the figure): the chain of a destination that is its own source
    (FADD st0, st(i); FMUL; FADDP after its balancing fld1) is a whole number of cycles, at least 1, since
    nothing but the form's own latency is in it.  On a busy host (another tenant's thread on the core's
    sibling comes and goes) one chain or another can read off in a run: each must read whole in one of
    RETAKES runs, chain by chain (all three in one run failed 3 of 8 runs of the instr tests here)."""
    want = "^(FADD st0, st|FMUL st0, st|FADDP st, st0|FLD m32|FLD1|FCOMPP|FXTRACT|FSTP m64)$"
    chains = ("FADD st0, st", "FMUL st0, st", "FADDP st, st0")
    seen = {a: [] for a in chains}
    for attempt in range(RETAKES):
        p = ctx.run_host("instr", "--match", want, timeout=600)
        assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
        recs = [r for r in records(p.stdout) if r["type"] == "instr"]
        assert sorted({r["asm"] for r in recs}) == sorted(want[2:-2].split("|")), [r["asm"] for r in recs]
        for r in recs:
            assert r["why"] is None and r["throughput"] and r["throughput"]["cycles"] > 0, r
            assert "1.0" in r["values"], r
        for a in chains:
            seen[a].append(lat(by_asm(recs, a)[0], "op1", "op1")["cycles"])
        if all(any(c >= 1 - 0.05 and abs(c - round(c)) <= 0.1 for c in v) for v in seen.values()):
            break
    else:
        raise AssertionError(f"x87 chains not whole cycles in any run: {seen}")
    load = lat(by_asm(recs, "FLD m32")[0], "op1", "st0")
    assert load["bound"] == "upper" and "store" in load["via"], load
