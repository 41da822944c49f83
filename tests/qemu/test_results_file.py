"""QEMU: results saved on the boot medium, a config file with errors, a read-only medium, a full disk.

QEMU's writable FAT directory (vvfat, fat:rw:) loses the data of files the guest creates,
so a saved file is checked on real FAT images: one built by tools/mkusb.sh (as a lab's
stick would be) and a small one left almost full.  Each is read back with mtools.
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET

import pmucap
import qemurun
from testlib import describe

ESP_OFFSET = 1024 * 1024     # tools/mkusb.sh puts the partition at 1 MiB
MT_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")

# Line numbers matter: the errors must name lines 3 and 5.
BAD_CFG = """# a lab's config with two mistakes
reps=5
warmup=lots   # not a number
bench=ref
on_finish=explode
"""


def mt(*args, data=None):
    p = subprocess.run(list(args), capture_output=True, env=MT_ENV, input=data)
    assert p.returncode == 0, f"{' '.join(args)}: {p.stderr.decode(errors='replace')}"
    return p.stdout


def put(img, path, data):
    fd, tmp = tempfile.mkstemp()
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    mt("mcopy", "-i", img, tmp, f"::{path}")
    os.unlink(tmp)


def get(img, path):
    return mt("mcopy", "-n", "-i", img, f"::{path}", "-").decode("latin-1")


def saved_boot(ctx):
    """A stick from tools/mkusb.sh with BAD_CFG and earlier results on it, booted once."""
    def make():
        d = tempfile.mkdtemp(prefix="pmuboot-results-")
        atexit.register(shutil.rmtree, d, True)   # the disk images are tens of MiB
        cfg = os.path.join(d, "pmuboot.cfg")
        with open(cfg, "w") as f:
            f.write(BAD_CFG)
        img = os.path.join(d, "stick.img")
        p = subprocess.run([os.path.join(ctx.root, "tools", "mkusb.sh"), "--efi", ctx.efi, "--cfg", cfg,
                            "--out", img], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        fs = f"{img}@@{ESP_OFFSET}"
        # Earlier runs' files (any case), and names that are not results files.
        put(fs, "/pmuboot/results-0003.jsonl", b'{"type":"begin"}\n')
        put(fs, "/pmuboot/RESULTS-0007.JSONL", b'{"type":"begin"}\n')
        put(fs, "/pmuboot/results-x.jsonl", b"not ours\n")
        put(fs, "/pmuboot/notes.txt", b"results-9999.jsonl is only mentioned here\n")
        res = qemurun.boot(efi=ctx.efi, drive=("disk", img), timeout=90)
        res.image = fs
        return res
    return _cached("results-saved", make)


_cache = {}
_cache_guard = threading.Lock()


def _cached(key, make):
    """One boot per key for the whole session, shared by the tests that look at it."""
    with _cache_guard:
        lock = _cache.setdefault(key + ".lock", threading.Lock())
    with lock:
        if key not in _cache:
            _cache[key] = make()
        return _cache[key]


def test_config_errors_name_file_and_line(ctx):
    res = saved_boot(ctx)
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    assert res.qemu_rc == qemurun.QEMU_ERRORS, res.qemu_rc
    errs = res.records("error")
    assert [(e["source"], e["what"]) for e in errs] == [
        ("\\EFI\\BOOT\\pmuboot.cfg:3", "warmup"), ("\\EFI\\BOOT\\pmuboot.cfg:5", "on_finish")], errs
    assert all(e["message"] for e in errs), errs
    opts = res.first("begin")["options"]
    # Good lines still apply; bad ones keep the default.
    assert opts["reps"] == "5" and opts["bench"] == "ref" and opts["warmup"] == "3", opts
    assert res.run.end["status"] == "error" and res.run.end["errors"] == 2, res.run.end
    # The text lines say it too, with the file and line.
    assert re.search(r"error: \\EFI\\BOOT\\pmuboot\.cfg:3: warmup", res.log), res.log[-1500:]


def test_results_saved_next_number_and_match_serial(ctx):
    res = saved_boot(ctx)
    assert res.run and res.run.complete, describe(res)
    assert res.first("begin")["results"] == {"file": "\\pmuboot\\results-0008.jsonl"}, res.first("begin")
    saved = get(res.image, "/pmuboot/results-0008.jsonl")
    runs, stray = pmucap.parse(saved)
    assert not stray and len(runs) == 1 and runs[0].complete, (stray, runs and runs[0].problems)
    # Exactly the serial records, in order, end included: bare JSON, one per LF-terminated line.
    assert runs[0].texts == res.run.texts and runs[0].end == res.run.end
    assert saved.endswith("\n") and "\r" not in saved and len(saved.splitlines()) == len(res.run.texts) + 1
    # Earlier files untouched.
    assert get(res.image, "/pmuboot/results-0003.jsonl") == '{"type":"begin"}\n'
    assert get(res.image, "/pmuboot/notes.txt").startswith("results-9999")


def test_capture_tools_on_this_boot(ctx):
    """pmucap on the live serial capture and the saved file of the same run."""
    res = saved_boot(ctx)
    d = tempfile.mkdtemp(prefix="pmuboot-results-")
    serial, saved = os.path.join(d, "serial.log"), os.path.join(d, "saved.jsonl")
    with open(serial, "w", encoding="latin-1", newline="") as f:
        f.write(res.log)
    with open(saved, "w", encoding="latin-1", newline="") as f:
        f.write(get(res.image, "/pmuboot/results-0008.jsonl"))
    tool = [sys.executable, os.path.join(ctx.root, "tools", "pmucap")]
    p = subprocess.run(tool + ["compare", serial, saved, "--fail-on-change", "--format", "json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)["rows"]
    assert rows and all(r["delta"] == 0 for r in rows if r["metric"]), rows[:3]
    p = subprocess.run(tool + ["junit", saved], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    root = ET.fromstring(p.stdout)
    failed = [tc.get("name") for tc in root.iter("testcase") if tc.find("failure") is not None]
    # The two option errors are the run's failures; the capture itself is intact.
    assert sum(1 for n in failed if n.startswith("error.")) == 2 and "integrity" not in failed, failed
    subprocess.run(["rm", "-rf", d])


def test_read_only_medium_is_reported_and_run_completes(ctx):
    res = ctx.boot("results-readonly", readonly=True, cfg_text="bench=none\n")
    assert res.status == qemurun.OK, describe(res)
    assert res.qemu_rc == qemurun.QEMU_CLEAN, res.qemu_rc
    r = res.first("begin")["results"]
    assert r["file"] is None and r["efi_status"] == "EFI_WRITE_PROTECTED" and "read-only" in r["why"], r
    assert res.run.end["status"] == "ok" and res.run.end["errors"] == 0, res.run.end
    assert "the records are not saved on the boot medium: the boot medium is read-only" in res.log


def free_bytes(fs):
    out = mt("mdir", "-i", fs, "::/").decode()
    m = re.search(r"([\d ]+) bytes free", out)
    assert m, out
    return int(m.group(1).replace(" ", ""))


def full_boot(ctx, clusters=2):
    """A small FAT disk with two 512-byte clusters left: the file fills up during the run."""
    def make():
        d = tempfile.mkdtemp(prefix="pmuboot-full-")
        atexit.register(shutil.rmtree, d, True)
        img = os.path.join(d, "full.img")
        mkfs = shutil.which("mkfs.fat") or "/usr/sbin/mkfs.fat"
        p = subprocess.run([mkfs, "-C", "-S", "512", "-s", "1", "-n", "FULL", img, "2048"],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        mt("mmd", "-i", img, "::/EFI", "::/EFI/BOOT", "::/pmuboot")
        mt("mcopy", "-i", img, ctx.efi, "::/EFI/BOOT/BOOTX64.EFI")
        put(img, "/EFI/BOOT/pmuboot.cfg", b"bench=ref\n")
        left = clusters * 512
        put(img, "/filler.bin", b"\0" * (free_bytes(img) - left))
        assert free_bytes(img) == left, free_bytes(img)
        res = qemurun.boot(efi=ctx.efi, drive=("disk", img), timeout=90)
        res.image, res.room = img, left
        return res
    return _cached(f"results-full-{clusters}", make)


def test_full_disk_is_reported_and_run_completes(ctx):
    res = full_boot(ctx)
    assert res.status == qemurun.OK, describe(res)
    assert res.run.end["status"] == "ok", res.run.end
    begin = res.first("begin")
    assert begin["results"]["file"] == "\\pmuboot\\results-0001.jsonl", begin["results"]
    notes = res.records("results_file")
    assert len(notes) == 1, notes
    n = notes[0]
    assert n["efi_status"] == "EFI_VOLUME_FULL" and "full" in n["why"] and n["saving"] is False, n
    # The note follows the record whose write failed, and everything after it is still on serial.
    types = [r["type"] for _, r in res.run.records]
    assert types.index("results_file") == n["records_saved"] + 1, (types, n)
    assert "cpu" in types and "bench" in types, types
    assert "warning: results file" in res.log


def test_full_disk_file_holds_whole_records_only(ctx):
    res = full_boot(ctx)
    saved = get(res.image, "/pmuboot/results-0001.jsonl")
    lines = [t + "\n" for t in res.run.texts]
    # As many whole records as fit in the room left, cut back to a record boundary.
    k, used = 0, 0
    while k < len(lines) and used + len(lines[k]) <= res.room:
        used += len(lines[k])
        k += 1
    assert saved == "".join(lines[:k]), (len(saved), used, k)
    assert res.first("results_file")["records_saved"] == k
    # pmucap sees a truncated run: never mistaken for a complete one.
    runs, _ = pmucap.parse(saved)
    assert k == 0 or (runs and not runs[0].complete)


def test_no_record_fits_and_no_empty_file_is_left(ctx):
    """One 512-byte cluster left: the begin record (over 512 bytes) does not fit, so the file named in it
    would stay empty.  It is removed, and the results_file record says nothing was saved."""
    res = full_boot(ctx, clusters=1)
    assert res.status == qemurun.OK, describe(res)
    begin = res.first("begin")
    assert len(res.run.texts[0]) + 1 > res.room, "the begin record fits: this test needs a smaller room"
    n = res.first("results_file")
    assert n and n["records_saved"] == 0 and n["removed"] is True and n["efi_status"] == "EFI_VOLUME_FULL", n
    assert n["file"] == begin["results"]["file"], (n, begin["results"])
    assert "nothing was saved and the empty file was removed" in res.log, res.log[-1500:]
    listing = mt("mdir", "-b", "-i", res.image, "::/pmuboot").decode(errors="replace")
    assert "results-" not in listing.lower(), listing


def test_no_room_at_all_saves_nothing_and_says_so(ctx):
    """0 bytes free (\\pmuboot already there, so creating a name needs no cluster): no empty file is left
    behind and named; the begin record and the screen say plainly that nothing is saved."""
    def make():
        d = tempfile.mkdtemp(prefix="pmuboot-nofree-")
        atexit.register(shutil.rmtree, d, True)
        img = os.path.join(d, "nofree.img")
        mkfs = shutil.which("mkfs.fat") or "/usr/sbin/mkfs.fat"
        p = subprocess.run([mkfs, "-C", "-S", "512", "-s", "1", "-n", "NOFREE", img, "2048"],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        mt("mmd", "-i", img, "::/EFI", "::/EFI/BOOT", "::/pmuboot")
        mt("mcopy", "-i", img, ctx.efi, "::/EFI/BOOT/BOOTX64.EFI")
        put(img, "/EFI/BOOT/pmuboot.cfg", b"bench=none\n")
        put(img, "/filler.bin", b"\0" * free_bytes(img))
        assert free_bytes(img) == 0, free_bytes(img)
        res = qemurun.boot(efi=ctx.efi, drive=("disk", img), timeout=90)
        res.image = img
        return res
    res = _cached("results-nofree", make)
    assert res.status == qemurun.OK, describe(res)
    r = res.first("begin")["results"]
    assert r["file"] is None and r["efi_status"] == "EFI_VOLUME_FULL", r
    assert "0 bytes free" in r["why"] and "nothing is saved" in r["why"], r
    assert not res.records("results_file"), res.records("results_file")
    assert "the records are not saved on the boot medium: the boot medium is full" in res.log, res.log[-1500:]
    listing = mt("mdir", "-b", "-i", res.image, "::/pmuboot").decode(errors="replace")
    assert "results-" not in listing.lower(), listing


def test_passes_on_other_processors_are_saved_like_serial(ctx):
    """cpus=all under -smp 3: serial carries an AP's pass live, the file gets it from the boot processor's
    spool afterwards; both hold the same records in the same order, with a valid end."""
    def make():
        d = tempfile.mkdtemp(prefix="pmuboot-results-")
        atexit.register(shutil.rmtree, d, True)
        cfg = os.path.join(d, "pmuboot.cfg")
        with open(cfg, "w") as f:
            f.write("cpus=all bench=ref reps=3 iterations=100 warmup=0 ibs=off\n")
        img = os.path.join(d, "stick.img")
        p = subprocess.run([os.path.join(ctx.root, "tools", "mkusb.sh"), "--efi", ctx.efi, "--cfg", cfg,
                            "--out", img], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        res = qemurun.boot(efi=ctx.efi, drive=("disk", img), timeout=120, extra_args=("-smp", "3"))
        res.image = f"{img}@@{ESP_OFFSET}"
        return res
    res = _cached("results-smp3", make)
    assert res.status == qemurun.OK, describe(res)
    assert {r["cpu"]["n"] for r in res.records("pass")} == {0, 1, 2}, res.records("pass")
    saved = get(res.image, "/pmuboot/results-0001.jsonl")
    runs, stray = pmucap.parse(saved)
    assert not stray and len(runs) == 1 and runs[0].complete, (stray, runs and runs[0].problems)
    assert runs[0].texts == res.run.texts and runs[0].end == res.run.end
