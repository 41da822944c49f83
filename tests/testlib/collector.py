"""Helpers for the collector tests (tests/host/test_collector*.py, tests/qemu/test_fleet_collector.py): a `pmucap serve` of their own on
127.0.0.1 and a free port, requests to it (urllib: nothing else is contacted), and the uploads of
tests/fixtures/uploads (make_uploads.py, whose functions also make runs on the fly)."""
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from testlib import Skip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UPLOADS = os.path.join(ROOT, "tests", "fixtures", "uploads")
PMUCAP = os.path.join(ROOT, "tools", "pmucap")
SERVING_RE = re.compile(r"serving on http://([^/]+):(\d+)/")
START_TIMEOUT_S = 30
TOKEN = "test-token-0123456789abcdef"


def _load_make_uploads():
    spec = importlib.util.spec_from_file_location("make_uploads", os.path.join(UPLOADS, "make_uploads.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


make_uploads = _load_make_uploads()


def upload_text(name):
    with open(os.path.join(UPLOADS, name), encoding="latin-1") as f:
        return f.read()


def server_python(extra_modules=()):
    """An interpreter that has Flask and waitress (this one, or Debian's), else Skip."""
    mods = ("flask", "waitress") + tuple(extra_modules)
    for exe in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(exe) and subprocess.run([exe, "-c", "import " + ", ".join(mods)],
                                                  capture_output=True).returncode == 0:
            return exe
    raise Skip(f"{', '.join(mods)} not installed for any Python here (tools/deps.sh --for serve installs "
               "python3-flask, python3-waitress, python3-psycopg2)")


class Collector:
    """A `pmucap serve` child: started on 127.0.0.1:0 (or listen), its port read from its first line."""

    def __init__(self, db, *args, python=None, env=None, listen="127.0.0.1:0", preexec=None):
        self.db, self.args, self.listen = db, list(args), listen
        self.python = python or server_python()
        self.env = env
        self.preexec = preexec
        self.proc = None
        self.lines = []
        self.start()

    def start(self):
        self.lines = []
        self.proc = subprocess.Popen([self.python, PMUCAP, "serve", "--db", self.db, "--listen", self.listen,
                                      *self.args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=self.env, preexec_fn=self.preexec)
        got = threading.Event()

        def drain():
            for line in self.proc.stderr:
                self.lines.append(line.rstrip("\n"))
                if SERVING_RE.search(line):
                    got.set()
            got.set()
        threading.Thread(target=drain, daemon=True).start()
        got.wait(START_TIMEOUT_S)
        m = next((SERVING_RE.search(line) for line in self.lines if SERVING_RE.search(line)), None)
        if m is None:
            self.kill()
            raise AssertionError("the collector did not start:\n" + "\n".join(self.lines[-20:]))
        self.host, self.port = m.group(1), int(m.group(2))
        # Whatever it listens on, the tests reach it through the loopback address only.
        self.url = f"http://127.0.0.1:{self.port}"
        return self

    def request(self, method, path, body=None, token=None, headers=None, timeout=60):
        """(status, parsed JSON or the bytes, headers)."""
        h = dict(headers or {})
        if body is not None and not any(k.lower() == "content-type" for k in h):
            h["Content-Type"] = "application/x-ndjson"   # what the image sends (boot/upload.c)
        if token is not None:
            h["Authorization"] = f"Bearer {token}"
        data = body.encode("latin-1") if isinstance(body, str) else body
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                status, raw, hdrs = r.status, r.read(), r.headers
        except urllib.error.HTTPError as e:
            status, raw, hdrs = e.code, e.read(), e.headers
        ctype = hdrs.get("Content-Type", "")
        return status, (json.loads(raw) if ctype.startswith("application/json") else raw), hdrs

    def post(self, text, token=None):
        return self.request("POST", "/api/runs", text, token=token)[:2]

    def get(self, path):
        return self.request("GET", path)[:2]

    def peak_rss(self):
        """The child's peak resident set (VmHWM), bytes."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) << 10
        raise AssertionError("no VmHWM in /proc/PID/status")

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def kill(self):
        return self.stop(signal.SIGKILL)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()


def wait_for(cond, timeout=10.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(step)
    return cond()


# Runs made on the fly, for the hostile-input tests against SQLite and PostgreSQL.
def with_cpu(recs, **fields):
    return [dict(r, **fields) if r["type"] == "cpu" else r for r in recs]


def live_stages(serial):
    """A run as the image sends it with upload=URL,live: after each stage the records so far (no
    end), each later body holding the live `upload` records before it; then the final body."""
    recs = make_uploads.machine_run(serial)
    cuts = [3, 6, len(recs)]
    sent, bodies, done = [], [], 0
    for n, cut in enumerate(cuts[:-1]):
        sent += recs[done:cut]
        done = cut
        bodies.append("".join(make_uploads.dumps(r) + "\n" for r in sent))
        sent.append({"type": "upload", "final": False, "after": f"stage{n}", "ok": True, "status": 202})
    sent += recs[done:]
    return bodies, make_uploads.frame(sent)


TRAILER = make_uploads.dumps({"type": "upload", "final": True, "after": None, "ok": False, "status": None,
                              "why": "the collector did not answer"}) + "\n"
