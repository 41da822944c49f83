"""The media tools without booting: USB image layout, ISO El Torito entry, signing, the default config,
the make rules (what goes on the medium follows CFG and the signing choice), dates, deps.sh.

tests/qemu/test_media.py boots what `make usb` and `make iso` build; these check what is
inside them, that the image's PE layout is one sbsign/sbverify accept, that a signed
image verifies against the certificate it was signed with, and that `make usb`/`make iso`
rebuild exactly when their inputs change.
"""
import atexit
import calendar
import os
import re
import shutil
import subprocess
import tempfile
import time

MT_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1", PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
ESP_OFFSET = 1024 * 1024
FAT32_TYPE_OFFSET = 0x52      # "FAT32   " in a FAT32 boot sector (Microsoft FAT specification, BPB)


def run(*args, cwd=None):
    p = subprocess.run(list(args), capture_output=True, env=MT_ENV, cwd=cwd)
    return p.returncode, p.stdout.decode("latin-1"), p.stderr.decode("latin-1")


def ok(*args, cwd=None):
    rc, out, err = run(*args, cwd=cwd)
    assert rc == 0, f"{' '.join(args)} exited {rc}: {err[-1200:]}"
    return out


def read(path, mode="rb"):
    with open(path, mode) as f:
        return f.read()


def test_image_section_layout_passes_sbverify(ctx):
    rc, out, err = run("sbverify", "--list", ctx.efi)
    text = out + err
    assert "warning" not in text.lower() and "gaps" not in text, text
    # Unsigned, and saying so, is the only thing sbverify may report.
    assert "No signature table present" in text, text


def test_sign_with_own_key_and_verify(ctx):
    d = tempfile.mkdtemp(prefix="pmuboot-sign-")
    sign = os.path.join(ctx.root, "tools", "sign.sh")
    ok(sign, "new-key", os.path.join(d, "keys"))
    key, crt, cer = (os.path.join(d, "keys", "pmuboot-db." + e) for e in ("key", "crt", "cer"))
    assert os.stat(key).st_mode & 0o077 == 0, "the private key is readable by others"
    assert read(cer)[:1] == b"\x30", "the .cer is not DER"
    # A second new-key never overwrites the key.
    rc, _, err = run(sign, "new-key", os.path.join(d, "keys"))
    assert rc != 0 and "not overwriting" in err, err
    out = os.path.join(d, "signed.efi")
    ok(sign, "sign", key, crt, ctx.efi, out)
    ok("sbverify", "--cert", crt, out)
    listing = ok("sbverify", "--list", out)
    assert "signature 1" in listing and "pmuboot lab signing key" in listing, listing
    # A certificate that did not sign it must not verify.
    ok(sign, "new-key", os.path.join(d, "other"))
    rc, _, _ = run("sbverify", "--cert", os.path.join(d, "other", "pmuboot-db.crt"), out)
    assert rc != 0, "verified against the wrong certificate"
    shutil.rmtree(d)


def test_usb_image_layout(ctx):
    d = tempfile.mkdtemp(prefix="pmuboot-usb-")
    img = os.path.join(d, "usb.img")
    cfg = os.path.join(ctx.root, "tools", "pmuboot.cfg.default")
    ok(os.path.join(ctx.root, "tools", "mkusb.sh"), "--efi", ctx.efi, "--out", img)
    table = ok("sgdisk", "-p", img)
    parts = re.findall(r"^\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+ \S+\s+(\w+)", table, re.M)
    assert len(parts) == 1, table
    num, start, end, code = parts[0]
    assert code == "EF00" and int(start) == ESP_OFFSET // 512, table
    with open(img, "rb") as f:
        f.seek(ESP_OFFSET + FAT32_TYPE_OFFSET)
        assert f.read(8) == b"FAT32   ", "the ESP is not FAT32"
    fs = f"{img}@@{ESP_OFFSET}"
    ok("mcopy", "-n", "-i", fs, "::/EFI/BOOT/BOOTX64.EFI", os.path.join(d, "boot.efi"))
    assert read(os.path.join(d, "boot.efi")) == read(ctx.efi)
    ok("mcopy", "-n", "-i", fs, "::/EFI/BOOT/pmuboot.cfg", os.path.join(d, "pmuboot.cfg"))
    assert read(os.path.join(d, "pmuboot.cfg")) == read(cfg)
    assert "pmuboot" in ok("mdir", "-b", "-i", fs, "::/").lower()
    # Bad arguments are refused with a reason, and leave nothing behind.
    rc, _, err = run(os.path.join(ctx.root, "tools", "mkusb.sh"), "--efi", os.path.join(d, "nope.efi"),
                     "--out", os.path.join(d, "x.img"))
    assert rc != 0 and "does not exist" in err and not os.path.exists(os.path.join(d, "x.img")), err
    shutil.rmtree(d)


def test_iso_has_an_el_torito_efi_image(ctx):
    d = tempfile.mkdtemp(prefix="pmuboot-iso-")
    iso = os.path.join(d, "pmuboot.iso")
    ok(os.path.join(ctx.root, "tools", "mkiso.sh"), "--efi", ctx.efi, "--out", iso)
    report = ok("xorriso", "-indev", iso, "-report_el_torito", "plain") + run(
        "xorriso", "-indev", iso, "-report_el_torito", "plain")[2]
    assert re.search(r"El Torito boot img :\s+1\s+UEFI\s+y\s+none", report), report
    # The boot image is a FAT image holding the very same .efi.
    ok("xorriso", "-osirrox", "on", "-indev", iso, "-extract_boot_images", d + "/")
    boot_imgs = [f for f in os.listdir(d) if f.startswith("eltorito_img")]
    assert len(boot_imgs) == 1, os.listdir(d)
    fat = os.path.join(d, boot_imgs[0])
    ok("mcopy", "-n", "-i", fat, "::/EFI/BOOT/BOOTX64.EFI", os.path.join(d, "boot.efi"))
    assert read(os.path.join(d, "boot.efi")) == read(ctx.efi)
    ok("mcopy", "-n", "-i", fat, "::/EFI/BOOT/pmuboot.cfg", os.path.join(d, "pmuboot.cfg"))
    shutil.rmtree(d)


def test_default_config_lists_every_option_with_its_default(ctx):
    with open(os.path.join(ctx.root, "docs", "options.md")) as f:
        rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", f.read(), re.M)
    assert len(rows) >= 10, rows
    with open(os.path.join(ctx.root, "tools", "pmuboot.cfg.default")) as f:
        text = f.read()
    lines = text.splitlines()
    # Nothing is set: every non-blank line is a comment.
    assert all(not l.strip() or l.lstrip().startswith("#") for l in lines), [l for l in lines if l.strip()
                                                                              and not l.lstrip().startswith("#")]
    for key, default in rows:
        want = f"#{key}=" + ("" if default == "(empty)" else default)
        assert want in lines, f"tools/pmuboot.cfg.default lacks the line '{want}'"


# ---- make usb / make iso: what goes on the medium follows the inputs -----------------------

DAY = 24 * 3600
DATE_RE = re.compile(r"(\d{4})-(\d\d)-(\d\d)\s+(\d+):(\d\d)")


def make_tree(ctx):
    """A build directory of its own (make B=...) holding a copy of the build's image chain with
    its times, so `make usb` there finds the image up to date and the build's media stay as
    tests/qemu/test_media.py made them."""
    d = tempfile.mkdtemp(prefix="pmuboot-mk-")
    atexit.register(shutil.rmtree, d, True)   # also when an assertion stops the test (64 MiB images)
    b = os.path.join(d, "b")
    os.mkdir(b)
    for name in ("image", "gen", "pmuboot.so", "pmuboot.debug", "pmuboot.efi"):
        src = os.path.join(ctx.build, name)
        if os.path.exists(src):
            ok("cp", "-a", src, b)
    return d, b


def make(ctx, b, *args):
    p = subprocess.run(["make", "--no-print-directory", f"B={b}", *args], cwd=ctx.root, capture_output=True,
                       text=True, env=MT_ENV, timeout=600)
    assert p.returncode == 0, f"make {' '.join(args)} exited {p.returncode}:\n{p.stdout[-1500:]}\n{p.stderr[-1500:]}"
    return p.stdout


def stamp(path):
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns


def new_key(ctx, d):
    ok(os.path.join(ctx.root, "tools", "sign.sh"), "new-key", os.path.join(d, "k"))
    return os.path.join(d, "k", "pmuboot-db.key"), os.path.join(d, "k", "pmuboot-db.crt")


def old_file(path, text):
    """A file dated 2001: older than any image make could have built."""
    with open(path, "w") as f:
        f.write(text)
    os.utime(path, (978307200, 978307200))


def usb_file(img, path):
    return ok_bytes("mcopy", "-n", "-i", f"{img}@@{ESP_OFFSET}", f"::{path}", "-")


def ok_bytes(*args):
    p = subprocess.run(list(args), capture_output=True, env=MT_ENV)
    assert p.returncode == 0, f"{' '.join(args)} exited {p.returncode}: {p.stderr.decode('latin-1')[-1200:]}"
    return p.stdout


def iso_file(d, iso, path):
    out = os.path.join(d, "x" + path.replace("/", "_"))
    if os.path.exists(out):
        os.chmod(out, 0o600)
        os.remove(out)
    ok("xorriso", "-osirrox", "on", "-indev", iso, "-extract", path, out)
    return read(out)


def test_make_usb_follows_cfg_and_signing(ctx):
    d, b = make_tree(ctx)
    img = os.path.join(b, "pmuboot-usb.img")
    default_cfg = read(os.path.join(ctx.root, "tools", "pmuboot.cfg.default"))
    out = make(ctx, b, "usb")
    assert f"{img}: " in out, out
    assert usb_file(img, "/EFI/BOOT/pmuboot.cfg") == default_cfg
    # Nothing changed: nothing is rebuilt, and the path is still named.
    before = stamp(img)
    out = make(ctx, b, "usb")
    assert f"{img} is up to date" in out and stamp(img) == before, out
    # A CFG older than the image is still another file: it goes on the stick.
    cfg = os.path.join(d, "old.cfg")
    old_file(cfg, "# old settings\nreps=3\n")
    out = make(ctx, b, "usb", f"CFG={cfg}")
    assert usb_file(img, "/EFI/BOOT/pmuboot.cfg") == b"# old settings\nreps=3\n", out
    assert f"{img} is up to date" in make(ctx, b, "usb", f"CFG={cfg}")
    # Same path, same old date, other content: rebuilt.
    old_file(cfg, "# old settings\nreps=5\n")
    make(ctx, b, "usb", f"CFG={cfg}")
    assert usb_file(img, "/EFI/BOOT/pmuboot.cfg") == b"# old settings\nreps=5\n"
    # Signed, then unsigned again: the stick carries what was asked each time.
    key, crt = new_key(ctx, d)
    make(ctx, b, "usb", f"SIGN_KEY={key}", f"SIGN_CERT={crt}")
    signed = usb_file(img, "/EFI/BOOT/BOOTX64.EFI")
    assert signed == read(os.path.join(b, "pmuboot-signed.efi")) and signed != read(os.path.join(b, "pmuboot.efi"))
    out = make(ctx, b, "usb")
    assert usb_file(img, "/EFI/BOOT/BOOTX64.EFI") == read(os.path.join(b, "pmuboot.efi")), out
    assert usb_file(img, "/EFI/BOOT/pmuboot.cfg") == default_cfg
    # Half a signing request is refused, not silently unsigned.
    p = subprocess.run(["make", "--no-print-directory", f"B={b}", "usb", f"SIGN_CERT={crt}"], cwd=ctx.root,
                       capture_output=True, text=True, env=MT_ENV, timeout=600)
    assert p.returncode != 0 and "SIGN_CERT needs SIGN_KEY" in p.stderr, p.stderr
    shutil.rmtree(d)


def test_make_iso_follows_cfg_and_signing(ctx):
    d, b = make_tree(ctx)
    iso = os.path.join(b, "pmuboot.iso")
    key, crt = new_key(ctx, d)
    out = make(ctx, b, "iso", f"SIGN_KEY={key}", f"SIGN_CERT={crt}")
    assert f"{iso}: " in out, out
    assert iso_file(d, iso, "/EFI/BOOT/BOOTX64.EFI") == read(os.path.join(b, "pmuboot-signed.efi"))
    before = stamp(iso)
    assert f"{iso} is up to date" in make(ctx, b, "iso", f"SIGN_KEY={key}", f"SIGN_CERT={crt}")
    assert stamp(iso) == before
    cfg = os.path.join(d, "old.cfg")
    old_file(cfg, "# rig B\nreps=7\n")
    make(ctx, b, "iso", f"CFG={cfg}")
    assert iso_file(d, iso, "/EFI/BOOT/BOOTX64.EFI") == read(os.path.join(b, "pmuboot.efi"))
    assert iso_file(d, iso, "/EFI/BOOT/pmuboot.cfg") == b"# rig B\nreps=7\n"
    # The El Torito FAT image, what firmware boots, follows too.
    ok("xorriso", "-osirrox", "on", "-indev", iso, "-extract_boot_images", d + "/")
    fat = os.path.join(d, "eltorito_img1_uefi.img")
    assert ok_bytes("mcopy", "-n", "-i", fat, "::/EFI/BOOT/pmuboot.cfg", "-") == b"# rig B\nreps=7\n"
    assert ok_bytes("mcopy", "-n", "-i", fat, "::/EFI/BOOT/BOOTX64.EFI", "-") == read(os.path.join(b, "pmuboot.efi"))
    shutil.rmtree(d)


def media_reference_date(ctx):
    """(seconds, tolerance): the last commit's date in a git checkout, else now (media_common.sh)."""
    p = subprocess.run(["git", "-C", ctx.root, "log", "-1", "--format=%ct"], capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip().isdigit():
        return int(p.stdout), 0
    return int(time.time()), 600


def test_media_carry_the_commit_date(ctx):
    ref, slack = media_reference_date(ctx)
    now = time.time()
    d = tempfile.mkdtemp(prefix="pmuboot-dates-")
    atexit.register(subprocess.run, ["rm", "-rf", d])   # the ISO's files extract read-only
    img, iso = os.path.join(d, "usb.img"), os.path.join(d, "pmuboot.iso")
    ok(os.path.join(ctx.root, "tools", "mkusb.sh"), "--efi", ctx.efi, "--out", img)
    ok(os.path.join(ctx.root, "tools", "mkiso.sh"), "--efi", ctx.efi, "--out", iso)
    # FAT dates are local time without a zone: within a day of the reference covers every zone.
    listing = ok("mdir", "-i", f"{img}@@{ESP_OFFSET}", "::/") + ok("mdir", "-i", f"{img}@@{ESP_OFFSET}", "::/EFI/BOOT")
    dated = [l for l in listing.splitlines() if DATE_RE.search(l)]
    assert len(dated) >= 6, listing          # EFI, pmuboot, ., .., BOOTX64.EFI, pmuboot.cfg
    for line in dated:
        y, mo, da, h, mi = (int(x) for x in DATE_RE.search(line).groups())
        when = calendar.timegm((y, mo, da, h, mi, 0))
        assert y > 1980 and when <= now + DAY, f"'{line}' is not a real date"
        assert abs(when - ref) <= DAY + slack, f"'{line}' is not within a day of {time.ctime(ref)}"
    # The ISO keeps exact times (Rock Ridge), so the extracted files carry the date itself.
    ok("xorriso", "-osirrox", "on", "-indev", iso, "-extract", "/EFI", os.path.join(d, "EFI"))
    for path in ("EFI", "EFI/BOOT", "EFI/BOOT/BOOTX64.EFI", "EFI/BOOT/pmuboot.cfg"):
        when = os.stat(os.path.join(d, path)).st_mtime
        assert abs(when - ref) <= slack, f"{path} on the ISO is dated {time.ctime(when)}, not {time.ctime(ref)}"
    # The image itself is untouched: the same bytes as the build's (PE header date included).
    assert read(os.path.join(d, "EFI", "BOOT", "BOOTX64.EFI")) == read(ctx.efi)
    ok("chmod", "-R", "u+w", d)
    shutil.rmtree(d)


# ---- tools/deps.sh: each target asks only for what it uses --------------------------------

def deps_list(ctx, *targets):
    args = [os.path.join(ctx.root, "tools", "deps.sh"), "--list"] + [a for t in targets for a in ("--for", t)]
    rows = [l.split() for l in ok(*args).splitlines()]
    assert rows and all(len(r) == 2 and r[1] in ("installed", "missing") for r in rows), rows
    return {r[0] for r in rows}


def test_deps_asks_each_target_only_for_what_it_uses(ctx):
    usb = deps_list(ctx, "usb")
    assert {"gdisk", "mtools", "dosfstools", "gcc", "gnu-efi", "nasm"} <= usb, usb
    assert not usb & {"ovmf", "qemu-system-x86", "xorriso", "libcmocka-dev", "sbsigntool"}, usb
    iso = deps_list(ctx, "iso")
    assert "xorriso" in iso and "gdisk" not in iso and "ovmf" not in iso, iso
    assert {"ovmf", "qemu-system-x86", "python3"} <= deps_list(ctx, "run")
    host = deps_list(ctx, "host")
    assert "gcc" in host and not host & {"gnu-efi", "ovmf", "mtools"}, host
    assert deps_list(ctx, "usb", "sign") == usb | {"sbsigntool", "openssl"}
    # make test builds and boots everything: it needs every package in the table.
    assert deps_list(ctx, "test") == deps_list(ctx), deps_list(ctx) - deps_list(ctx, "test")
    rc, _, err = run(os.path.join(ctx.root, "tools", "deps.sh"), "--for", "usbb", "--list")
    assert rc != 0 and "unknown target 'usbb'" in err and "usb" in err, err


def test_every_make_target_names_its_deps(ctx):
    """Each recipe that calls deps.sh says which target it is (but `make deps`: everything)."""
    calls = []
    for mk in ["Makefile"] + sorted(os.path.join(r, "module.mk") for r in os.listdir(ctx.root)
                                    if os.path.isfile(os.path.join(ctx.root, r, "module.mk"))):
        target = None
        with open(os.path.join(ctx.root, mk)) as f:
            for line in f:
                m = re.match(r"^([\w.-]+):", line)
                if m:
                    target = m.group(1)
                if "tools/deps.sh" in line and line.startswith("\t"):
                    calls.append((mk, target, line.strip()))
    targets = {t for _, t, _ in calls}
    assert {"usb", "iso", "run", "test", "bench"} <= targets, calls
    for mk, target, line in calls:
        if target != "deps":
            assert "--for" in line, f"{mk}: `make {target}` checks every package: {line}"
