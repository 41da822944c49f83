"""tests/testlib/ - the test library: what the host and QEMU tests share (docs/testing.md).

Here Skip, Context (handed to every test), describe, run_lines, reframe; beside it bench (the bench
records' shape), collector (a pmucap serve of a test's own), cpuid_dumps (the real dumps' table),
matrix (tests/qemu/matrix.cfg), shell (a disk that starts the image from the UEFI shell) and tiers
(tests/tiers.cfg).  A test module imports these, never another test module."""
import os
import subprocess
import sys
import threading

import qemurun
from testlib import matrix


# The build directory: PMUBOOT_BUILD lets several builds (make B=dir) share one checkout.
BUILD = os.environ.get("PMUBOOT_BUILD", "build")


class Skip(Exception):
    """Raised by a test that cannot run here; reported as SKIP with the reason."""


def plot_python():
    """An interpreter that has matplotlib (this one, or Debian's), else Skip: pmucap plot needs it."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(exe) and subprocess.run([exe, "-c", "import matplotlib"],
                                                  capture_output=True).returncode == 0:
            return exe
    raise Skip("matplotlib is not installed (tools/deps.sh installs python3-matplotlib)")


# ../shared beside the checkout (this file is tests/testlib/__init__.py).
SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "..", "shared")


class Context:
    """Handed to every Python test.  Boots are cached by key, so tests that
    assert on the same run share one boot."""

    def __init__(self, root):
        self.root = root
        self.build = os.path.join(root, BUILD)
        self.efi = os.path.join(self.build, "pmuboot.efi")
        self.host = os.path.join(self.build, "pmuboot-host")
        self.shared = os.path.normpath(SHARED)
        self._boots = {}
        self._locks = {}
        self._guard = threading.Lock()

    def boot(self, key=None, **kw):
        """Boot the image (qemurun.boot keywords); the same key returns the same Result.  A key that
        names a boot of tests/qemu/matrix.cfg takes no keywords: its row has them."""
        if key is not None and key in matrix.rows():
            if kw:
                raise matrix.MatrixError(f"boot {key} is declared in tests/qemu/matrix.cfg: ask for it by name "
                                         f"alone, not with {', '.join(sorted(kw))}")
            kw = matrix.row(key).boot_args()
        kw.setdefault("efi", self.efi)
        kw.setdefault("timeout", 90)
        if key is None:
            return qemurun.boot(**kw)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._boots:
                self._boots[key] = qemurun.boot(**kw)
            return self._boots[key]

    def run_host(self, *args, check=False, input=None, timeout=300):
        p = subprocess.run([self.host, *args], capture_output=True, text=True, timeout=timeout, input=input)
        if check:
            assert p.returncode == 0, f"pmuboot-host {' '.join(args)} exited {p.returncode}: {p.stderr[-1500:]}"
        return p

    def shared_path(self, *parts):
        p = os.path.join(self.shared, *parts)
        if not os.path.exists(p):
            raise Skip(f"{p} is not present (../shared is not beside the checkout)")
        return p


def run_lines(text):
    """The JSON texts of the last run's records on a capture, begin to end, as the image wrote them."""
    import pmucap
    from pmucap import capture
    lines, cur = [], None
    for _, line in capture.clean_lines(text):
        if not line.startswith(pmucap.PREFIX):
            continue
        js = line[len(pmucap.PREFIX):].rstrip()
        if js.startswith('{"type":"begin"'):
            cur = []
        if cur is not None:
            cur.append(js)
            if js.startswith('{"type":"end"'):
                lines, cur = cur, None
    return lines


def describe(res):
    """A short account of a boot for assertion messages."""
    tail = res.log[-1500:] if res.log else "(empty capture)"
    return f"status {res.status} ({res.reason}), qemu rc {res.qemu_rc}; serial tail:\n{tail}"


def reframe(records, summary=None):
    """A valid capture (fresh count and CRC) from a list of record dicts, begin first, end excluded.
    Its end record counts the run errors the records hold, as the image does (pmucap/verdict.py);
    summary, a text line, stands just before the last record when given (where the image prints its
    summary line)."""
    import json
    import zlib
    from pmucap import verdict
    lines, crc = [], 0
    for r in records:
        t = json.dumps(r, separators=(",", ":"))
        crc = zlib.crc32((t + "\n").encode("latin-1"), crc)
        lines.append("@pmuboot " + t)
    if summary:
        lines.insert(len(lines) - 1, summary)
    errors = sum(1 for r in records if verdict.run_error(r))
    end = {"type": "end", "status": "error" if errors else "ok", "errors": errors, "records": len(records),
           "crc32": f"{crc:08x}"}
    return "\r\n".join(lines + ["@pmuboot " + json.dumps(end, separators=(",", ":"))]) + "\r\n"


def reframe_file(records, prefix, summary=None):
    """reframe() written to a temporary file; its path (the caller removes it)."""
    import tempfile
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=".log")
    with os.fdopen(fd, "w", encoding="latin-1", newline="") as f:
        f.write(reframe(records, summary))
    return path
