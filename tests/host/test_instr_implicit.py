"""Host: the instruction forms whose registers the harness owns or the form fixes, measured through
`pmuboot-host instr --match` (docs/instr.md, "Forms with fixed registers"): PUSH/POP pairs, PUSHF, ENTER,
string forms with and without REP, XLAT, segment-register reads, XGETBV and, where the CPU has them, gathers
and scatters.

Each kernel is assembled by GNU as and run: the process goes on after it (a stack left misplaced or the
harness's rdi lost would crash it or never end the loop), every form has a figure and no why (a throughput
whose every sample the parallel test load threw away says so, in at most half the forms), and what is
checked follows from definitions only: a figure is positive, a gather's index->result chain is a chain of
dependent loads (at least a cycle each), and each record names the pairing or the reset it measured with.
"""
import json

PREFIX = "@pmuboot "
BASE_FORMS = ["PUSH r64", "POP r64", "PUSH m64", "PUSH imm8", "PUSHFQ", "ENTER imm16, imm8", "MOVSB", "REP MOVSB",
              "REPNE SCASB", "LODSQ", "XLAT", "MOV r64, seg", "PUSH fs", "XGETBV"]
VSIB_FORMS = ["VPGATHERDD ymm, vm32y, ymm", "VPGATHERQD xmm, vm64y, xmm", "VPGATHERDD zmm{k}, vm32z",
              "VGATHERDPD zmm{k}, vm32y", "VPSCATTERDD vm32z{k}, zmm"]


def regex(names):
    return "^(" + "|".join(n.replace("{", "\\{").replace("}", "\\}") for n in names) + ")$"


def records(text):
    return [json.loads(l[len(PREFIX):]) for l in text.splitlines() if l.startswith(PREFIX)]


def measured(ctx, names):
    # A minute for the later passes: a kernel that kept no sample under the parallel test load is drawn again.
    p = ctx.run_host("instr", "--minutes", "1", "--match", regex(names), timeout=600)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    recs = records(p.stdout)
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "ok", recs[-1]
    return [r for r in recs if r["type"] == "instr"]


def one(recs, asm):
    out = [r for r in recs if r["asm"] == asm]
    assert out, (asm, [r["asm"] for r in recs])
    return out[0]


def figures(r):
    lat = [e for e in r["latency"] if e["cycles"] is not None]
    assert r["fault"] is None and r["why"] is None, (r["asm"], r["fault"], r["why"])
    if r["throughput"] is None:
        # Every sample of a wide kernel can be thrown away beside a busy sibling, later passes and all (CI saw
        # VGATHERDPD zmm's once): said so, never a figure. whole() keeps that to a few forms a run.
        assert "no sample could be kept" in (r["throughput_why"] or ""), (r["asm"], r["throughput_why"])
    else:
        assert r["throughput"]["cycles"] > 0, (r["asm"], r["throughput"])
    for e in lat:
        assert e["cycles"] > 0, (r["asm"], e)
        if e["bound"] == "upper":
            assert e["via"], (r["asm"], e)
    return lat


def whole(recs):
    """Most forms have their throughput: a kernel that kept no sample is a moment's, not the rule."""
    without = [r["asm"] for r in recs if r["throughput"] is None]
    assert len(without) * 2 <= len(recs), without
    return [r for r in recs if r["throughput"] is not None]


def test_stack_string_and_segment_forms(ctx):
    recs = measured(ctx, BASE_FORMS)
    assert sorted({r["asm"] for r in recs}) == sorted(BASE_FORMS), [r["asm"] for r in recs]
    for r in recs:
        figures(r)
    # Pairs: both halves named; a push's value comes back through the slot.
    for r in whole(recs):
        if r["asm"].startswith(("PUSH", "POP", "ENTER")):
            assert "pair" in r["throughput"]["chain"], r["throughput"]
    push = [r for r in recs if r["asm"] == "PUSH r64"]
    assert len(push) == 2, push     # both encodings, 50+r and FF /6
    for r in push:
        e = r["latency"][0]
        assert (e["from"], e["to"], e["bound"]) == ("op1", "stack", "upper") and "pop" in e["via"], e
    assert one(recs, "ENTER imm16, imm8")["latency"][0]["from"] == "rbp"
    # Strings: the reset is a connector measured alone, named in the chain; REP states its count.
    for asm in ("MOVSB", "REP MOVSB", "LODSQ", "XLAT"):
        r = one(recs, asm)
        names = [c["name"] for c in r["connectors"]]
        assert names, r
        # A connector has a figure or says why not (under the parallel test load every sample of one can
        # be thrown away, as CI saw once); the throughput reported subtracted one that was measured.
        for c in r["connectors"]:
            assert (c["cycles"] is not None and c["cycles"] > 0) != bool(c.get("why")), c
        if r["throughput"] is None:
            continue
        used = names[0] + ("_loop" if r["throughput"]["how"] == "loop" else "")
        assert used in names and r["connectors"][names.index(used)]["cycles"] is not None, (r["throughput"], names)
        assert names[0] in r["throughput"]["chain"], r["throughput"]
    assert "rcx = 64" in one(recs, "REP MOVSB")["values"]
    assert "rcx = 64" in one(recs, "REPNE SCASB")["values"]
    assert not one(recs, "REP MOVSB")["latency"] and "rcx" in one(recs, "REP MOVSB")["latency_skipped"]
    movsb = one(recs, "MOVSB")["latency"][0]
    assert (movsb["from"], movsb["to"], movsb["bound"]) == ("src", "dst", "exact"), movsb
    # Reads only: a segment register and XGETBV's selector are never chained into.
    assert "segment register" in one(recs, "MOV r64, seg")["latency_skipped"]
    assert "ecx selects" in one(recs, "XGETBV")["latency_skipped"]


def test_gathers_and_scatters_where_the_cpu_has_them(ctx):
    listed = ctx.run_host("instr", "--list", "--match", regex(VSIB_FORMS))
    have = sorted({l.split("\t")[0] for l in listed.stdout.splitlines() if l.split("\t")[3].startswith("measure:")})
    if not have:
        return      # no AVX2 here: nothing to measure (the unit tests check the kernels' text)
    recs = measured(ctx, have)
    assert sorted({r["asm"] for r in recs}) == have
    whole(recs)
    for r in recs:
        lat = figures(r)
        assert lat, r["asm"]
        assert r["throughput"] is None or ("re-made" in r["throughput"]["chain"] and r["connectors"]), r["throughput"]
        if "GATHER" in r["asm"]:
            e = lat[0]
            assert e["from"] == "op2.addr" and e["bound"] == "exact", e
            assert e["cycles"] >= 0.95, e   # a chain of dependent loads: at least a cycle each
        else:
            assert lat[0]["bound"] == "upper" and "gather" in lat[0]["via"], lat[0]


def test_a_general_protection_fault_is_named_gp(ctx):
    """RDPMC in a process (counter 0): where the OS leaves CR4.PCE clear it raises #GP (SDM Vol. 2B RDPMC), which
    Linux delivers as SIGSEGV like a page fault; the record names the exception the trap number says."""
    r = one(measured(ctx, ["RDPMC", "PUSH imm8"]), "RDPMC")    # a form measured beside it: exit 0
    if r["fault"] is None:
        assert r["throughput"]["cycles"] > 0, r     # the OS allows RDPMC here
        return
    assert (r["fault"]["name"], r["fault"]["vector"], r["fault"]["signal"]) == ("#GP", 13, "SIGSEGV"), r["fault"]
