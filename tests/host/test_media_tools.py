"""The media tools without booting: USB image layout, ISO El Torito entry, signing, the default config.

tests/qemu/test_media.py boots what `make usb` and `make iso` build; these check what is
inside them, that the image's PE layout is one sbsign/sbverify accept, and that a signed
image verifies against the certificate it was signed with.
"""
import os
import re
import shutil
import subprocess
import tempfile

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
