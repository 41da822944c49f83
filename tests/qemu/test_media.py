"""QEMU: the bootable media `make usb` and `make iso` build, booted as a disk and as a CD-ROM.

The USB image boots with two CPUs and SMBIOS strings of our choosing, so the same boot
checks the `platform` record against what QEMU was told, and the records it saved on the
stick against the serial capture.  The ISO boots as a CD: a read-only medium, reported,
with the run still clean.
"""
import atexit
import os
import shutil
import subprocess
import tempfile
import threading

import pmucap
import qemurun
from testlib import describe

_lock = threading.Lock()
_usb_lock = threading.Lock()
SMBIOS_MAKER, SMBIOS_PRODUCT = "PmubootLab", "Rig A"
MEMORY_MIB = 512


def media(ctx):
    """`make usb iso` into the build directory, once per test session."""
    with _lock:
        usb, iso = os.path.join(ctx.build, "pmuboot-usb.img"), os.path.join(ctx.build, "pmuboot.iso")
        if not getattr(media, "done", False):
            p = subprocess.run(["make", "--no-print-directory", f"B={os.path.relpath(ctx.build, ctx.root)}",
                                "usb", "iso"], cwd=ctx.root, capture_output=True, text=True, timeout=600)
            assert p.returncode == 0, f"make usb iso failed:\n{p.stdout[-1500:]}\n{p.stderr[-1500:]}"
            # Made or up to date, each target names its medium.
            for path in (usb, iso):
                rel = os.path.relpath(path, ctx.root)
                assert f"{rel}: " in p.stdout or f"{rel} is up to date" in p.stdout, p.stdout
            media.done = True
        assert os.path.getsize(usb) > 0 and os.path.getsize(iso) > 0
        return usb, iso


def usb_boot(ctx):
    """Boot a copy of the USB image (the build's stays pristine); returns (result, image copy)."""
    with _usb_lock:
        if getattr(usb_boot, "res", None):
            return usb_boot.res
        usb, _ = media(ctx)
        d = tempfile.mkdtemp(prefix="pmuboot-media-")
        atexit.register(shutil.rmtree, d, True)   # the disk images are tens of MiB
        img = os.path.join(d, "stick.img")
        shutil.copyfile(usb, img)
        res = qemurun.boot(efi=ctx.efi, drive=("disk", img), memory=f"{MEMORY_MIB}M", timeout=90,
                           extra_args=["-smp", "2", "-smbios",
                                       f"type=1,manufacturer={SMBIOS_MAKER},product={SMBIOS_PRODUCT}"])
        usb_boot.res = (res, img)
        return usb_boot.res


def mcopy_out(img, offset, path):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    p = subprocess.run(["mcopy", "-n", "-i", f"{img}@@{offset}", f"::{path}", "-"], capture_output=True, env=env)
    assert p.returncode == 0, f"mcopy {path}: {p.stderr.decode(errors='replace')}"
    return p.stdout.decode("latin-1")


def test_usb_image_boots_as_a_disk(ctx):
    res, _ = usb_boot(ctx)
    assert res.status == qemurun.OK, describe(res)
    assert res.qemu_rc == qemurun.QEMU_CLEAN, res.qemu_rc
    begin = res.first("begin")
    # The stick's commented default pmuboot.cfg was read (and set nothing).
    assert begin["config"].startswith("file \\EFI\\BOOT\\pmuboot.cfg"), begin["config"]
    assert not res.records("error"), res.records("error")
    assert begin["results"] == {"file": "\\pmuboot\\results-0001.jsonl"}, begin["results"]


def test_usb_image_saves_the_records_on_the_stick(ctx):
    res, img = usb_boot(ctx)
    assert res.status == qemurun.OK, describe(res)
    saved = mcopy_out(img, 1024 * 1024, "/pmuboot/results-0001.jsonl")
    runs, stray = pmucap.parse(saved)
    assert not stray and len(runs) == 1 and runs[0].complete, (stray, runs and runs[0].problems)
    assert runs[0].texts == res.run.texts and runs[0].end == res.run.end


def test_platform_record_on_the_usb_boot(ctx):
    res, _ = usb_boot(ctx)
    plat = res.first("platform")
    assert plat is not None, describe(res)
    assert plat["firmware"]["vendor"] == "EDK II", plat["firmware"]
    assert plat["firmware"]["uefi"].startswith("2."), plat["firmware"]
    smb = plat["smbios"]
    assert smb["system_manufacturer"] == SMBIOS_MAKER and smb["system_product"] == SMBIOS_PRODUCT, smb
    assert "OVMF" in (smb["bios_vendor"] or "") or "EDK" in (smb["bios_vendor"] or ""), smb
    assert smb["bios_date"], smb
    assert plat["cpus"] == 2 and plat["cpus_enabled"] == 2, plat
    # All of -m 512M but what the firmware keeps for itself (a few MiB at most).
    assert MEMORY_MIB - 32 <= plat["memory_mib"] <= MEMORY_MIB, plat["memory_mib"]
    assert plat["memory_bytes"] // (1024 * 1024) == plat["memory_mib"]
    # Debian's plain OVMF has no Secure Boot enforcement: off (or no variable at all).
    assert plat["secure_boot"] in (False, None), plat
    # The record comes early: right after begin (and any option errors).
    types = [r["type"] for _, r in res.run.records]
    assert types.index("platform") < types.index("cpu"), types


def test_iso_boots_as_a_cdrom(ctx):
    _, iso = media(ctx)
    res = ctx.boot("media-iso", drive=("cdrom", iso))
    assert res.status == qemurun.OK, describe(res)
    assert res.qemu_rc == qemurun.QEMU_CLEAN, res.qemu_rc
    begin = res.first("begin")
    assert "pmuboot.cfg" in begin["config"], begin["config"]
    r = begin["results"]
    assert r["file"] is None and r["efi_status"] == "EFI_WRITE_PROTECTED" and "read-only" in r["why"], r
    # Read-only media are a normal way to boot: reported, not an error.
    assert res.run.end["status"] == "ok" and res.run.end["errors"] == 0, res.run.end
    assert "not saved on the boot medium" in res.log
