"""The build itself: size, reproducibility, the option reference, the host program."""
import os
import re
import subprocess
import tempfile

MAX_EFI = 512 * 1024      # issue 26: every event of every core in 512 KiB (docs/architecture.md "Sizes")


def test_image_within_512k(ctx):
    """The image is within the Makefile's IMAGE_MAX, which is at most 512 KiB."""
    with open(os.path.join(ctx.root, "Makefile")) as f:
        limit = int(re.search(r"^IMAGE_MAX := (\d+)$", f.read(), re.M).group(1))
    assert limit <= MAX_EFI, f"the Makefile allows {limit} bytes"
    size = os.path.getsize(ctx.efi)
    assert size <= limit, f"{size} bytes"


def test_image_is_pe32plus_efi_application(ctx):
    p = subprocess.run(["objdump", "-p", ctx.efi], capture_output=True, text=True)
    assert "pei-x86-64" in p.stdout, p.stdout[:400]
    assert "Subsystem\t\t0000000a" in p.stdout, "not an EFI application (subsystem 10)"


def test_rebuild_is_byte_identical(ctx):
    """Two clean builds in different directories give the same .efi."""
    outs = []
    for _ in range(2):
        d = tempfile.mkdtemp(prefix="pmuboot-repro-")
        src = os.path.join(d, "src")
        subprocess.run(["git", "clone", "-q", ctx.root, src], check=True)
        # Build the working tree as it is, not only the last commit (files moved or deleted since it too).
        subprocess.run(f"cd {src} && git ls-files -z | xargs -0 rm -f", shell=True, check=True)
        subprocess.run(f"cd {ctx.root} && git ls-files -z --cached --others --exclude-standard | "
                       f"xargs -0 cp --parents -t {src}", shell=True, check=True)
        p = subprocess.run(["make", "-C", src, "image"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-1500:]
        with open(os.path.join(src, "build", "pmuboot.efi"), "rb") as f:
            outs.append(f.read())
        subprocess.run(["rm", "-rf", d])
    assert outs[0] == outs[1], "two clean builds differ"


def test_debug_file_has_symbols(ctx):
    dbg = os.path.join(ctx.build, "pmuboot.debug")
    p = subprocess.run(["nm", dbg], capture_output=True, text=True)
    assert " efi_main" in p.stdout and " rec_emit" in p.stdout


def test_options_doc_matches_table(ctx):
    p = ctx.run_host("options", "--markdown", check=True)
    with open(os.path.join(ctx.root, "docs", "options.md")) as f:
        assert f.read() == p.stdout, "docs/options.md is stale: run build/pmuboot-host options --markdown > docs/options.md"


def test_host_identify_names_this_cpu(ctx):
    p = ctx.run_host("identify", check=True)
    with open("/proc/cpuinfo") as f:
        info = f.read()
    vendor = next(l.split(":")[1].strip() for l in info.splitlines() if l.startswith("vendor_id"))
    fam = int(next(l.split(":")[1] for l in info.splitlines() if l.startswith("cpu family")))
    model = int(next(l.split(":")[1] for l in info.splitlines() if l.startswith("model\t")))
    import json
    cpu = next(json.loads(l[len("@pmuboot "):]) for l in p.stdout.splitlines() if '"type":"cpu"' in l)
    assert cpu["vendor_string"] == vendor, cpu
    assert int(cpu["family"], 16) == fam and int(cpu["model"], 16) == model, (cpu, fam, model)


def _make_var(ctx, name):
    p = subprocess.run(["make", "-s", "--no-print-directory", "--eval", "print-var-%: ; @echo $($*)",
                        f"print-var-{name}"], cwd=ctx.root, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


def test_folders_decide_the_build(ctx):
    """Which build a source goes into follows from its folder alone (issue 26): every file directly in
    platform/ is portable, platform/metal/ is the image's only, linux/ is pmuboot-host's only, and a new
    file in any of them is picked up with no list to edit."""
    image = _make_var(ctx, "IMAGE_OBJS")
    host = _make_var(ctx, "HOST_LIB_OBJS") | _make_var(ctx, "HOST_ONLY_OBJS")
    b = "build"

    def sources(folder, ext):
        d = os.path.join(ctx.root, folder)
        return sorted(f"{folder}/{n}" for n in os.listdir(d) if n.endswith(ext))

    kernel = sources("platform", ".c") + sources("platform", ".asm")
    metal = sources("platform/metal", ".c") + sources("platform/metal", ".asm")
    linux = sources("linux", ".c")
    assert len(kernel) >= 10 and len(metal) >= 10 and len(linux) >= 5, (kernel, metal, linux)
    obj = lambda where, src: f"{b}/{where}/{os.path.splitext(src)[0]}.o"  # noqa: E731
    for src in kernel:
        assert obj("image", src) in image and obj("host", src) in host, src
    for src in metal:
        assert obj("image", src) in image and obj("host", src) not in host, src
    for src in linux:
        assert obj("host", src) in host and obj("image", src) not in image, src
