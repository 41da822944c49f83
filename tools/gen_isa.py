#!/usr/bin/env python3
"""tools/gen_isa.py - the instruction catalogue (issue 31; docs/instr.md, instr/catalogue.h).

    tools/gen_isa.py [--xed DIR] [--out instr/forms.tsv.gz]   XED's datafiles -> instr/forms.tsv.gz
    tools/gen_isa.py --c OUT [--tsv instr/forms.tsv.gz]         forms.tsv -> C (instr_forms[])

The first mode reads Intel XED's datafiles (../shared/vendor-isa/xed/datafiles, Apache-2.0; its
README names the release) with a reader of the format written for pmuboot: files.cfg and each
extension folder's files*.cfg name the files making up the ISA; instructions are `{ ... }` blocks
(ICLASS, CATEGORY, EXTENSION, ISA_SET, CPL, ATTRIBUTES, FLAGS and PATTERN / OPERANDS / IFORM
triples); register nonterminals (`GPRv_R()`) are rule tables in the *reg-table* files, resolved
here for 64-bit mode; widths come from the *operand-width* files; CPUID bits per ISA set from the
cpuid files.  Every pattern usable in 64-bit mode becomes one form per operand size and per EVEX
variant (merge masking {k}, zeroing {k}{z}, broadcast mNbcst, {er}, {sae}), named by its canonical
asm name.  The second mode compiles forms.tsv into C, refusing a bad row by line number.

forms.tsv is committed (a clone without ../shared builds the same table) and the first mode is
deterministic: `tests/host/test_gen_isa.py` re-derives it and compares.
"""
import argparse
import glob
import gzip
import os
import re
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
DEFAULT_XED = os.path.join(ROOT, "..", "shared", "vendor-isa", "xed")
DEFAULT_TSV = os.path.join(ROOT, "instr", "forms.tsv.gz")


def open_tsv(path):
    """forms.tsv to read, as text: gzip-compressed when the name ends in .gz (the committed catalogue is 3.2 MB
    as text, 0.19 MB compressed), plain text otherwise (the tests' small files)."""
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")

COLUMNS = ["asm", "mnemonic", "iform", "extension", "isa_set", "category", "operands",
           "flags_read", "flags_written", "flags_undefined", "attrs", "cpuid", "excluded"]

# Operand kinds as forms.tsv spells them -> instr/catalogue.h enum instr_kind.
KINDS = {"r8": "IK_R8", "r16": "IK_R16", "r32": "IK_R32", "r64": "IK_R64", "mm": "IK_MM",
         "xmm": "IK_XMM", "ymm": "IK_YMM", "zmm": "IK_ZMM", "k": "IK_K", "m": "IK_MEM",
         "imm8": "IK_IMM8", "imm16": "IK_IMM16", "imm32": "IK_IMM32", "imm64": "IK_IMM64",
         "cl": "IK_CL", "one": "IK_ONE", "fixed": "IK_FIXED", "st": "IK_ST", "seg": "IK_SEG",
         "rel": "IK_REL", "other": "IK_OTHER"}
# XED's operand actions (xed-operand-action-enum.txt) -> IA_* bits.
ACCESS = {"r": "IA_READ", "w": "IA_WRITE", "rw": "IA_READ|IA_WRITE", "cr": "IA_READ|IA_COND",
          "cw": "IA_WRITE|IA_COND", "rcw": "IA_READ|IA_WRITE|IA_COND", "crw": "IA_READ|IA_WRITE|IA_COND"}
# RFLAGS bits (SDM Vol. 1 3.4.3) the catalogue records, by XED's flag names (xed-flag-enum.txt).
FLAGS = {"cf": "IFL_CF", "pf": "IFL_PF", "af": "IFL_AF", "zf": "IFL_ZF", "sf": "IFL_SF",
         "df": "IFL_DF", "of": "IFL_OF"}
FLAG_ORDER = ["cf", "pf", "af", "zf", "sf", "df", "of"]
ATTRS = {"mask": "IFA_MASK", "zeroing": "IFA_ZEROING", "bcast": "IFA_BCAST", "er": "IFA_ROUNDING",
         "sae": "IFA_SAE", "lock": "IFA_LOCK", "rep": "IFA_REP"}
ATTR_ORDER = ["mask", "zeroing", "bcast", "er", "sae", "lock", "rep"]
CPUID_REGS = ["eax", "ebx", "ecx", "edx"]

# Extension folders left out of the catalogue, and why (docs/instr.md "The catalogue").
SKIPPED_FOLDERS = {
    # APX's EVEX-promoted and new-data-destination forms use r16-r31 and a second destination
    # encoding; no processor has them yet and their names need an APX spelling ({nf}, NDD).
    "apx-f": "APX (extended GPRs, NDD/NF forms): not named by this catalogue yet",
}
# Patterns that cannot occur in 64-bit mode (xed-state-bits.txt: not64 is MODE!=2).
NOT_64 = {"not64", "mode16", "mode32", "MODE!=2", "MODE=0", "MODE=1", "eamode16", "eamode32"}
# Patterns of other encodings handled elsewhere or left out: APX payloads inside other folders.
APX_MARKS = ("EVAPX", "MAP4", "rex2_refining_prefix", "ND=1", "NF=1", "SCC")
# ISA sets whose cpuid file says n/a although a CPUID bit says whether they exist: AMD APM Vol. 3
# (rev. 3.36), Appendix E.4.2 CPUID Fn8000_0001_ECX (SVM bit 2, XOP 11, LWP 15, FMA4 16, TBM 21)
# and _EDX (3DNow! 31), E.4.7 Fn8000_0008_EBX (CLZERO bit 0, INVLPGB 3).
EXTRA_CPUID = {"3DNOW": ["80000001.0.edx.31"], "SVM": ["80000001.0.ecx.2"], "XOP": ["80000001.0.ecx.11"],
               "LWP": ["80000001.0.ecx.15"], "FMA4": ["80000001.0.ecx.16"], "TBM": ["80000001.0.ecx.21"],
               "CLZERO": ["80000008.0.ebx.0"], "AMD_INVLPGB": ["80000008.0.ebx.3"]}
# XED's iclass suffixes that only tell two encodings apart (MOVSD_XMM is MOVSD).
ICLASS_SUFFIXES = ("_XMM", "_SSE4", "_C5", "_XOP", "_NEAR", "_FAR", "_CR", "_DR")


class DataError(Exception):
    """A fact the reader cannot place: file:line and what is wrong."""


def strip_comment(line):
    i = line.find("#")
    return line if i < 0 else line[:i]


# ----------------------------------------------------------------------------------------------
# The files making up the ISA.

def read_cfg(path):
    """files.cfg: `key : file` lines.  Keys seen: dec-instructions, widths, cpuid, dec-patterns..."""
    out = []
    base = os.path.dirname(path)
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = strip_comment(line).strip()
            if ":" not in line:
                continue
            key, _, rest = line.partition(":")
            key, rest = key.strip(), rest.strip()
            if key in ("add", "remove-source", "add-source", "remove"):
                continue
            out.append((key, os.path.normpath(os.path.join(base, rest.split()[0]))))
    return out


def isa_files(datafiles):
    """(key, file) pairs of the base ISA and every extension folder, in a fixed order."""
    # The root's files.cfg is the base ISA; files-xregs.cfg and files-xmm.cfg add the XMM register
    # tables every SSE/AVX folder builds on.
    entries = []
    for name in ("files.cfg", "files-xregs.cfg", "files-xmm.cfg"):
        entries.extend(read_cfg(os.path.join(datafiles, name)))
    cfgs = sorted(p for p in glob.glob(os.path.join(datafiles, "**", "files*.cfg"), recursive=True)
                  if os.path.dirname(p) != datafiles)
    for cfg in cfgs:
        folder = os.path.relpath(os.path.dirname(cfg), datafiles).split(os.sep)[0]
        # A skipped folder's instructions are left out; its register tables stay (ACE's AMX forms
        # use APX's TMM_R3()).
        entries.extend(e for e in read_cfg(cfg) if folder not in SKIPPED_FOLDERS or e[0] != "dec-instructions")
    seen, out = set(), []
    for key, path in entries:
        if (key, path) not in seen and os.path.exists(path):
            seen.add((key, path))
            out.append((key, path))
    return out


# ----------------------------------------------------------------------------------------------
# Registers, register nonterminals, widths, CPUID bits.

def data_lines(paths):
    """(path, line number, text without its comment) of every line of the files, in order."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                yield path, n, strip_comment(line).strip()


def read_registers(paths):
    """xed-regs.txt and the extension folders' regs files: NAME CLASS WIDTH ..."""
    regs = {}
    for _, _, line in data_lines(paths):
        t = line.split()
        if len(t) >= 3 and t[0] not in ("INVALID", "ERROR"):
            width = t[2].split("/")[-1]
            regs[t[0]] = (t[1], int(width) if width.isdigit() else 0)
    return regs


NT_HEAD = re.compile(r"^\s*xed_reg_enum_t\s+(\w+)\(\)::\s*$")


def read_reg_tables(paths):
    """Register nonterminals: NAME -> [(conditions, output)] (output XED_REG_X or NT())."""
    tables = {}
    for path in paths:
        cur = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = NT_HEAD.match(strip_comment(line))
                if m:
                    cur = tables.setdefault(m.group(1), [])
                    continue
                line = strip_comment(line).strip()
                if not line:
                    continue
                if "::" in line:
                    cur = None
                    continue
                if cur is None or "|" not in line:
                    continue
                cond, _, out = line.partition("|")
                m = re.search(r"OUTREG=(\S+)", out)
                if m:
                    cur.append((cond.split(), m.group(1).rstrip(":"), "HAS_EGPR=1" in out))
    return tables


def read_widths(paths):
    """Width code -> bytes for EOSZ 16/32/64 (or bits when written NNNbits)."""
    widths = {}
    for _, _, line in data_lines(paths):
        t = line.split()
        if len(t) < 3:
            continue
        vals = []
        for v in t[2:5]:
            if v.endswith("bits") and v[:-4].isdigit():
                vals.append(int(v[:-4]))
            elif v.isdigit():
                vals.append(int(v) * 8)
            else:
                break
        if vals:
            widths[t[0]] = vals if len(vals) == 3 else [vals[0]] * 3
    return widths


def read_cpuid(paths):
    """ISA set -> ["leaf.subleaf.reg.bit", ...] (hex leaf, as the files write it).

    A set may be given several times, as alternatives (`XED_ISA_SET_X, AVX10 : ...`): its plain
    definition is kept, else the first alternative, for instr/catalogue.h's model (every bit set)
    cannot say "or".  A field value (`avx10_ver2.24.0.ebx[0:7]=2`, the AVX10 version in
    CPUID.24H.0:EBX[7:0]) becomes LEAF.SUBLEAF.REG.LO:HI>=N: the field must read at least N.  At
    least, not exactly: XED gives AVX10.1's sets `=1` and AVX10.2's `=2`, and an AVX10.2 core runs
    AVX10.1's instructions (the versions are cumulative, Intel AVX10 Architecture Specification).
    Leaving the version out (as the catalogue once did) listed AVX10.2's 2,263 forms on an AVX10.1
    core: not one assembled or ran (docs/instr.md "The catalogue")."""
    sets, plain = {}, {}
    for path, n, line in data_lines(paths):
        if not line.startswith("XED_ISA_SET_"):
            continue
        name, _, rest = line.partition(":")
        alias = "," in name
        name = name.split(",")[0].strip()[len("XED_ISA_SET_"):].upper()
        bits = []
        for tok in rest.split():
            if tok == "n/a":
                continue
            m = re.fullmatch(r"\w+\.([0-9a-fA-F]+)\.([0-9a-fA-F]+)\.(eax|ebx|ecx|edx)(?:\.(\d+)|\[(\d+)\])", tok)
            if m:
                bits.append(f"{m.group(1)}.{m.group(2)}.{m.group(3)}.{m.group(4) or m.group(5)}")
                continue
            m = re.fullmatch(r"\w+\.([0-9a-fA-F]+)\.([0-9a-fA-F]+)\.(eax|ebx|ecx|edx)\[(\d+):(\d+)\]=(\d+)", tok)
            if not m:
                raise DataError(f"{path}:{n}: cannot read CPUID bit '{tok}'")
            lo, hi = sorted((int(m.group(4)), int(m.group(5))))
            if hi > 31 or not 1 <= int(m.group(6)) < min(256, 1 << (hi - lo + 1)):
                raise DataError(f"{path}:{n}: CPUID field '{tok}' does not fit its register")
            bits.append(f"{m.group(1)}.{m.group(2)}.{m.group(3)}.{lo}:{hi}>={int(m.group(6))}")
        # A plain definition wins over an alternative (AVX512F_512 is AVX-512F's bit, not AVX10's).
        if not alias:
            plain.setdefault(name, bits)
        else:
            sets.setdefault(name, bits)
    sets.update(plain)
    for k, v in EXTRA_CPUID.items():
        if not sets.get(k):
            sets[k] = v
    return sets


# ----------------------------------------------------------------------------------------------
# Instruction blocks.

def read_isa(path):
    """Blocks as dicts (multi-valued keys PATTERN/OPERANDS/IFORM kept in order) and UDELETEs."""
    blocks, deletes = [], []
    cur = None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = strip_comment(raw).strip()
            if not line:
                continue
            if line == "{":
                cur = {"_file": path, "_line": n, "_pats": []}
                continue
            if line == "}":
                if cur is not None:
                    blocks.append(cur)
                cur = None
                continue
            if ":" not in line:
                continue
            key, _, val = line.partition(":")
            key, val = key.strip(), val.strip()
            if cur is None:
                if key == "UDELETE":
                    deletes.append(val)
                continue
            if key == "PATTERN":
                cur["_pats"].append({"PATTERN": val, "_line": n})
            elif key in ("OPERANDS", "IFORM"):
                if not cur["_pats"]:
                    raise DataError(f"{path}:{n}: {key} before any PATTERN")
                cur["_pats"][-1][key] = val
            else:
                cur[key] = val
    return blocks, deletes


# ----------------------------------------------------------------------------------------------
# 64-bit mode: which operand sizes a pattern allows, what a nonterminal resolves to.

def allowed_eosz(pat):
    """Effective operand sizes (1: 16, 2: 32, 3: 64 bits) a 64-bit-mode pattern allows."""
    toks = set(pat)
    vex = bool(toks & {"VV1", "EVV", "XOPV"})
    s = {2, 3} if vex else {1, 2, 3}
    if vex:
        # VEX/EVEX/XOP: W (written W1, REXW=1 or rexw_prefix) sizes a GPR operand, 66 never does.
        s = {3} if toks & {"W1", "REXW=1", "rexw_prefix"} else {2}
    for t in toks:
        m = re.fullmatch(r"EOSZ(!?=)(\d)", t)
        if m:
            k = int(m.group(2))
            s = {k} & s if m.group(1) == "=" else s - {k}
    if not vex and ("REXW=1" in toks or "rexw_prefix" in toks):
        s &= {3}
    if not vex and ("REXW=0" in toks or "norexw_prefix" in toks) and "DF64()" not in toks:
        s -= {3}                    # (a default-64 form is 64 bits without REX.W)
    if "DF64()" in toks or "IMMUNE66_LOOP64()" in toks:
        s -= {2}                    # default 64 bits in 64-bit mode (SDM Vol. 1 3.6.1, Table 3-4)
    if "FORCE64()" in toks or "CR_WIDTH()" in toks or "IMMUNE66()" in toks and "DF64()" in toks:
        s = {3}
    if "IMMUNE66()" in toks:
        s -= {1}
    if "OSZ=0" in toks or "no66_prefix" in toks:
        s -= {1}
    return sorted(s)


def cond_holds(cond, ctx):
    """False when a rule's condition contradicts 64-bit mode at this EOSZ; unknown fields hold."""
    for c in cond:
        if c in ("otherwise", "mode64", "smode64"):
            continue
        if c in ("mode16", "mode32", "smode16", "smode32", "not64"):
            return False
        m = re.fullmatch(r"(EOSZ|EASZ|MODE|SMODE|VL|REXW|W)(!?=)(\d+)", c)
        if m:
            want = ctx.get(m.group(1))
            if want is None:
                continue
            eq = want == int(m.group(3))
            if eq != (m.group(2) == "="):
                return False
    return True


def resolve(nt, tables, ctx, depth=0):
    """The registers a nonterminal can name in this context, without APX's extended GPRs."""
    if depth > 8 or nt not in tables:
        return []
    out = []
    for cond, reg, egpr in tables[nt]:
        if egpr or not cond_holds(cond, ctx):
            continue
        if reg.endswith("()"):
            out.extend(resolve(reg[:-2], tables, ctx, depth + 1))
        elif reg.startswith("XED_REG_"):
            out.append(reg[len("XED_REG_"):])
    seen = []
    for r in out:
        if r not in seen:
            seen.append(r)
    return seen


# ----------------------------------------------------------------------------------------------
# Operands.

GPR_KIND = {8: "r8", 16: "r16", 32: "r32", 64: "r64"}
CLASS_KIND = {"mmx": "mm", "xmm": "xmm", "ymm": "ymm", "zmm": "zmm", "mask": "k", "x87": "st",
              "sr": "seg"}
# How asm names spell a register class without a kind of its own (xed-regs.txt's classes).
OTHER_SPELL = {"treg": "tmm", "bound": "bnd", "cr": "cr", "dr": "dr"}
VL_BITS = {"VL128": 128, "VL256": 256, "VL512": 512}


class Op:
    __slots__ = ("name", "kind", "access", "bits", "implicit", "reg", "bcast", "spell", "width",
                 "txt", "written", "vsib")

    def __init__(self):
        self.kind, self.access, self.bits, self.implicit = "other", "r", 0, False
        self.reg, self.bcast, self.spell, self.width, self.txt, self.written = None, False, "", "", "", ""
        self.vsib = ""


def vector_len(pat):
    for t in pat:
        if t in VL_BITS:
            return VL_BITS[t]
    for t in pat:
        if "LEN512" in t or "ZMM" in t:
            return 512
        if "LEN256" in t or "YMM" in t:
            return 256
        if "LEN128" in t or "XMM" in t:
            return 128
    return 0


def esize(pat):
    for t in pat:
        m = re.fullmatch(r"ESIZE_(\d+)_BITS\(\)", t)
        if m:
            return int(m.group(1))
    return 0


def evex_mem_bits(pat, vl):
    """An EVEX memory operand's width from its tuple type (SDM Vol. 2A 2.7.5, Table 2-34/35)."""
    es = esize(pat) or 32
    for t in pat:
        if t.startswith("NELEM_"):
            kind = t[len("NELEM_"):-2]
            return {"FULL": vl, "FULLMEM": vl, "HALF": vl // 2, "HALFMEM": vl // 2,
                    "QUARTERMEM": vl // 4, "QUARTER": vl // 4, "EIGHTHMEM": vl // 8,
                    "MEM128": 128, "ONE": es, "SCALAR": es, "TUPLE1_4X": 128, "TUPLE2": 2 * es,
                    "TUPLE4": 4 * es, "TUPLE8": 8 * es,
                    "MOVDDUP": 64 if vl == 128 else vl, "GSCAT": es}.get(kind, vl)
    return vl


def width_bits(code, widths, eosz, pat):
    if code in ("vv", "zv"):
        return evex_mem_bits(pat, vector_len(pat))
    w = widths.get(code)
    if not w:
        return 0
    return w[eosz - 1]


def parse_operand(tok):
    """NAME[=VALUE]:access[:width][:xtype][:SUPP|IMPL|EXPL|ECOND][:TXT=...] -> fields."""
    parts = tok.split(":")
    name, _, value = parts[0].partition("=")
    rest = parts[1:]
    access, width, vis, txt = "r", "", "EXPL", ""
    if rest and rest[0] in ACCESS:
        access = rest.pop(0)
    for p in rest:
        if p in ("SUPP", "IMPL", "EXPL", "ECOND"):
            vis = p
        elif p.startswith("TXT="):
            txt = p[4:]
        elif not width and not p.startswith("MULTISOURCE"):
            width = p
    return name, value, access, width, vis, txt


def build_op(tok, ctx, tables, regs, widths, pat):
    """One operand in 64-bit mode at ctx's EOSZ, or None for XED-internal ones."""
    name, value, access, width, vis, txt = parse_operand(tok)
    eosz = ctx["EOSZ"]
    op = Op()
    op.access, op.implicit, op.txt, op.width = access, vis == "SUPP", txt, width
    op.name = name
    if re.fullmatch(r"SEG\d*", name) or value == "XED_REG_INVALID":
        return None             # the segment of an implicit address; a register slot left unused
    if re.fullmatch(r"(REG|BASE|INDEX)\d*", name):
        if value.endswith("()"):
            names = resolve(value[:-2], tables, ctx)
        else:
            names = [value[len("XED_REG_"):]] if value.startswith("XED_REG_") else []
        if value.startswith(("MASK1(", "MASKNOT0(")):
            # The EVEX writemask (avx512-reg-table-mask.txt): {k} in the asm name, not an operand
            # of its own; MASKNOT0 is a mask the form cannot go without (gathers, scatters).
            op.kind, op.bits, op.implicit = "k", 64, True
            op.txt = "MASKNOT0" if value.startswith("MASKNOT0") else "MASK1"
            return op
        if not names:
            if vis != "SUPP":
                raise DataError(f"register operand '{tok}' names no register in 64-bit mode")
            return None
        cls, bits = regs.get(names[0], ("other", 0))
        if len(names) == 1 and (op.implicit or vis == "IMPL" or not value.endswith("()")):
            r = names[0]
            op.reg = r.lower()
            op.kind = "cl" if r == "CL" and vis == "IMPL" and not op.implicit else "fixed"
            if cls == "x87" or r.startswith("ST") and r[2:].isdigit():
                op.kind = "st"
            if cls == "sr":
                op.kind = "seg"
        elif cls == "gpr":
            op.kind = GPR_KIND.get(bits, "other")
        else:
            op.kind = CLASS_KIND.get(cls, "other")
        op.written = cls
        op.bits = width_bits(width, widths, eosz, pat) if width else bits
        if op.kind in ("xmm", "ymm", "zmm", "k", "mm") and width in ("", "mskw"):
            op.bits = bits
        if not op.bits:
            op.bits = bits
        if name.startswith(("BASE", "INDEX", "SEG")):
            op.implicit = True
        return op
    if re.fullmatch(r"MEM\d", name) or name == "AGEN":
        op.kind = "m"
        op.bits = 0 if name == "AGEN" else width_bits(width, widths, eosz, pat)
        op.bcast = txt == "BCASTSTR"
        # A vector-indexed (VSIB) address of a gather or scatter, spelled as the SDM does by its
        # indices' size and register (SDM Vol. 2A 2.3.12: vm32x is dword indices in an xmm), which
        # the mnemonic names (VGATHERDPD: dword indices, qword elements); bits is the element's.
        for t in pat:
            m = re.search(r"VMODRM_(XMM|YMM|ZMM)\(\)", t)
            if m:
                op.bits = esize(pat) or width_bits(width, widths, 2, pat)
                idx = re.search(r"(?:GATHER|SCATTER)(?:PF[01])?([DQ])", ctx.get("ICLASS", ""))
                op.vsib = (("32" if idx.group(1) == "D" else "64") if idx else str(op.bits)) + m.group(1)[0].lower()
        return op
    if re.fullmatch(r"(IMM|UIMM)\d", name):
        bits = width_bits(width or "b", widths, eosz, pat)
        if vis == "IMPL" and "ONE()" in pat:
            op.kind, op.bits = "one", 8
            return op
        op.kind = {8: "imm8", 16: "imm16", 32: "imm32", 64: "imm64"}.get(bits, "other")
        op.bits = bits
        if name.startswith("IMM") and width in ("z",) and eosz == 3:
            op.kind, op.bits = "imm32", 32
        return op
    if name in ("RELBR", "ABSBR", "PTR"):
        op.kind = "rel" if name == "RELBR" else "other"
        op.bits = width_bits(width or "z", widths, eosz, pat)
        if name == "RELBR" and eosz != 1:
            op.bits = 8 if width == "b" else 32
        return op
    if name == "SCALE" or name.startswith(("DISP", "BCAST", "ROUNDC", "SAE")):
        return None
    return None


def op_spell(op):
    if op.kind == "m":
        if op.vsib:
            return f"vm{op.vsib}"
        if op.bcast:
            return f"m{op.bits}bcst"
        return "m" if op.bits == 0 else f"m{op.bits}"
    if op.kind == "one":
        return "1"
    if op.kind in ("fixed", "seg") and op.reg:
        return op.reg
    if op.kind == "st":
        return op.reg if op.reg else "st"
    if op.kind == "rel":
        return f"rel{op.bits}"
    if op.kind == "other":
        return op.reg or OTHER_SPELL.get(op.written, "other")
    return op.kind


def op_field(op):
    s = f"{op.kind}:{op.access}:{op.bits}"
    if op.implicit:
        s += ":imp"
    if op.bcast:
        s += ":bcast"
    if op.reg:
        s += ":reg=" + op.reg
    return s


# ----------------------------------------------------------------------------------------------
# Names.

def mnemonic_of(blk):
    """(asm mnemonic, IFA_ prefix attrs) from XED's iclass: ADD_LOCK is LOCK ADD."""
    ic = blk["ICLASS"]
    attrs = []
    prefix = ""
    if ic.endswith("_LOCK"):
        ic, prefix = ic[:-5], "LOCK "
        attrs.append("lock")
    for p in ("REPNE_", "REPE_", "REP_"):
        if ic.startswith(p):
            ic, prefix = ic[len(p):], p[:-1] + " "
            attrs.append("rep")
            break
    dis = blk.get("DISASM_INTEL") or blk.get("DISASM")
    if dis and not prefix and " " not in dis.strip():
        ic = dis.strip().upper()
    else:
        for suf in ICLASS_SUFFIXES:
            if ic.endswith(suf):
                ic = ic[:-len(suf)]
                break
    return prefix + ic, attrs


def derived_iform(blk, ops_raw):
    """XED's iform where the block names none: iclass and operand nonterminals and widths."""
    parts = [blk["ICLASS"]]
    for tok in ops_raw:
        name, value, access, width, vis, txt = parse_operand(tok)
        if vis == "SUPP" or value == "XED_REG_INVALID" or name.startswith(("SEG", "BASE", "INDEX")):
            continue
        if value.startswith("XED_REG_"):
            parts.append(value[len("XED_REG_"):])
        elif value.endswith("()"):
            nt = re.sub(r"_(R|B|N|SB|RM|R3|B3|N3)$", "", value[:-2])
            parts.append(nt + (width if width and not nt.startswith("GPR") else ""))
        elif name.startswith("MEM"):
            parts.append("MEM" + width)
        elif name == "AGEN":
            parts.append("AGEN")
        elif name.startswith(("IMM", "UIMM")):
            parts.append("ONE" if vis == "IMPL" else "IMM" + (width or "b"))
        elif name == "RELBR":
            parts.append("RELBR" + width)
        elif name in ("PTR", "ABSBR"):
            parts.append(name + width)
    return "_".join(parts)


def opcode_tag(pat):
    """The opcode bytes and ModRM.reg digit: tells two encodings of one operand list apart."""
    tag = ""
    for t in pat:
        if t.startswith("0x"):
            tag += t[2:].upper()
        m = re.fullmatch(r"REG\[0b([01]{3})\]", t)
        if m:
            tag += "r" + str(int(m.group(1), 2))
    return tag


# ----------------------------------------------------------------------------------------------
# The exclusion rule (docs/instr.md "What is excluded").

CONTROL_CATEGORIES = {"COND_BR": "conditional branch", "UNCOND_BR": "jump", "CALL": "call", "RET": "return",
                      "INTERRUPT": "interrupt", "SYSCALL": "system call", "SYSRET": "system return"}
IO_CATEGORIES = {"IO", "IOSTRINGOP"}
# By iclass: what each does that a measuring loop cannot survive or undo.
EXCLUDED_ICLASS = {
    "CPUID": "serialising: CPUID (and a VM exit under a hypervisor)",
    "SERIALIZE": "serialising: SERIALIZE",
    "GETSEC": "serialising: GETSEC (SMX) enters or leaves the measured launch environment",
    "UDB": "raises #UD by definition",
    "UD0": "raises #UD by definition", "UD1": "raises #UD by definition", "UD2": "raises #UD by definition",
    "LEAVE": "stack pointer: LEAVE loads RSP from RBP",
    "POPF": "interrupt flag: POPF loads RFLAGS.IF", "POPFD": "interrupt flag: POPF loads RFLAGS.IF",
    "POPFQ": "interrupt flag: POPF loads RFLAGS.IF",
    "WRFSBASE": "segments: writes the FS base", "WRGSBASE": "segments: writes the GS base",
    "WRPKRU": "paging: writes the protection-key rights (PKRU)",
    "UMWAIT": "waits: UMWAIT sleeps until a store or a deadline",
    "TPAUSE": "waits: TPAUSE sleeps until a deadline",
    "UMONITOR": "waits: arms UMWAIT's monitor",
    "XEND": "faults outside an RTM transaction (#GP)",
    "ENCLU": "SGX: enters an enclave the image does not build",
    "ENCLS": "SGX: enters an enclave the image does not build",
    "ENCLV": "SGX: enters an enclave the image does not build",
    "ENQCMD": "needs a PASID (IA32_PASID) the image does not set",
    "ENQCMDS": "needs a PASID (IA32_PASID) the image does not set",
    "MONITORX": "waits: arms MWAITX's monitor",
    "MWAITX": "waits: MWAITX sleeps until a store or a deadline",
}
# By extension: state or set-up the harness does not own.
EXCLUDED_EXTENSION = {
    "AMX_TILE": "needs AMX tile state (XCR0 bits 17-18), which the harness does not enable",
    "AMX_BF16": "needs AMX tile state (XCR0 bits 17-18), which the harness does not enable",
    "AMX_INT8": "needs AMX tile state (XCR0 bits 17-18), which the harness does not enable",
    "XSAVE": "XSAVE state: saves or restores state components the harness does not own",
    "XSAVEC": "XSAVE state: saves or restores state components the harness does not own",
    "XSAVEOPT": "XSAVE state: saves or restores state components the harness does not own",
    "XSAVES": "XSAVE state: saves or restores state components the harness does not own",
    "UINTR": "user interrupts: changes UIF or transfers control",
    "SGX": "SGX: enters an enclave the image does not build",
    "SGX_ENCLV": "SGX: enters an enclave the image does not build",
    "CET": "needs CET shadow stacks, which the harness does not enable",
    "VMFUNC": "paging: VMFUNC switches the hypervisor's page tables (EPTP)",
    # XED gives AMD's SVM instructions CPL 3; the APM (Vol. 3, VMRUN, STGI, ...) makes all but
    # VMMCALL privileged, and VMMCALL is a call into the hypervisor.
    "SVM": "privileged: SVM runs or leaves a guest (AMD APM Vol. 3: CPL 0, VMMCALL a VM exit)",
}
# By ISA set (an extension that holds several): LWP's instructions use LWP's XSAVE state.
EXCLUDED_ISA_SET = {
    "LWP": "needs LWP state (XCR0 bit 62), which the harness does not enable",
}


def exclusion(blk, ops, flags_w_all):
    """Why a form cannot be measured safely in a loop, or None."""
    ic, cat, ext = blk["ICLASS"], blk.get("CATEGORY", ""), blk.get("EXTENSION", "")
    if blk.get("CPL", "3").strip() == "0":
        return "privileged: CPL 0"
    if cat in CONTROL_CATEGORIES or any(o.kind == "rel" for o in ops) or ic in ("XBEGIN",):
        return "control transfer: " + CONTROL_CATEGORIES.get(cat, "branch")
    if cat in IO_CATEGORIES:
        return "I/O: port access"
    if ic in EXCLUDED_ICLASS:
        return EXCLUDED_ICLASS[ic]
    if blk.get("ISA_SET", ext) in EXCLUDED_ISA_SET:
        return EXCLUDED_ISA_SET[blk.get("ISA_SET", ext)]
    if ext.startswith("AMX") or any(o.written == "treg" for o in ops):
        return EXCLUDED_EXTENSION["AMX_TILE"]
    # XGETBV (extension XSAVE) only reads XCR0: the rule is for the saves and restores.
    if ext in EXCLUDED_EXTENSION and not (ext.startswith("XSAVE") and not ic.startswith(("XSAVE", "XRSTOR"))):
        return EXCLUDED_EXTENSION[ext]
    if "if" in flags_w_all:
        return "interrupt flag: writes RFLAGS.IF"
    if cat == "SEGOP" or any(o.kind == "seg" and "w" in o.access for o in ops):
        return "segments: loads a segment register"
    if any(o.reg in ("rsp", "esp", "sp") and "w" in o.access for o in ops) and cat not in ("PUSH", "POP"):
        return "stack pointer: moves RSP by other than a fixed amount"
    if any(o.written in ("cr", "dr", "xcr", "MSR") and "w" in o.access for o in ops):
        return "system state: writes a control, debug or model-specific register"
    return None


# ----------------------------------------------------------------------------------------------
# Expansion into forms.

def parse_flags(text):
    """FLAGS: `MUST [ of-mod ... ]`, `MAY [...]`, several groups: (read, written, undefined, all written names).

    Undefined are the written flags XED marks `-u` wherever it names them: the form may leave any value
    there, or none (a chain through such a flag measures nothing the SDM promises)."""
    read, written, defined, all_w = set(), set(), set(), set()
    for grp in re.findall(r"\[([^\]]*)\]", text or ""):
        for item in grp.split():
            name, _, act = item.partition("-")
            if act == "tst":
                if name in FLAGS:
                    read.add(name)
            else:
                all_w.add(name)
                if name in FLAGS:
                    written.add(name)
                    if act != "u":
                        defined.add(name)
    return read, written, written - defined, all_w


def flag_str(s):
    return ",".join(f for f in FLAG_ORDER if f in s) or "-"


def pattern_ok(pat):
    toks = set(pat)
    if toks & NOT_64:
        return False
    if any(t.startswith(APX_MARKS) or t in APX_MARKS for t in toks):
        return False
    if "MPXMODE=0" in toks:
        return False           # the NOP these opcodes are when MPX is off (mpx-isa.txt)
    return True


# x87 forms whose ST(0) XED shows but the SDM's instruction summaries do not write: loads, stores,
# compares and exchanges name only ST(i) (SDM Vol. 2, FLD, FST/FSTP, FCOM/FCOMP, FUCOM/FUCOMP, FXCH).
X87_ST0_UNWRITTEN = {"FLD", "FST", "FSTP", "FSTPNCE", "FCOM", "FCOMP", "FUCOM", "FUCOMP", "FXCH", "FCOMP5",
                     "FCOM2", "FCOMP3", "FXCH4", "FXCH7", "FSTP1", "FSTP8", "FSTP9"}


def hide_st0(iclass, ops):
    """An x87 form's fixed ST(0) is implicit where the SDM does not write it: beside a memory
    operand (`FADD m32`, `FSTP m64`), and in X87_ST0_UNWRITTEN's register forms."""
    explicit = [o for o in ops if not o.implicit]
    if not any(o.kind == "st" and o.reg == "st0" for o in explicit):
        return
    if any(o.kind == "m" for o in explicit) or iclass in X87_ST0_UNWRITTEN:
        for o in explicit:
            if o.kind == "st" and o.reg == "st0":
                o.implicit = True
    # Keep explicit operands first, implicit after, in their order.
    ops.sort(key=lambda o: o.implicit)


def expand(blk, pat_entry, tables, regs, widths):
    """The forms of one PATTERN/OPERANDS pair: [(asm, attrs, ops, eosz)]."""
    pat = pat_entry["PATTERN"].split()
    raw = pat_entry.get("OPERANDS", "").split()
    out = []
    for eosz in allowed_eosz(pat):
        ctx = {"EOSZ": eosz, "EASZ": 3, "MODE": 2, "SMODE": 2, "ICLASS": blk["ICLASS"]}
        ops = []
        for tok in raw:
            op = build_op(tok, ctx, tables, regs, widths, pat)
            if op is not None:
                ops.append(op)
        hide_st0(blk["ICLASS"], ops)
        out.append((eosz, ops))
    # One form per distinct name: sizes the explicit operands do not show are one form, the widest
    # (ENTER's 16-bit frame with 66H and its 64-bit default are both `ENTER imm16, imm8`: the default).
    by_name = {}
    for eosz, ops in out:
        by_name[tuple(op_spell(o) for o in ops if not o.implicit)] = (eosz, ops)
    return pat, sorted(by_name.values(), key=lambda v: v[0])


def evex_variants(blk, pat, ops):
    """EVEX masking / broadcast / rounding variants: [(suffix for op1, attrs, bcast, tail)]."""
    toks = set(pat)
    attrs = blk.get("ATTRIBUTES", "").split()
    mask = next((o for o in ops if o.kind == "k" and o.txt in ("MASK1", "MASKNOT0")), None)
    mem = next((o for o in ops if o.kind == "m" and o.bcast), None)
    tails = [("", [])]
    if "AVX512_ROUND()" in toks:
        tails = [(", {er}", ["er"])]
    elif "SAE()" in toks:
        tails = [(", {sae}", ["sae"])]
    masks = [("", [])]
    if mask is not None and mask.txt == "MASKNOT0":
        masks = [("{k}", ["mask"])]
    elif mask is not None:
        masks.append(("{k}", ["mask"]))
        dest_reg = ops and ops[0].kind in ("xmm", "ymm", "zmm")
        if "ZEROING=0" not in toks and dest_reg:
            masks.append(("{k}{z}", ["mask", "zeroing"]))
    bc = [False]
    if mem is not None and "BROADCAST_ENABLED" in attrs:
        bc.append(True)
    out = []
    for b in bc:
        for msuf, mattrs in masks:
            for tail, tattrs in tails:
                out.append((msuf, mattrs + tattrs + (["bcast"] if b else []), b, tail, mask))
    return out


def variants(mnem, blk, pat, ops):
    """[(asm name, operand fields, attrs)] of one sized operand list: its EVEX variants."""
    out = []
    for msuf, vattrs, bcast, tail, mask in evex_variants(blk, pat, ops):
        explicit = [o for o in ops if not o.implicit]
        implicit = [o for o in ops if o.implicit and o is not mask]
        spells, fields = [], []
        # Merge masking keeps the destination's elements the mask leaves (SDM Vol. 2A, 2.6.4): the
        # destination is read as well.  XED writes it `w` and says so only by MASKOP_EVEX.  A blend's
        # mask selects between its sources instead (XED's MASK_AS_CONTROL: VPBLENDMD).
        merge = (mask is not None and mask.txt == "MASK1" and "mask" in vattrs and "zeroing" not in vattrs
                 and "MASK_AS_CONTROL" not in blk.get("ATTRIBUTES", "").split())
        for i, o in enumerate(explicit):
            s, f = op_spell(o), op_field(o)
            if merge and i == 0 and o.kind in ("xmm", "ymm", "zmm") and o.access == "w":
                f = f.replace(":w:", ":rw:", 1)
            if o.kind == "m" and o.bcast:
                bits = esize(pat) or 32
                s = f"m{bits}bcst" if bcast else (f"m{o.bits}" if o.bits else "m")
                f = f"m:{o.access}:{bits}:bcast" if bcast else f"m:{o.access}:{o.bits}"
            spells.append(s + (msuf if i == 0 else ""))
            fields.append(f)
        if mask is not None and "mask" in vattrs:
            fields.append(f"k:{mask.access}:64:imp")     # a gather's mask is read and cleared
        fields.extend(op_field(o) for o in implicit)
        out.append((mnem + (" " + ", ".join(spells) if spells else "") + tail, fields, vattrs))
    return out


def generate(xed_dir):
    datafiles = os.path.join(xed_dir, "datafiles")
    files = isa_files(datafiles)
    by = {}
    for key, path in files:
        by.setdefault(key, []).append(path)
    regs = read_registers(by.get("registers", []))
    tables = read_reg_tables(sorted(set(by.get("dec-patterns", []) + by.get("enc-dec-patterns", []))))
    widths = read_widths(by.get("widths", []))
    cpuid = read_cpuid(by.get("cpuid", []))
    blocks, deletes = [], set()
    for path in by.get("dec-instructions", []):
        b, d = read_isa(path)
        blocks.extend(b)
        deletes.update(d)
    rows, names = [], {}
    for blk in blocks:
        for k in ("ICLASS", "EXTENSION", "CATEGORY"):
            if k not in blk:
                raise DataError(f"{blk['_file']}:{blk['_line']}: block without {k}")
        if blk.get("UNAME") in deletes or "UNDOCUMENTED" in blk.get("ATTRIBUTES", "").split():
            continue
        ext = blk["EXTENSION"]
        isa_set = blk.get("ISA_SET", ext)
        # ISA set names differ in case between files (SSE4a, SSE4A).
        bits = cpuid.get(isa_set.upper(), cpuid.get(ext.upper(), []))
        fr, fw, fu, fall = parse_flags(blk.get("FLAGS"))
        mnem, pattrs = mnemonic_of(blk)
        for pe in blk["_pats"]:
            pat = pe["PATTERN"].split()
            if not pattern_ok(pat):
                continue
            try:
                pat, sized = expand(blk, pe, tables, regs, widths)
            except DataError as e:
                raise DataError(f"{blk['_file']}:{pe['_line']}: {e}")
            if not sized:
                raise DataError(f"{blk['_file']}:{pe['_line']}: no operand size fits this pattern in 64-bit mode")
            iform_base = pe.get("IFORM") or derived_iform(blk, pe.get("OPERANDS", "").split())
            for eosz, ops in sized:
                why = exclusion(blk, ops, fall)
                for asm, fields, vattrs in variants(mnem, blk, pat, ops):
                    attrs = pattrs + vattrs
                    rows.append({
                        "asm": asm, "mnemonic": mnem.lower(), "iform": iform_base, "extension": ext,
                        "isa_set": isa_set, "category": blk["CATEGORY"],
                        "operands": " ".join(fields) or "-",
                        "flags_read": flag_str(fr), "flags_written": flag_str(fw),
                        "flags_undefined": flag_str(fu),
                        "attrs": ",".join(a for a in ATTR_ORDER if a in attrs) or "-",
                        "cpuid": " ".join(bits) or "-", "excluded": why or "-",
                        "_tag": opcode_tag(pat), "_blk": blk})
    # Iforms XED would name apart: a derived name shared by different encodings gets the opcode.
    owners = {}
    for r in rows:
        if not r["_blk"]["_pats"] or True:
            owners.setdefault((r["iform"], r["asm"]), set()).add(r["_tag"])
    out, seen = [], set()
    for r in rows:
        if len(owners[(r["iform"], r["asm"])]) > 1 and r["_tag"]:
            r["iform"] = r["iform"] + "_" + r["_tag"]
        key = (r["asm"], r["iform"])
        if key in seen:
            continue
        seen.add(key)
        out.append(r)
    return out


def release_of(xed_dir):
    readme = os.path.join(xed_dir, "..", "README.md")
    try:
        with open(readme, encoding="utf-8") as f:
            m = re.search(r"release commit ([0-9a-f]{40})(?: \(([^)]*)\))?", f.read())
            if m:
                return m.group(1) + (f" ({m.group(2)})" if m.group(2) else "")
    except OSError:
        pass
    return "unknown"


HEADER = """# instr/forms.tsv.gz - the instruction catalogue (issue 31; docs/instr.md; instr/catalogue.h).
# Generated by tools/gen_isa.py from Intel XED's datafiles, release commit {release}
# (../shared/vendor-isa/xed).  Do not edit: re-run `python3 tools/gen_isa.py`.
#
# Derived from Intel XED (https://github.com/intelxed/xed), Copyright (c) Intel Corporation,
# licensed under the Apache License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0).
# The data has been transformed (one line per form, 64-bit mode only); it is distributed on an
# "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND.
#
# Columns (tab-separated): {columns}
# operands: explicit ones in asm order, then implicit ones; each KIND:ACCESS:BITS[:imp][:bcast][:reg=NAME]
# flags: cf,pf,af,zf,sf,df,of or - (flags_undefined: the written ones XED leaves undefined);
# attrs: mask,zeroing,bcast,er,sae,lock,rep or -;
# cpuid: LEAF.SUBLEAF.REG.BIT (hex leaf) or LEAF.SUBLEAF.REG.LO:HI>=N (a field, at least N) each needed, or -;
# excluded: the reason, or -.
"""


def write_tsv(rows, out, release):
    lines = [HEADER.format(release=release, columns=" ".join(COLUMNS))]
    for r in rows:
        lines.append("\t".join(r[c] for c in COLUMNS) + "\n")
    text = "".join(lines)
    data = text.encode("utf-8")
    if out.endswith(".gz"):
        # No name and no time in the gzip header: the same rows give the same bytes.
        data = gzip.compress(data, compresslevel=9, mtime=0)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out)


# ----------------------------------------------------------------------------------------------
# forms.tsv -> C.

ASM_RE = re.compile(r"^(LOCK |REP |REPE |REPNE )?[A-Z][A-Z0-9_]*( .+)?$")
OP_RE = re.compile(r"^(\w+):(r|w|rw|cr|cw|rcw|crw):(\d+)((?::imp|:bcast|:reg=[a-z0-9_]+)*)$")
# LEAF.SUBLEAF.REG.BIT, or LEAF.SUBLEAF.REG.LO:HI>=N (a field that must read at least N).
CPUID_RE = re.compile(r"^([0-9a-fA-F]{1,8})\.([0-9a-fA-F]{1,8})\.(eax|ebx|ecx|edx)\.(\d+)(?::(\d+)>=(\d+))?$")


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def check_row(cols):
    """Raise ValueError naming what is wrong with one row; return its parsed parts."""
    if len(cols) != len(COLUMNS):
        raise ValueError(f"{len(cols)} columns, want {len(COLUMNS)} ({' '.join(COLUMNS)})")
    r = dict(zip(COLUMNS, cols))
    for c in COLUMNS:
        if not r[c]:
            raise ValueError(f"column {c} is empty (write - for none)")
    if not ASM_RE.match(r["asm"]):
        raise ValueError(f"asm '{r['asm']}' is not MNEMONIC [operands]")
    ops = []
    if r["operands"] != "-":
        for o in r["operands"].split(" "):
            m = OP_RE.match(o)
            if not m:
                raise ValueError(f"operand '{o}' is not KIND:ACCESS:BITS[:imp][:bcast][:reg=NAME]")
            if m.group(1) not in KINDS:
                raise ValueError(f"operand '{o}': unknown kind '{m.group(1)}'")
            bits = int(m.group(3))
            if bits > 65535:
                raise ValueError(f"operand '{o}': {bits} bits is too wide")
            extra = m.group(4)
            reg = re.search(r":reg=([a-z0-9_]+)", extra)
            ops.append((m.group(1), m.group(2), bits, ":imp" in extra, ":bcast" in extra,
                        reg.group(1) if reg else None))
    if len(ops) > 255:
        raise ValueError("more than 255 operands")
    seen_imp = False
    n_explicit = 0
    for o in ops:
        if o[3]:
            seen_imp = True
        elif seen_imp:
            raise ValueError("an explicit operand after an implicit one")
        else:
            n_explicit += 1
    fl = {}
    for c in ("flags_read", "flags_written", "flags_undefined"):
        fl[c] = [] if r[c] == "-" else r[c].split(",")
        for f in fl[c]:
            if f not in FLAGS:
                raise ValueError(f"{c}: unknown flag '{f}'")
    for f in fl["flags_undefined"]:
        if f not in fl["flags_written"]:
            raise ValueError(f"flags_undefined: '{f}' is not in flags_written (undefined flags are written ones)")
    attrs = [] if r["attrs"] == "-" else r["attrs"].split(",")
    for a in attrs:
        if a not in ATTRS:
            raise ValueError(f"attrs: unknown attribute '{a}'")
    bits = []
    if r["cpuid"] != "-":
        for b in r["cpuid"].split(" "):
            m = CPUID_RE.match(b)
            lo = int(m.group(4)) if m else 0
            hi = int(m.group(5)) if m and m.group(5) else lo
            least = int(m.group(6)) if m and m.group(6) else 1
            if not m or hi > 31 or hi < lo or not 1 <= least < min(256, 1 << (hi - lo + 1)):
                raise ValueError(f"cpuid bit '{b}' is not LEAF.SUBLEAF.REG.BIT or LEAF.SUBLEAF.REG.LO:HI>=N "
                                 "(hex leaf, bits 0-31, 1 <= N <= 255 and fitting the field)")
            bits.append((int(m.group(1), 16), int(m.group(2), 16), CPUID_REGS.index(m.group(3)), lo, hi - lo + 1,
                         least))
    return r, ops, n_explicit, fl, attrs, bits


def compile_c(tsv, out):
    rows = []
    with open_tsv(tsv) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            try:
                rows.append(check_row(line.split("\t")))
            except ValueError as e:
                raise DataError(f"{tsv}:{n}: {e}")
    if not rows:
        raise DataError(f"{tsv}: no forms")
    # Operand lists and CPUID lists are shared: many forms have the same ones.
    op_ids, cp_ids = {}, {}
    body = ["/* Generated by tools/gen_isa.py from instr/forms.tsv.gz: do not edit.  Data derived from\n"
            " * Intel XED's datafiles (Apache License 2.0; forms.tsv's header names the release). */\n",
            '#include "instr/catalogue.h"\n\n']
    for r, ops, *_ in rows:
        key = tuple(ops)
        if ops and key not in op_ids:
            i = len(op_ids)
            op_ids[key] = i
            items = ", ".join("{ %s, %s, %d, %d, %d, %s }" % (
                KINDS[k], ACCESS[a], imp, bc, bits, c_str(reg) if reg else "NULL")
                for k, a, bits, imp, bc, reg in ops)
            body.append(f"static const struct instr_operand op{i}[] = {{ {items} }};\n")
    for *_, bits in rows:
        key = tuple(bits)
        if bits and key not in cp_ids:
            i = len(cp_ids)
            cp_ids[key] = i
            items = ", ".join("{ 0x%x, 0x%x, %d, %d, %d, %d }" % b for b in bits)
            body.append(f"static const struct instr_cpuid_bit cp{i}[] = {{ {items} }};\n")
    body.append("\nconst struct instr_form instr_forms[] = {\n")
    for r, ops, n_explicit, fl, attrs, bits in rows:
        ops_ref = f"op{op_ids[tuple(ops)]}" if ops else "NULL"
        cp_ref = f"cp{cp_ids[tuple(bits)]}" if bits else "NULL"
        fr = "|".join(FLAGS[f] for f in fl["flags_read"]) or "0"
        fw = "|".join(FLAGS[f] for f in fl["flags_written"]) or "0"
        fu = "|".join(FLAGS[f] for f in fl["flags_undefined"]) or "0"
        at = "|".join(ATTRS[a] for a in attrs) or "0"
        ex = "NULL" if r["excluded"] == "-" else c_str(r["excluded"])
        body.append("\t{ %s, %s, %s, %s, %s, %s, %s, %d, %d, %s, %s, %s, %s, %s, %d, %s },\n" % (
            c_str(r["asm"]), c_str(r["mnemonic"]), c_str(r["iform"]), c_str(r["extension"]),
            c_str(r["isa_set"]), c_str(r["category"]), ops_ref, len(ops), n_explicit, fr, fw, fu, at,
            cp_ref, len(bits), ex))
    body.append("};\n\nconst size_t instr_forms_count = sizeof(instr_forms) / sizeof(instr_forms[0]);\n")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("".join(body))
    os.replace(tmp, out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xed", default=DEFAULT_XED, help="XED's folder (holding datafiles/)")
    ap.add_argument("--out", default=DEFAULT_TSV, help="forms.tsv to write")
    ap.add_argument("--c", metavar="OUT", help="compile --tsv into C at OUT instead")
    ap.add_argument("--tsv", default=DEFAULT_TSV, help="forms.tsv to compile (with --c)")
    a = ap.parse_args(argv)
    try:
        if a.c:
            compile_c(a.tsv, a.c)
            return 0
        if not os.path.isdir(os.path.join(a.xed, "datafiles")):
            raise DataError(f"{a.xed}: no datafiles/ folder (XED's data, ../shared/vendor-isa/xed)")
        rows = generate(a.xed)
        write_tsv(rows, a.out, release_of(a.xed))
        return 0
    except (DataError, OSError) as e:
        print(f"gen_isa: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
