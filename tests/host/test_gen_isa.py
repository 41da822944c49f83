"""tools/gen_isa.py: the instruction catalogue (instr/forms.tsv) from XED's datafiles, and its C.

forms.tsv re-derived from ../shared is the committed file; the C the build compiles is what the
committed file gives; the C mode refuses each kind of bad row by line; and the canonical asm names
follow their definition (docs/instr.md "The catalogue")."""
import gzip
import os
import re
import subprocess
import sys
import tempfile

COLUMNS = ["asm", "mnemonic", "iform", "extension", "isa_set", "category", "operands",
           "flags_read", "flags_written", "flags_undefined", "attrs", "cpuid", "excluded"]
# The operand spellings of an asm name (docs/instr.md): kinds, fixed registers, EVEX decorations.
SPELL = re.compile(r"^(r8|r16|r32|r64|mm|xmm|ymm|zmm|k|tmm|bnd|cr|dr|seg|st|m|m\d+|m\d+bcst|vm\d+[xyz]|"
                   r"imm8|imm16|imm32|imm64|cl|1|rel8|rel32|[a-z][a-z0-9]*)(\{k\}(\{z\})?)?$")


def gen(ctx, *args):
    return subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "gen_isa.py"), *args],
                          capture_output=True, text=True, timeout=120)


def committed(ctx):
    """The committed catalogue, as text (stored gzip-compressed: instr/forms.tsv.gz)."""
    return gzip.open(os.path.join(ctx.root, "instr", "forms.tsv.gz"), "rt", encoding="utf-8", newline="")


def rows(ctx):
    with committed(ctx) as f:
        for line in f:
            if not line.startswith("#"):
                yield dict(zip(COLUMNS, line.rstrip("\n").split("\t")))


def test_rederived_from_xed_is_the_committed_file(ctx):
    xed = ctx.shared_path("vendor-isa", "xed")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "forms.tsv.gz")
        p = gen(ctx, "--xed", xed, "--out", out)
        assert p.returncode == 0, p.stderr
        # Byte for byte: the compressed file carries no name or time, so the same rows give the same bytes.
        with open(out, "rb") as f, open(os.path.join(ctx.root, "instr", "forms.tsv.gz"), "rb") as g:
            assert f.read() == g.read(), "instr/forms.tsv.gz is not what XED's datafiles give: re-run tools/gen_isa.py"


def test_header_names_the_release_and_the_licence(ctx):
    with committed(ctx) as f:
        head = "".join(line for line in f if line.startswith("#"))
    assert re.search(r"release commit [0-9a-f]{40}", head)
    assert "Apache License, Version 2.0" in head


def test_the_built_c_is_what_the_committed_file_gives(ctx):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "forms.c")
        p = gen(ctx, "--c", out)
        assert p.returncode == 0, p.stderr
        with open(out, encoding="utf-8") as f, open(os.path.join(ctx.build, "gen", "instr_forms.c"),
                                                     encoding="utf-8") as g:
            assert f.read() == g.read(), "build/gen/instr_forms.c is stale: rebuild"


GOOD = "\t".join(["ADD r64, r64", "add", "ADD_GPRv_GPRv_01", "BASE", "I86", "BINARY",
                  "r64:rw:64 r64:r:64", "-", "cf,pf,af,zf,sf,of", "-", "-", "-", "-"])
F = 10  # the first column after the flags (attrs)


def test_c_mode_refuses_bad_rows_by_line(ctx):
    bad = {
        "a column short: '12 columns, want 13'": GOOD.rsplit("\t", 1)[0],
        "unknown kind 'r65'": GOOD.replace("r64:rw:64 ", "r65:rw:64 "),
        "operand 'r64:xx:64'": GOOD.replace("r64:rw:64", "r64:xx:64"),
        "unknown flag 'qf'": GOOD.replace("cf,pf", "qf,pf"),
        "unknown attribute 'shiny'": "\t".join(GOOD.split("\t")[:F] + ["shiny", "-", "-"]),
        "'zf' is not in flags_written": "\t".join(GOOD.split("\t")[:8] + ["cf", "zf"] + GOOD.split("\t")[F:]),
        "cpuid bit '7.0.exx.5'": "\t".join(GOOD.split("\t")[:F + 1] + ["7.0.exx.5", "-"]),
        "cpuid bit '24.0.ebx.0:7>=0'": "\t".join(GOOD.split("\t")[:F + 1] + ["24.0.ebx.0:7>=0", "-"]),
        "cpuid bit '24.0.ebx.0:0>=2'": "\t".join(GOOD.split("\t")[:F + 1] + ["24.0.ebx.0:0>=2", "-"]),
        "cpuid bit '24.0.ebx.30:33>=1'": "\t".join(GOOD.split("\t")[:F + 1] + ["24.0.ebx.30:33>=1", "-"]),
        "cpuid bit '24.0.ebx.0:15>=256'": "\t".join(GOOD.split("\t")[:F + 1] + ["24.0.ebx.0:15>=256", "-"]),
        "explicit operand after an implicit": GOOD.replace("r64:rw:64 r64:r:64", "r64:rw:64:imp r64:r:64"),
        "asm 'add r64'": GOOD.replace("ADD r64, r64", "add r64"),
        "column excluded is empty": "\t".join(GOOD.split("\t")[:F + 2] + [""]),
    }
    with tempfile.TemporaryDirectory() as d:
        for what, row in bad.items():
            tsv = os.path.join(d, "forms.tsv")
            with open(tsv, "w", encoding="utf-8") as f:
                f.write("# a header\n" + GOOD + "\n\n" + row + "\n" + GOOD + "\n")
            out = os.path.join(d, "forms.c")
            p = gen(ctx, "--c", out, "--tsv", tsv)
            assert p.returncode == 1, (what, p.stderr)
            key = what.split("'")[1] if "'" in what else what.split()[-1]
            assert f"{tsv}:4:" in p.stderr and key in p.stderr, (what, p.stderr)
            assert not os.path.exists(out), what
        with open(tsv, "w", encoding="utf-8") as f:
            f.write(GOOD + "\n")
        assert gen(ctx, "--c", out, "--tsv", tsv).returncode == 0


def test_canonical_names_follow_the_definition(ctx):
    names = {r["asm"] for r in rows(ctx)}
    for want in ("ADD r64, r64", "ADD r64, m64", "ADD m64, r64", "ADD r64, imm32", "ADD r64, imm8", "SHL r64, cl",
                 "ROR r16, 1", "VADDPS ymm, ymm, ymm", "VPERMB zmm, zmm, m512", "VADDPS zmm{k}, zmm, zmm",
                 "VADDPS zmm{k}{z}, zmm, zmm", "VADDPS zmm, zmm, m32bcst", "VADDPS zmm, zmm, zmm, {er}",
                 "LOCK ADD m64, r64", "REP MOVSB", "MOVSD xmm, xmm", "LEA r64, m", "MOV r64, imm64",
                 "IMUL r64, r64", "MUL r64", "MOVQ xmm, r64", "PUSH r64", "POP r64", "FADD st0, st"):
        assert want in names, want
    # No 32-bit-only form: PUSH r32 and the one-byte INC do not exist in 64-bit mode.
    assert "PUSH r32" not in names and "AAA" not in names
    # XED's disambiguation suffixes are gone from the names.
    assert not any(re.match(r"^\S+_(XMM|SSE4|LOCK|NEAR|FAR)\b", n) for n in names)


def test_every_name_spells_its_operands(ctx):
    seen_k = set()
    for r in rows(ctx):
        asm = r["asm"]
        m = re.match(r"^(?:(?:LOCK|REP|REPE|REPNE) )?[A-Z][A-Z0-9_]*(?: (.*))?$", re.sub(r", \{(er|sae)\}$", "", asm))
        assert m, asm
        spelled = m.group(1).split(", ") if m.group(1) else []
        for s in spelled:
            assert SPELL.match(s), (asm, s)
        explicit = [o for o in r["operands"].split(" ") if o != "-" and ":imp" not in o]
        assert len(explicit) == len(spelled), (asm, r["operands"])
        attrs = set(r["attrs"].split(","))
        assert ("{k}" in asm) == ("mask" in attrs), asm
        assert ("{z}" in asm) == ("zeroing" in attrs), asm
        assert ("bcst" in asm) == ("bcast" in attrs), asm
        assert asm.endswith("{er}") == ("er" in attrs) and asm.endswith("{sae}") == ("sae" in attrs), asm
        if "{k}" in asm:
            seen_k.add((r["iform"], asm.replace("{k}{z}", "").replace("{k}", "")))
    # An EVEX form with merge masking also has its unmasked spelling (save forms that need a mask).
    names = {(r["iform"], r["asm"]) for r in rows(ctx)}
    missing = [k for k in seen_k if k not in names and not re.search(r"GATHER|SCATTER|vm\d", k[1])]
    assert not missing, missing[:5]
    assert len(seen_k) > 1000


def test_every_form_is_64_bit_and_named_once(ctx):
    seen = set()
    for r in rows(ctx):
        key = (r["asm"], r["iform"])
        assert key not in seen, key
        seen.add(key)
        for o in r["operands"].split(" "):
            assert o == "-" or not re.match(r"^r(8|16|32|64):\w+:(?!\1\b)", o), (r["asm"], o)
    assert len(seen) > 10000


def test_undefined_flags_are_named_apart(ctx):
    """The kernel builder reads back a flag the form defines (docs/instr.md): XED's `-u` flags are named."""
    by = {}
    for r in rows(ctx):
        by.setdefault(r["asm"], r)
    bsf = by["BSF r64, r64"]
    assert "cf" in bsf["flags_undefined"].split(",") and "zf" not in bsf["flags_undefined"].split(","), bsf
    assert by["ADD r64, r64"]["flags_undefined"] == "-"
    assert "cf" not in by["INC r64"]["flags_written"].split(",")  # INC leaves the carry alone
    for r in by.values():
        und = set(r["flags_undefined"].split(",")) - {"-"}
        assert und <= set(r["flags_written"].split(",")), r["asm"]


def test_merge_masking_reads_the_destination(ctx):
    """{k} keeps the elements the mask leaves (SDM Vol. 2A 2.6.4): the destination is read; {k}{z} and a
    blend's selector mask (XED's MASK_AS_CONTROL) do not read it, and neither does a masked store."""
    by = {}
    for r in rows(ctx):
        by.setdefault(r["asm"], r)

    def dest(asm):
        return by[asm]["operands"].split()[0]
    assert dest("VADDPS zmm{k}, zmm, zmm") == "zmm:rw:512"
    assert dest("VADDPS zmm{k}{z}, zmm, zmm") == "zmm:w:512"
    assert dest("VADDPS zmm, zmm, zmm") == "zmm:w:512"
    assert dest("VPBLENDMD zmm{k}, zmm, zmm") == "zmm:w:512"
    assert dest("VMOVUPS m512{k}, zmm") == "m:w:512"
    assert dest("VPCMPEQD k{k}, zmm, zmm").startswith("k:w:")
    # Every merge-masked vector destination is read, but for the blends (gathers, whose mask is a completion
    # mask the gather clears, have kernels of their own: docs/instr.md).
    for r in by.values():
        first = r["operands"].split()[0]
        if "mask" in r["attrs"].split(",") and "zeroing" not in r["attrs"].split(",") \
                and re.match(r"[xyz]mm:", first) and not r["asm"].startswith(("VPBLENDM", "VBLENDM")) \
                and not re.search(r"\bvm\d+[xyz]\b", r["asm"]):
            assert ":r" in first or "rw" in first, r["asm"]
