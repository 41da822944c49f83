"""The collector's dashboard in a real browser: headless Chromium (Debian's chromium) driven through
chromedriver's WebDriver API (plain HTTP to 127.0.0.1, with urllib) against a collector of its own.

One collector holding a small fleet (three machines of one CPU model, one of them with a slower
store-forward block; another CPU model; a failing, a truncated and a forged run), one browser
session, a few pages reached by clicking: the front page lists every machine's runs with their
verdicts, a run's page shows its results table and its plots (loaded), a forged run's page its
reason and no figures, and the SKU page flags the odd machine.  Screenshots are written to
build/collector-screens/ and checked to be pictures of something (not blank)."""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import zlib

from testlib.collector import Collector, upload_text
from testlib import Skip

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
# The machine notes' flags for a quiet headless Chromium (../shared/reference/fleet.md), and a new
# empty profile: it talks to nothing but the collector.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,1800"]
# W3C WebDriver: the key of an element reference in a response.
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class WebDriver:
    """The few WebDriver commands the test needs, over HTTP to a chromedriver on 127.0.0.1."""

    def __init__(self, profile):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen([CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                self.call("GET", "/status")
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise AssertionError("chromedriver did not start") from None
                time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": CHROMIUM, "args": CHROMIUM_ARGS + [f"--user-data-dir={profile}"]}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise AssertionError(f"WebDriver {method} {path}: {e.code} {e.read()[:300]!r}") from None

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.sid}{path}", body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def url(self):
        return self.s("GET", "/url")

    def find(self, css, under=None):
        path = f"/element/{under}/elements" if under else "/elements"
        return [e[ELEMENT] for e in self.s("POST", path, {"using": "css selector", "value": css})]

    def text(self, el):
        return self.s("GET", f"/element/{el}/text")

    def texts(self, css, under=None):
        return [self.text(e) for e in self.find(css, under)]

    def click_link(self, text):
        els = [e[ELEMENT] for e in self.s("POST", "/elements", {"using": "link text", "value": text})]
        assert els, f"no link {text!r} on {self.url()}"
        self.s("POST", f"/element/{els[0]}/click", {})

    def script(self, js):
        return self.s("POST", "/execute/sync", {"script": js, "args": []})

    def screenshot(self, path):
        png = base64.b64decode(self.s("GET", "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)
        return png

    def close(self):
        try:
            self.s("DELETE", "")
        except (AssertionError, OSError):
            pass
        self.proc.kill()
        self.proc.wait()


def png_is_a_picture(png):
    """(width, height) of a PNG whose pixel rows decompress to the size its header says, with more
    than a few distinct byte values (a blank page has two or three)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        chunk = png[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            channels = {2: 3, 6: 4}[colour]
            assert depth == 8, depth
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    raw = zlib.decompress(idat)
    assert len(raw) == height * (1 + width * channels), (len(raw), width, height)
    distinct = len(set(raw[::7]))
    assert distinct > 40, f"the screenshot is nearly blank ({distinct} distinct byte values)"
    return width, height


def test_dashboard_in_headless_chromium(ctx):
    for exe, pkg in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.path.exists(exe):
            raise Skip(f"{exe} is not installed (tools/deps.sh --for test installs {pkg})")
    shots = os.path.join(ctx.build, "collector-screens")
    shutil.rmtree(shots, ignore_errors=True)
    os.makedirs(shots)
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        ids, want = {}, {}
        for name, serial, verdict in (("machine-a.jsonl", "LAB-0001", "PASS"), ("machine-b.jsonl", "LAB-0002", "PASS"),
                                      ("machine-c.jsonl", "LAB-0003", "PASS"), ("other-cpu.jsonl", "LAB-0100", "PASS"),
                                      ("fail-audit.jsonl", "LAB-0001", "FAIL"),
                                      ("truncated.jsonl", "LAB-0001", "INCOMPLETE"),
                                      ("forged-ok.jsonl", "LAB-0001", "INVALID")):
            status, body = c.post(upload_text(name))
            assert status in (201, 400) and body["verdict"] == verdict, (name, status, body)
            ids[name] = body["id"]
            want.setdefault(serial, []).insert(0, (body["id"], verdict))   # newest first
        profile = os.path.join(d, "profile")
        os.makedirs(profile)
        wd = WebDriver(profile)
        try:
            # The front page: every machine, its runs newest first, each with its verdict.
            wd.go(c.url + "/")
            seen = {}
            for block in wd.find("div.machine"):
                name = wd.text(wd.find("h3", block)[0])
                rows = wd.find("table.runs tr", block)[1:]
                seen[name.rsplit(" / ", 1)[1]] = [
                    (int(wd.texts("td", r)[0].split()[1]), wd.texts("span.verdict", r)[0]) for r in rows]
            assert seen == want, (seen, want)
            assert "microcode" in wd.text(wd.find("div.machine .facts")[0])
            png_is_a_picture(wd.screenshot(os.path.join(shots, "index.png")))
            # A run's page, reached by its link: facts, verdict, the results table and both plots drawn.
            wd.click_link(f"run {ids['machine-c.jsonl']}")
            assert wd.url().endswith(f"/runs/{ids['machine-c.jsonl']}"), wd.url()
            assert wd.text(wd.find("#verdict")[0]) == "PASS"
            rows = wd.find("#results tr")[1:]
            assert len(rows) == 23, len(rows)
            cells = {wd.texts("td", r)[0]: wd.texts("td", r) for r in rows}
            sm = cells["store_forward.size_mismatch"]
            assert sm[1] == f"{14.155 * 0.995 + 8:.3f}" and sm[3] == f"{10.099 * 0.995 + 8:+.3f}", sm
            loaded = wd.script("return Array.from(document.images).map(i => [i.complete, i.naturalWidth])")
            assert loaded and all(done and width > 500 for done, width in loaded), loaded
            png_is_a_picture(wd.screenshot(os.path.join(shots, "run.png")))
            # The forged run: INVALID with its reason, and no figures.
            wd.go(f"{c.url}/runs/{ids['forged-ok.jsonl']}")
            assert wd.text(wd.find("#verdict")[0]) == "INVALID"
            reasons = " ".join(wd.texts("#reasons li"))
            assert "end record says status 'ok', 0 error(s), but the records hold 2 run error(s)" in reasons, reasons
            assert wd.find("#results") == [] and wd.find("img.plot") == []
            png_is_a_picture(wd.screenshot(os.path.join(shots, "run-invalid.png")))
            # The SKU page, reached from a run's CPU: three machines, the one with the slow store-forward
            # block flagged (its penalty and its cycles), no other cell.
            wd.go(f"{c.url}/runs/{ids['machine-a.jsonl']}")
            wd.click_link("QEMU TCG CPU version 2.5+")
            assert "/sku?cpu=" in wd.url(), wd.url()
            machines = [t.rsplit(" / ", 1)[1] for t in wd.texts("#machines tr td:first-child")]
            assert sorted(machines) == ["LAB-0001", "LAB-0002", "LAB-0003"], machines
            flagged = wd.texts("#flagged li")
            assert len(flagged) == 2 and all("LAB-0003: store_forward.size_mismatch" in f for f in flagged), flagged
            assert any(" penalty " in f for f in flagged) and any(" cycles " in f for f in flagged), flagged
            header = wd.texts("#comparison tr th")
            col = next(i for i, h in enumerate(header) if h.endswith("LAB-0003"))
            flag_cells = wd.script("return Array.from(document.querySelectorAll('#comparison td.flag'))"
                                   ".map(td => [td.parentElement.cells[0].innerText, td.parentElement.cells[1].innerText,"
                                   " td.cellIndex])")
            assert sorted(map(tuple, flag_cells)) == [("store_forward.size_mismatch", "cycles", col),
                                                       ("store_forward.size_mismatch", "penalty", col)], flag_cells
            png_is_a_picture(wd.screenshot(os.path.join(shots, "sku.png")))
        finally:
            wd.close()
