"""qemurun - boot a pmuboot image under QEMU/OVMF and judge the run by its records.

Used by tools/run-qemu (the command) and by the QEMU tests.  The serial
line is captured to a log file; the verdict comes from the parsed records
(tools/pmucap.py), never from QEMU's exit status alone, since a plain QEMU
power-off also exits 0.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pmucap  # noqa: E402

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
DEBUG_EXIT = "isa-debug-exit,iobase=0xf4,iosize=0x04"
# QEMU exits with (v << 1) | 1 after the image writes v to the debug-exit port (boot/finish.c).
QEMU_CLEAN, QEMU_ERRORS = 1, 3

# Runner statuses.
OK, RUN_ERRORS, BROKEN, TIMEOUT = 0, 1, 2, 124


class Result:
    def __init__(self):
        self.status = BROKEN
        self.qemu_rc = None
        self.timed_out = False
        self.log = ""
        self.log_path = None
        self.runs = []
        self.stray = []
        self.elapsed = 0.0
        self.reason = ""

    @property
    def run(self):
        return self.runs[-1] if self.runs else None

    def records(self, rtype=None):
        if not self.run:
            return []
        recs = [r for _, r in self.run.records] + ([self.run.end] if self.run.end else [])
        return [r for r in recs if rtype is None or r.get("type") == rtype]

    def first(self, rtype):
        recs = self.records(rtype)
        return recs[0] if recs else None


def make_esp(efi, workdir, cfg_text=None, extra_files=None):
    esp = os.path.join(workdir, "esp")
    os.makedirs(os.path.join(esp, "EFI", "BOOT"), exist_ok=True)
    shutil.copyfile(efi, os.path.join(esp, "EFI", "BOOT", "BOOTX64.EFI"))
    if cfg_text is not None:
        with open(os.path.join(esp, "EFI", "BOOT", "pmuboot.cfg"), "w") as f:
            f.write(cfg_text)
    for rel, data in (extra_files or {}).items():
        p = os.path.join(esp, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
    return esp


def judge(res):
    res.runs, res.stray = pmucap.parse(res.log)
    run = res.run
    if res.timed_out:
        res.status, res.reason = TIMEOUT, "time limit reached"
    elif run is None:
        res.status, res.reason = BROKEN, "no records in the capture"
    elif not run.complete:
        res.status, res.reason = BROKEN, "; ".join(run.problems)
    elif res.qemu_rc not in (0, QEMU_CLEAN, QEMU_ERRORS):
        res.status, res.reason = BROKEN, f"QEMU exited {res.qemu_rc}"
    elif run.end.get("status") != "ok" or res.qemu_rc == QEMU_ERRORS:
        res.status, res.reason = RUN_ERRORS, f"run ended with {run.end.get('errors')} error(s)"
    else:
        res.status, res.reason = OK, "clean"
    return res


def boot(efi="build/pmuboot.efi", cpu="max", cfg_text=None, timeout=60, serial=True, drive=None,
         extra_args=(), show=False, log_path=None, memory="512M", extra_files=None, readonly=False,
         keep_dir=None):
    """Boot once and return a judged Result.

    drive: None to boot a FAT directory built from efi/cfg_text, or
    ("disk", image_path) / ("cdrom", iso_path) to boot prepared media.
    readonly: present the directory or disk image as a write-protected disk.
    A writable directory (QEMU's vvfat, fat:rw:) takes the image's writes
    but is unreliable with them: files it creates can come out as zeros.
    Use a disk image (tools/mkusb.sh) to check what the image writes.
    """
    res = Result()
    work = keep_dir or tempfile.mkdtemp(prefix="pmuboot-qemu-")
    os.makedirs(work, exist_ok=True)
    try:
        vars_copy = os.path.join(work, "OVMF_VARS.fd")
        shutil.copyfile(OVMF_VARS, vars_copy)
        res.log_path = log_path or os.path.join(work, "serial.log")
        args = ["qemu-system-x86_64", "-machine", "q35", "-cpu", cpu, "-m", memory,
                "-display", "none", "-no-reboot", "-net", "none", "-monitor", "none",
                "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
                "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}",
                "-device", DEBUG_EXIT]
        if serial:
            args += ["-serial", f"file:{res.log_path}"]
        else:
            args += ["-serial", "none"]
            open(res.log_path, "w").close()
        # QEMU's IDE/AHCI disk refuses a read-only backend ("Block node is read-only"), so a
        # read-only medium is a virtio disk (OVMF drives it and reports it write-protected).
        ro = ",if=virtio,readonly=on" if readonly else ""
        if drive is None:
            esp = make_esp(efi, work, cfg_text, extra_files)
            mode = "fat:" if readonly else "fat:rw:"
            args += ["-drive", f"format=raw,file={mode}{esp}{ro}"]
        elif drive[0] == "disk":
            args += ["-drive", f"format=raw,file={drive[1]}{ro}"]
        elif drive[0] == "cdrom":
            args += ["-drive", f"media=cdrom,readonly=on,file={drive[1]}"]
        else:
            raise ValueError(f"drive must be None, ('disk', path) or ('cdrom', path), not {drive!r}")
        args += list(extra_args)
        res.esp_dir = os.path.join(work, "esp")

        start = time.monotonic()
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        stop = threading.Event()
        shower = None
        if show:
            shower = threading.Thread(target=_follow, args=(res.log_path, stop), daemon=True)
            shower.start()
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            res.timed_out = True
        res.elapsed = time.monotonic() - start
        stop.set()
        if shower:
            shower.join()
        res.qemu_rc = proc.returncode
        res.qemu_output = out.decode("latin-1", "replace")
        with open(res.log_path, "rb") as f:
            res.log = f.read().decode("latin-1")
        return judge(res)
    finally:
        if keep_dir is None and log_path is None:
            res.work = None
            shutil.rmtree(work, ignore_errors=True)
        else:
            res.work = work


def _follow(path, stop):
    """Print the serial log as it grows, without firmware escape sequences."""
    pos = 0
    pending = ""
    while True:
        done = stop.is_set()
        try:
            with open(path, "rb") as f:
                f.seek(pos)
                chunk = f.read()
                pos += len(chunk)
        except FileNotFoundError:
            chunk = b""
        if chunk:
            pending += chunk.decode("latin-1")
            lines = pending.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            pending = lines.pop()
            for line in lines:
                line = pmucap.ANSI_RE.sub("", line).rstrip()
                if line.strip():
                    print(line, flush=True)
        if done:
            if pending.strip():
                print(pmucap.ANSI_RE.sub("", pending).rstrip(), flush=True)
            return
        time.sleep(0.1)
