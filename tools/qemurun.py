"""qemurun - boot a pmuboot image under QEMU/OVMF and judge the run by its records.

Used by tools/run-qemu (the command) and by the QEMU tests.  The serial
line is captured to a log file; the verdict comes from the parsed records
(tools/pmucap), never from QEMU's exit status alone, since a plain QEMU
power-off also exits 0.

A run that finishes with on_finish=halt (or return) leaves QEMU running: once
its `end` record has arrived and QEMU has had END_GRACE_S to finish writing,
the runner stops QEMU itself and judges the run by its records, instead of
waiting for the time limit.

With no record on the serial capture (no UART, serial=off, serial=com2: the
runner captures COM1), a run is judged by QEMU's debug-exit status and the
results file the image saved, when there is one (judge_saved).

Network boot (netboot=): OVMF loads the image by PXE over QEMU's user network,
whose TFTP server serves a directory laid out by tools/mknetboot.sh; inside
the guest the host is 10.0.2.2, and the guest reaches nothing but what the
QEMU process itself connects to on its behalf.
"""
import glob
import os
import re
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
# How much of QEMU's own output a failed run shows (its error is in the last lines).
QEMU_SAID_LINES = 6

# After the end record: time for the image to close its results file and finish by itself.
END_GRACE_S = 3.0
# After asking QEMU to quit (SIGTERM): time before it is killed.
TERM_GRACE_S = 5.0
POLL_S = 0.2
# Finish actions that leave QEMU running after the end record (docs/options.md: on_finish).
STAYS_UP = ("halt", "return")
END_LINE_RE = re.compile(r'^@pmuboot \{"type":"end"', re.M)
# The guest's network card: virtio-net driven by OVMF's own VirtioNetDxe (romfile= keeps QEMU's iPXE ROM
# out, which would run the image twice: ../shared/reference/fleet.md F2).
NIC = "virtio-net-pci,netdev=net0,romfile="
# The address the host has inside QEMU's user network.
HOST_IN_GUEST = "10.0.2.2"
# A record capture.py finds after a run's end: the final upload's outcome (docs/results-format.md, "The upload
# trailer"), which pmucap reports as a record outside every run.
TRAILER_RE = re.compile(r'^line \d+: "?upload"? record before any begin record$')


class Result:
    def __init__(self):
        self.status = BROKEN
        self.qemu_rc = None
        self.timed_out = False
        self.log = ""
        self.qemu_output = ""            # what QEMU itself printed (its errors)
        self.log_path = None
        self.runs = []
        self.stray = []
        self.elapsed = 0.0
        self.reason = ""
        self.stopped_after_end = False   # the runner stopped QEMU after a complete run (on_finish=halt)
        self.saved = []                  # results files the image wrote to its FAT directory, copied out
        self.judged_by = "serial"        # "serial", or "results file" when the capture held no record

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
    """cfg_text: str, or bytes written exactly as given (tools/run-qemu --cfg)."""
    esp = os.path.join(workdir, "esp")
    os.makedirs(os.path.join(esp, "EFI", "BOOT"), exist_ok=True)
    shutil.copyfile(efi, os.path.join(esp, "EFI", "BOOT", "BOOTX64.EFI"))
    if cfg_text is not None:
        data = cfg_text if isinstance(cfg_text, bytes) else cfg_text.encode("latin-1")
        with open(os.path.join(esp, "EFI", "BOOT", "pmuboot.cfg"), "wb") as f:
            f.write(data)
    for rel, data in (extra_files or {}).items():
        p = os.path.join(esp, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
    return esp


def _media(script, efi, out, workdir, cfg_name, cfg_text, extra_args=()):
    """Runs tools/<script> --efi efi --out out [--cfg workdir/cfg_name holding cfg_text] extra_args;
    RuntimeError with the script's own words when it fails."""
    args = [os.path.join(os.path.dirname(os.path.abspath(__file__)), script), "--efi", efi, "--out", out]
    if cfg_text is not None:
        cfg = os.path.join(workdir, cfg_name)
        with open(cfg, "wb") as f:
            f.write(cfg_text if isinstance(cfg_text, bytes) else cfg_text.encode("latin-1"))
        args += ["--cfg", cfg]
    p = subprocess.run(args + list(extra_args), capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        raise RuntimeError(f"{script} failed: " + " ".join(p.stderr.split())[-300:])


def make_netboot(efi, workdir, cfg_text=None, extra_files=None):
    """A network boot root (tools/mknetboot.sh) in workdir/netboot with cfg_text (str or bytes) as its
    pmuboot.cfg and extra_files ({name: str or bytes}, e.g. a pmuboot-<UUID>.cfg) beside it."""
    root = os.path.join(workdir, "netboot")
    _media("mknetboot.sh", efi, root, workdir, "netboot.cfg", cfg_text)
    for rel, data in (extra_files or {}).items():
        with open(os.path.join(root, rel), "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
    return root


def trailer_only(stray):
    """True when every problem outside the runs is an upload trailer (the final upload's record)."""
    return all(TRAILER_RE.match(p) for p in stray)


def judge_saved(res):
    """No record on the serial capture: judge by QEMU's debug-exit status and the saved results file."""
    res.judged_by = "results file"
    path = res.saved[-1]
    with open(path, "rb") as f:
        res.runs, res.stray = pmucap.parse(f.read().decode("latin-1"))
    run = res.run
    where = f"no record on the serial capture; judged by QEMU's debug-exit status and {os.path.basename(path)}"
    if run is None:
        res.status, res.reason = BROKEN, f"{where}: it holds no run"
    elif not run.complete:
        res.status, res.reason = BROKEN, f"{where}: it is damaged: " + "; ".join(run.problems)
    elif res.qemu_rc not in (QEMU_CLEAN, QEMU_ERRORS):
        res.status, res.reason = BROKEN, f"{where}: QEMU exited {res.qemu_rc}, not through the debug-exit device"
    elif (run.end.get("status") == "ok") != (res.qemu_rc == QEMU_CLEAN):
        res.status, res.reason = BROKEN, (f"{where}: they disagree (the file says {run.end.get('status')}, "
                                          f"QEMU exited {res.qemu_rc})")
    elif run.end.get("status") != "ok":
        res.status, res.reason = RUN_ERRORS, f"run ended with {run.end.get('errors')} error(s) ({where})"
    else:
        res.status, res.reason = OK, f"clean ({where})"
    return res


def judge(res):
    res.runs, res.stray = pmucap.parse(res.log)
    run = res.run
    if run is None and not res.timed_out and res.saved:
        return judge_saved(res)
    if res.timed_out:
        res.status, res.reason = TIMEOUT, "time limit reached"
    elif run is None and res.qemu_rc and qemu_said(res):
        # Exit 1 is also the image's clean debug exit; with no record and QEMU's own words, it is QEMU's.
        res.status, res.reason = BROKEN, f"QEMU failed (exit {res.qemu_rc}) before any record"
    elif run is None:
        res.status, res.reason = BROKEN, "no records in the capture"
    elif not run.complete:
        res.status, res.reason = BROKEN, "; ".join(run.problems)
    elif not res.stopped_after_end and res.qemu_rc not in (0, QEMU_CLEAN, QEMU_ERRORS):
        res.status, res.reason = BROKEN, f"QEMU exited {res.qemu_rc}"
    elif run.end.get("status") != "ok" or res.qemu_rc == QEMU_ERRORS:
        res.status, res.reason = RUN_ERRORS, f"run ended with {run.end.get('errors')} error(s)"
    else:
        res.status, res.reason = OK, "clean"
    if res.stopped_after_end and res.status != TIMEOUT:
        res.reason += f" (QEMU stopped by the runner after the end record: on_finish={finish_action(run)})"
    return res


def qemu_said(res, lines=QEMU_SAID_LINES):
    """QEMU's own last lines (its errors), for a run that failed; [] when it said nothing."""
    text = pmucap.ANSI_RE.sub("", res.qemu_output or "").replace("\r", "\n")
    return [line for line in text.split("\n") if line.strip()][-lines:]


def finish_action(run):
    """The on_finish the run's begin record says is in effect ("auto" is shutdown in a VM)."""
    begin = pmucap.first_record(run, "begin") if run else None
    opts = (begin or {}).get("options")
    val = opts.get("on_finish") if isinstance(opts, dict) else None
    return val if isinstance(val, str) else "auto"


def _ended_and_stays_up(log_path, last_size):
    """(size, True when the capture holds a complete run whose finish leaves QEMU up)."""
    try:
        size = os.path.getsize(log_path)
    except OSError:
        return last_size, False
    if size == last_size:
        return size, None
    with open(log_path, "rb") as f:
        text = f.read().decode("latin-1")
    if not END_LINE_RE.search(pmucap.ANSI_RE.sub("", text).replace("\r", "\n")):
        return size, False
    runs, _ = pmucap.parse(text)
    run = runs[-1] if runs else None
    return size, bool(run and run.end is not None and finish_action(run) in STAYS_UP)


def _wait(proc, res, timeout):
    """Wait for QEMU: until it exits, the time limit, or a finished run that leaves it up."""
    start = time.monotonic()
    size, ended_at = -1, None
    while True:
        try:
            proc.wait(timeout=POLL_S)
            return
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now - start >= timeout:
            res.timed_out = True
            break
        if res.log_path and ended_at is None:
            size, done = _ended_and_stays_up(res.log_path, size)
            if done:
                ended_at = now
        if ended_at is not None and now - ended_at >= END_GRACE_S:
            res.stopped_after_end = True
            break
    proc.terminate()
    try:
        proc.wait(timeout=TERM_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def boot(efi="build/pmuboot.efi", cpu="max", cfg_text=None, timeout=60, serial=True, drive=None,
         extra_args=(), show=False, log_path=None, memory="512M", extra_files=None, readonly=False,
         keep_dir=None, save_dir=None, netboot=None, nic=False):
    """Boot once and return a judged Result.

    drive: None to boot a FAT directory built from efi/cfg_text, or
    ("disk", image_path) / ("cdrom", iso_path) to boot prepared media.
    readonly: present the directory or disk image as a write-protected disk.
    A writable directory (QEMU's vvfat, fat:rw:) takes the image's writes
    but is unreliable with them: files it creates can come out as zeros.
    Use a disk image (tools/mkusb.sh) to check what the image writes.
    log_path: keep the serial capture there.  save_dir: copy the results files
    the image wrote to its FAT directory there (res.saved lists them) before
    the working directory goes.  keep_dir: work there and keep everything;
    otherwise the working directory (a temporary one) is always removed.
    netboot: True to boot over the network from a root made of efi, cfg_text and
    extra_files (make_netboot), or the path of a root to serve as it is (make
    netboot's); there is no disk then.  nic: give a disk-booted machine a network
    card too (an upload= from a stick).
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
        if netboot:
            if drive is not None:
                raise ValueError("netboot boots no disk: drive must be None")
            root = netboot if isinstance(netboot, str) else make_netboot(efi, work, cfg_text, extra_files)
            res.netboot_root = root
            # bootindex=0: the card first in OVMF's boot order (PlatformBootManagerLib's SetBootOrderFromQemu).
            args += ["-netdev", f"user,id=net0,tftp={root},bootfile=BOOTX64.EFI", "-device", NIC + ",bootindex=0"]
        elif nic:
            args += ["-netdev", "user,id=net0", "-device", NIC]
        if netboot:
            pass
        elif drive is None:
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
        # QEMU's own output goes to a file, not a pipe nobody reads while waiting.
        out_path = os.path.join(work, "qemu.out")
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        stop = threading.Event()
        shower = None
        if show:
            shower = threading.Thread(target=_follow, args=(res.log_path, stop), daemon=True)
            shower.start()
        try:
            _wait(proc, res, timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        res.elapsed = time.monotonic() - start
        stop.set()
        if shower:
            shower.join()
        res.qemu_rc = proc.returncode
        with open(out_path, "rb") as f:
            res.qemu_output = f.read().decode("latin-1", "replace")
        # QEMU that refused its arguments never opened the serial file.
        try:
            with open(res.log_path, "rb") as f:
                res.log = f.read().decode("latin-1")
        except FileNotFoundError:
            res.log = ""
        if save_dir and drive is None:
            res.saved = copy_results(res.esp_dir, save_dir)
        elif save_dir and drive[0] == "disk":
            res.saved = copy_results_from_image(drive[1], save_dir)
        return judge(res)
    finally:
        if keep_dir is None:
            res.work = None
            shutil.rmtree(work, ignore_errors=True)
        else:
            res.work = work


# tools/mkusb.sh puts the FAT32 partition at 1 MiB.
USB_PART_OFFSET = 1 << 20
MTOOLS_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


def make_usb(efi, workdir, cfg_text=None, kernels=None):
    """A USB disk image (tools/mkusb.sh) in workdir, with cfg_text (str or bytes) as its pmuboot.cfg.

    QEMU's writable FAT directory (vvfat) loses the files the image creates, so a run
    whose results file is to be kept boots a real FAT32 image and copies it out.
    """
    img = os.path.join(workdir, "pmuboot-usb.img")
    # kernels: user kernel files into \pmuboot\kernels\ (docs/kernels.md)
    _media("mkusb.sh", efi, img, workdir, "pmuboot.cfg", cfg_text, ["--kernels", kernels] if kernels else [])
    return img


def copy_results_from_image(img, dest, offset=USB_PART_OFFSET):
    """Copy pmuboot/results-*.jsonl out of a FAT disk image to dest; their new paths ([] when none)."""
    p = subprocess.run(["mdir", "-b", "-i", f"{img}@@{offset}", "::/pmuboot"], capture_output=True,
                       text=True, errors="replace", env=MTOOLS_ENV)
    if p.returncode != 0:
        return []
    out = []
    for line in sorted(p.stdout.split()):
        name = line.rsplit("/", 1)[-1]
        if not re.fullmatch(r"results-\d+\.jsonl", name, re.I):
            continue
        os.makedirs(dest, exist_ok=True)
        dst = os.path.join(dest, name.lower())
        c = subprocess.run(["mcopy", "-n", "-o", "-i", f"{img}@@{offset}", f"::/pmuboot/{name}", dst],
                           capture_output=True, env=MTOOLS_ENV)
        if c.returncode == 0:
            out.append(dst)
    return out


def copy_results(esp, dest):
    """Copy the results files the image saved on its FAT directory to dest; their new paths."""
    out = []
    for src in sorted(glob.glob(os.path.join(esp, "pmuboot", "results-*.jsonl"))):
        os.makedirs(dest, exist_ok=True)
        dst = os.path.join(dest, os.path.basename(src))
        shutil.copyfile(src, dst)
        out.append(dst)
    return out


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
