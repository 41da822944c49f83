"""Host: user kernels (docs/kernels.md) - building, showing, refusing, measuring.

Every example under docs/kernels/ is built with `pmuboot-host kernel build`
(NASM) and read back by `kernel show` (the strict reader and ndisasm); the
bytes are checked against the instructions the example states.  Bad text
files and damaged kernel files are refused with the reason and the place.
Each example runs through the harness with complete records; what its
figures are (1 cycle an add, the store-forward and 4K-alias penalties, the
FP-add latency, the user copy against the built-in) are timings, which on a
shared host are `make bench`'s to judge, not this file's (issue 30).
"""
import glob
import sys
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
    "vaddps_chain": ["vaddps ymm0,ymm0,ymm1"],
}
# Examples that need a vector extension (platform/vec.h names) the host may lack.
NEEDS = {"vaddps_chain": "avx"}


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


# ---- measuring them (pmuboot-host run kernels=DIR) ----

PREFIX = "@pmuboot "


def run_kernels(ctx, kdir, *opts):
    p = ctx.run_host("run", f"kernels={kdir}", *opts)
    recs = [__import__("json").loads(l[len(PREFIX):]) for l in p.stdout.splitlines() if l.startswith(PREFIX)]
    assert recs and recs[-1]["type"] == "end", p.stdout[-2000:]
    return p, recs


def user_benches(recs):
    return {b["variant"]: b for b in recs if b["type"] == "bench" and b["kernel"] == "user"}


# A loaded host can leave a variant with no kept sample (every one disturbed: the record says so, honestly);
# what these tests judge needs figures, so such a run is taken again, at most this many times in all.
ATTEMPTS = 3


def run_kernels_measured(ctx, kdir, needed, *opts):
    """run_kernels, again while one of the user variants `needed` (names; None: all) has no cycles figure."""
    for attempt in range(ATTEMPTS):
        p, recs = run_kernels(ctx, kdir, *opts)
        b = user_benches(recs)
        short = [n for n, r in b.items() if (needed is None or n in needed) and r["cycles"] is None]
        if not short:
            break
        print(f"attempt {attempt + 1}: no sample kept for {', '.join(short)} (a loaded host); taken again")
    return p, recs


def test_every_example_is_measured(ctx):
    """Each docs/kernels.md example runs through the harness and shows what the doc says it shows."""
    from testlib.bench import check_bench
    with tempfile.TemporaryDirectory() as d:
        build_all(ctx, d)
        p, recs = run_kernels_measured(ctx, d, None, "bench=user", "iterations=2000", "reps=11")
    assert p.returncode == 0, p.stdout[-2000:]
    setup = next(r for r in recs if r["type"] == "bench_setup")
    b = user_benches(recs)
    vector = next(r for r in recs if r["type"] == "cpu").get("vector") or []
    assert set(b) == {n for n in BODIES if NEEDS.get(n, "avx") in vector or n not in NEEDS}, sorted(b)
    for name, r in b.items():
        check_bench(r, setup)
        assert r["body"] == " / ".join(BODIES[name]), r
    # The controls the examples name, and each penalty the difference of the two medians.
    assert b["sf_size_mismatch"]["control"] == "sf_forward", b["sf_size_mismatch"]
    assert b["alias_4k"]["control"] == "alias_line", b["alias_4k"]
    for name, ctl in (("sf_size_mismatch", "sf_forward"), ("alias_4k", "alias_line")):
        pen, mine, theirs = b[name]["penalty"], b[name]["cycles"], b[ctl]["cycles"]
        if mine and theirs:
            assert abs(pen["median"] - (mine["median"] - theirs["median"])) < 0.002, (name, pen)
    # No figure below the chain the harness judged it by (the add chain: one cycle an add).
    add = b["add_chain"]
    if add["cycles"] and add["chain_min"]:
        assert add["cycles"]["min"] >= add["chain_min"] * (1 - add["chain_slack"]) - 0.001, add
    print("user kernels on this host: " + ", ".join(
        f"{n} {r['cycles']['median']:.3f}" if r["cycles"] else f"{n} no figure" for n, r in sorted(b.items())))


def test_vaddps_chain_runs_where_avx_is_usable(ctx):
    """A user kernel chaining vaddps ymm0, ymm0, ymm1 runs on a host with AVX and gives a figure (the FP-add
    latency: 2 cycles on Golden Cove and Zen 5's fast adders, 3-4 on older cores; `make bench` judges it)."""
    from testlib import Skip
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "vaddps_chain.pmuk")
        ctx.run_host("kernel", "build", os.path.join(EXAMPLES, "vaddps_chain.s"), "-o", path, check=True)
        p, recs = run_kernels(ctx, d, "bench=user.vaddps_chain", "iterations=2000", "reps=11")
    assert p.returncode == 0, p.stdout[-2000:]
    cpu = next(r for r in recs if r["type"] == "cpu")
    if "avx" not in (cpu.get("vector") or []):
        raise Skip(f"AVX is not usable on this host (vector {cpu.get('vector')}, {cpu.get('vector_who')})")
    assert not [r for r in recs if r["type"] == "fault"], p.stdout[-2000:]
    b = user_benches(recs)["vaddps_chain"]
    assert b["body"] == " / ".join(BODIES["vaddps_chain"]), b
    if b["cycles"] is None:
        assert b["cycles_invalid"] and b["problem"], b     # a loaded host kept no sample: said, not a figure
        return
    assert 0 < b["cycles"]["min"] <= b["cycles"]["median"] <= b["cycles"]["max"], b["cycles"]
    lat = b["cycles"]["median"]
    print(f"vaddps ymm latency on this host: {lat:.3f} cycles ({b['cycles_source']}, {b['iterations']} iterations, "
          f"IQR {b['cycles']['q1']:.3f}..{b['cycles']['q3']:.3f})")


def test_user_store_forward_runs_beside_the_builtin(ctx):
    """The user copy of store_forward.size_mismatch runs the built-in's body in the same run (how close their
    figures come is a timing against a timing: `make bench`'s)."""
    with tempfile.TemporaryDirectory() as d:
        build_all(ctx, d)
        p, recs = run_kernels(ctx, d, "bench=store_forward.size_mismatch,user.sf_size_mismatch",
                              "iterations=2000", "reps=15")
    builtin = next(r for r in recs if r["type"] == "bench" and r["kernel"] == "store_forward"
                   and r["variant"] == "size_mismatch")
    user = user_benches(recs)["sf_size_mismatch"]
    # The same instructions, one copy of the body each (the built-in names its registers as bench/kernels.c does).
    assert user["body"] == " / ".join(BODIES["sf_size_mismatch"]), user
    assert builtin["body"] == "mov [rsi], eax / mov rax, [rsi]", builtin
    assert user["iterations_min"] == builtin["iterations_min"] == 2000 and user["reps"] == builtin["reps"] == 15
    for r in (builtin, user):
        assert r["cycles"] is not None or r["problem"], r
    if builtin["cycles"] and user["cycles"]:
        print(f"size-mismatch on this host: built-in {builtin['cycles']['median']:.3f}, "
              f"user {user['cycles']['median']:.3f} cycles")


BAD_KERNELS = {
    "bad_ud2": ("body:\n\tud2\n", "fault", 6),
    "segv": ("init:\n\txor eax, eax\nbody:\n\tmov rax, [rax]\n", "fault", 14),
    "spin": ("body:\n\tjmp $\n", "timeout", None),
}


def test_faulting_and_endless_kernels_are_stopped_and_the_run_goes_on(ctx):
    with tempfile.TemporaryDirectory() as d:
        for name, (text, _, _) in BAD_KERNELS.items():
            src = os.path.join(d, name + ".s")
            with open(src, "w") as f:
                f.write(f"; name: {name}\n" + text)
            ctx.run_host("kernel", "build", src, check=True)
        build_all(ctx, d)
        with open(os.path.join(d, "zz_damaged.pmuk"), "wb") as f:
            f.write(b"PMUK\x01\x00")
        p, recs = run_kernels(ctx, d, "bench=user.bad_ud2,user.segv,user.spin,user.add_chain",
                              "kernel_timeout_ms=200", "iterations=200", "reps=3")
    by = {}
    for r in recs:
        if r["type"] in ("fault", "timeout"):
            by[r["kernel"]] = r
    for name, (_, kind, vector) in BAD_KERNELS.items():
        r = by[f"user.{name}"]
        assert r["type"] == kind, r
        assert r["in"] == "body" and r["copy"] == 0, r
        if kind == "fault":
            assert r["vector"] == vector, r
        else:
            assert r["watchdog"] == "sigalrm" and r["bound_ms"] == 200, r
    # The good kernel after them was measured, the damaged file refused by name, the stream ended.
    assert "add_chain" in user_benches(recs)
    errors = [r for r in recs if r["type"] == "error"]
    assert len(errors) == 1 and errors[0]["what"].endswith("zz_damaged.pmuk"), errors
    assert recs[-1]["status"] == "error" and recs[-1]["errors"] == 1, recs[-1]


def test_kernel_that_zeroes_rsp_is_a_fault_and_the_run_ends(ctx):
    """`xor rsp, rsp` (48 31 e4): the next push or the frame's own use of the stack faults with no
    usable stack, so the host's handler must not need the kernel's stack (it runs on its own)."""
    import json
    p = ctx.run_host("run", "bench=user.rsp,user.addhex", "kernel.rsp=4831e4", "kernel.addhex=4801c8",
                     "kernel_timeout_ms=500", "iterations=200", "reps=3", "save=off")
    assert p.returncode >= 0, f"pmuboot-host died of signal {-p.returncode}; stdout tail:\n{p.stdout[-1500:]}"
    recs = [json.loads(l[len(PREFIX):]) for l in p.stdout.splitlines() if l.startswith(PREFIX)]
    faults = [r for r in recs if r["type"] == "fault" and r.get("kernel") == "user.rsp"]
    assert len(faults) == 1, [r["type"] for r in recs]
    assert faults[0]["vector"] == 14 and faults[0]["signal"] == "SIGSEGV", faults[0]
    # The kernel after it was still measured, and the run finished with its end record.
    assert "addhex" in user_benches(recs), [r["type"] for r in recs]
    assert recs[-1]["type"] == "end", recs[-1]


def test_missing_control_gives_the_penalty_a_reason(ctx):
    """A kernel whose control is not there (unknown, failed, not chosen) has penalty null and says why,
    in the record (penalty_why) and in its text line; one with its control measured has no reason."""
    kernels = {
        "nothere_ctl": "; control: nothere\nbody:\n\tadd rax, rcx\n",
        "faulty": "body:\n\tud2\n",
        "on_faulty": "; control: faulty\nbody:\n\tadd rax, rcx\n",
        # A chosen kernel's control is measured too, but not the control's own control.
        # (named so that the loaded set, in name order, lists the base first)
        "base_c": "body:\n\tadd rax, rcx\n",
        "mid_b": "; control: base_c\nbody:\n\tadd rax, rcx\n",
        "top_a": "; control: mid_b\nbody:\n\tadd rax, rcx\n",
        "on_builtin": "; control: store_forward.nope\nbody:\n\tadd rax, rcx\n",
        "good_ctl": "body:\n\tadd rax, rcx\n",
        "on_good": "; control: good_ctl\nbody:\n\tadd rax, rcx\n",
    }
    with tempfile.TemporaryDirectory() as d:
        for name, text in kernels.items():
            src = os.path.join(d, name + ".s")
            with open(src, "w") as f:
                f.write(f"; name: {name}\n" + text)
            ctx.run_host("kernel", "build", src, check=True)
        chosen = ",".join(f"user.{n}" for n in kernels if n not in ("mid_b", "base_c"))
        p, recs = run_kernels_measured(ctx, d, ("top_a", "mid_b", "on_good", "good_ctl"), f"bench={chosen}",
                                       "iterations=200", "reps=3", "warmup=0", "save=off")
    b = user_benches(recs)
    why = {n: b[n].get("penalty_why", "(no penalty_why field)") for n in b}
    assert b["nothere_ctl"]["penalty"] is None and "no kernel 'nothere'" in why["nothere_ctl"], why
    assert b["on_faulty"]["penalty"] is None and "user.faulty was not measured" in why["on_faulty"], why
    assert b["mid_b"]["penalty"] is None and "user.base_c was not chosen" in why["mid_b"], why
    assert "base_c" not in b and b["top_a"]["penalty"] is not None, why
    assert b["on_builtin"]["penalty"] is None and "store_forward.nope" in why["on_builtin"], why
    assert b["on_good"]["penalty"] is not None and why["on_good"] is None, (b["on_good"]["penalty"], why)
    assert why["good_ctl"] == "no control", why
    # The text line of each says it too (not for a variant without a control: it has none by design).
    lines = [l for l in p.stdout.splitlines() if l.startswith("  user ")]
    for n in ("nothere_ctl", "on_faulty", "mid_b", "on_builtin"):
        line = next(l for l in lines if l.split()[1] == n)
        assert "no penalty: " + why[n] in line, (line, why[n])
    assert not any("no penalty" in l for l in lines if l.split()[1] in ("good_ctl", "on_good")), lines
    # pmucap table shows the reason as a note of the variant's penalty.
    import subprocess
    import sys
    with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
        f.write(p.stdout)
        f.flush()
        t = subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "pmucap"), "table", f.name],
                           capture_output=True, text=True, timeout=60)
    assert t.returncode == 0, t.stderr
    row = next(l for l in t.stdout.splitlines() if l.startswith("user.nothere_ctl "))
    k = re.search(r" -\[(\d+)\] ", row)
    assert k and f"[{k.group(1)}] {why['nothere_ctl']}" in t.stdout, (row, t.stdout[-800:])


def test_hex_kernel_from_the_options(ctx):
    p = ctx.run_host("run", "bench=user.addhex", "kernel.addhex=4801c8", "iterations=2000")
    recs = [__import__("json").loads(l[len(PREFIX):]) for l in p.stdout.splitlines() if l.startswith(PREFIX)]
    b = user_benches(recs)["addhex"]
    assert b["body_hex"] == "4801c8" and b["body"] == "add rax,rcx", b
    # No init: rax and rcx start at 0, and the chain of dependent adds runs (1 cycle an add: `make bench`'s).
    assert b["cycles"] is not None or (b["cycles_invalid"] and b["problem"]), b
    p = ctx.run_host("run", "bench=user.nothere", "iterations=100")
    assert "no user kernel 'user.nothere' (loaded: none" in p.stdout, p.stdout[-1500:]


def test_media_carry_the_kernel_files(ctx):
    """mkusb/mkiso --kernels (make usb/iso KERNELS=dir) put the files in \\pmuboot\\kernels\\ of the ESP."""
    import shutil as sh
    for tool in ("mdir", "mcopy", "sgdisk", "mkfs.fat", "xorriso"):
        if not sh.which(tool) and not os.path.exists("/usr/sbin/" + tool) and not os.path.exists("/sbin/" + tool):
            from testlib import Skip
            raise Skip(f"{tool} is not installed (tools/deps.sh --for usb,iso)")
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    with tempfile.TemporaryDirectory() as d:
        kdir = os.path.join(d, "k")
        os.makedirs(kdir)
        names = sorted(build_all(ctx, kdir))
        img = os.path.join(d, "stick.img")
        p = subprocess.run(["tools/mkusb.sh", "--efi", ctx.efi, "--kernels", kdir, "--out", img],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        ls = subprocess.run(["mdir", "-b", "-i", img + "@@1048576", "::/pmuboot/kernels"], capture_output=True,
                            text=True, env=env)
        assert ls.returncode == 0, ls.stderr
        got = sorted(os.path.basename(l).rsplit(".", 1)[0] for l in ls.stdout.split())
        assert got == names, (got, names)
        # The iso's El Torito FAT image carries them too.
        iso = os.path.join(d, "p.iso")
        p = subprocess.run(["tools/mkiso.sh", "--efi", ctx.efi, "--kernels", kdir, "--out", iso],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        x = subprocess.run(["xorriso", "-osirrox", "on", "-indev", iso, "-extract_boot_images", d + "/"],
                           capture_output=True, text=True)
        imgs = [f for f in os.listdir(d) if f.startswith("eltorito_img")]
        assert x.returncode == 0 and imgs, (x.stderr[-1500:], os.listdir(d))
        fat = os.path.join(d, sorted(imgs)[-1])
        ls = subprocess.run(["mdir", "-b", "-i", fat, "::/pmuboot/kernels"], capture_output=True, text=True, env=env)
        assert ls.returncode == 0 and len(ls.stdout.split()) == len(names), (ls.stdout, ls.stderr)
        # A directory without kernel files is refused by name.
        empty = os.path.join(d, "empty")
        os.makedirs(empty)
        p = subprocess.run(["tools/mkusb.sh", "--efi", ctx.efi, "--kernels", empty, "--out", img],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 1 and "holds no kernel files" in p.stderr, p.stderr
