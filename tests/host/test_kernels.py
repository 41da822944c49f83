"""Host: user kernels (docs/kernels.md) - building, showing, refusing.

Every example under docs/kernels/ is built with `pmuboot-host kernel build`
(NASM) and read back by `kernel show` (the strict reader and ndisasm); the
bytes are checked against the instructions the example states.  Bad text
files and damaged kernel files are refused with the reason and the place.
"""
import glob
import os
import re
import subprocess
import tempfile

EXAMPLES = "docs/kernels"

# What each example's body must disassemble to (ndisasm syntax), one copy.
BODIES = {
    "add_chain": ["add rax,rcx"],
    "sf_forward": ["mov [rsi],rax", "mov rax,[rsi]"],
    "sf_size_mismatch": ["mov [rsi],eax", "mov rax,[rsi]"],
    "alias_line": ["mov [rdx+rax],rcx", "mov rax,[rsi+rax]"],
    "alias_4k": ["mov [rdx+rax],rcx", "mov rax,[rsi+rax]"],
    "div_lat": ["xor edx,edx", "div rcx"],
}


def build_all(ctx, outdir):
    """Build every example into outdir; returns {name: path}."""
    out = {}
    for src in sorted(glob.glob(os.path.join(EXAMPLES, "*.s"))):
        name = os.path.splitext(os.path.basename(src))[0]
        dst = os.path.join(outdir, name + ".pmuk")
        p = ctx.run_host("kernel", "build", src, "-o", dst)
        assert p.returncode == 0, (src, p.stderr)
        assert f"kernel {name}," in p.stdout, p.stdout
        out[name] = dst
    return out


def show(ctx, path):
    p = ctx.run_host("kernel", "show", path)
    return p


def body_lines(text):
    body = text.split("body, one copy")[1]
    return [re.split(r"\s{2,}", l.strip(), maxsplit=2)[2] for l in body.splitlines()[1:] if l.strip()]


def test_every_example_builds_and_shows(ctx):
    names = {os.path.splitext(os.path.basename(s))[0] for s in glob.glob(os.path.join(EXAMPLES, "*.s"))}
    assert names == set(BODIES), sorted(names ^ set(BODIES))
    with tempfile.TemporaryDirectory() as d:
        for name, path in build_all(ctx, d).items():
            p = show(ctx, path)
            assert p.returncode == 0, p.stderr
            assert f"name: {name}\n" in p.stdout, p.stdout
            assert body_lines(p.stdout) == BODIES[name], (name, p.stdout)
            # The docs say which example is compared with which.
            want = {"sf_size_mismatch": "sf_forward", "alias_4k": "alias_line"}.get(name, "(none)")
            assert f"control: {want}\n" in p.stdout, p.stdout


def test_docs_list_every_example(ctx):
    doc = open("docs/kernels.md").read()
    for name in BODIES:
        assert f"docs/kernels/{name}.s" in doc, name


def test_default_output_name_and_unroll(ctx):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "u.s")
        with open(src, "w") as f:
            f.write("; name: u16\n; unroll: 16\nbody:\n\timul rax, rax\n")
        p = ctx.run_host("kernel", "build", src)
        assert p.returncode == 0, p.stderr
        assert os.path.exists(os.path.join(d, "u.pmuk"))
        s = show(ctx, os.path.join(d, "u.pmuk"))
        assert "unroll: 16\n" in s.stdout and "imul rax,rax" in s.stdout, s.stdout


BAD_TEXT = [
    ("no_name", "body:\n nop\n", r"no '; name: NAME' line"),
    ("no_body", "; name: x\ninit:\n nop\n", r"no 'body:' section"),
    ("bad_name", "; name: X1\nbody:\n nop\n", r":1: name 'X1' is not"),
    ("code_before", "; name: x\nnop\nbody:\n nop\n", r":2: 'nop' before 'init:' or 'body:'"),
    ("two_bodies", "; name: x\nbody:\n nop\nbody:\n nop\n", r":4: a second 'body:' section"),
    ("bad_unroll", "; name: x\n; unroll: 0\nbody:\n nop\n", r":2: unroll '0' is not a number"),
    ("bad_insn", "; name: x\nbody:\n nop\n frob rax\n", r":4: error"),
    ("empty_body", "; name: x\nbody:\n; nothing\n", r"body assembles to no bytes"),
    ("too_long", "; name: x\nbody:\n times 1025 nop\n", r"the body is 1025 bytes; at most 1024"),
    ("unrolled_too_long", "; name: x\n; unroll: 128\nbody:\n times 1000 nop\n", r"128 copies of a 1000-byte body"),
]


def test_bad_text_files_are_refused_by_line(ctx):
    with tempfile.TemporaryDirectory() as d:
        for name, text, want in BAD_TEXT:
            src = os.path.join(d, name + ".s")
            with open(src, "w") as f:
                f.write(text)
            p = ctx.run_host("kernel", "build", src)
            assert p.returncode == 1, (name, p.returncode, p.stderr)
            assert re.search(want, p.stderr), (name, p.stderr)
            assert not os.path.exists(os.path.join(d, name + ".pmuk")), name


def test_damaged_kernel_files_are_refused(ctx):
    with tempfile.TemporaryDirectory() as d:
        path = build_all(ctx, d)["div_lat"]
        good = open(path, "rb").read()
        cases = [
            (good[:-1], "truncated"),
            (good + b"\0", "trailing bytes"),
            (b"MZ" + good[2:], "not a pmuboot kernel file"),
            (good[:4] + b"\x02" + good[5:], "format version 2; this pmuboot reads version 1"),
            (good[:20] + bytes([good[20] ^ 1]) + good[21:], "CRC-32"),
            (b"PMUK" + b"\1" * 5000, "too large"),
        ]
        for data, want in cases:
            bad = os.path.join(d, "bad.pmuk")
            with open(bad, "wb") as f:
                f.write(data)
            p = show(ctx, bad)
            assert p.returncode == 1 and want in p.stderr, (want, p.stderr)
            assert p.stderr.startswith(f"pmuboot-host kernel: {bad}: "), p.stderr
