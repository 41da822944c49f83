"""QEMU end to end: two machines boot over the network and upload to the real collector.

The whole fleet path of issue 25 with nothing stubbed: `make netboot`'s layout (tools/mknetboot.sh)
served by QEMU's user network, two guests with different SMBIOS identities booting it, each reading
its own pmuboot-<UUID>.cfg from the boot server and POSTing its records through the firmware's
network stack to `pmucap serve` (SQLite, 127.0.0.1 and a free port: the guest reaches it as
10.0.2.2 inside the QEMU process, nothing else is contacted).  Then the collector's API must hold
both runs, each exactly its serial capture's records, judged PASS, told apart by machine; the same
run uploaded again must be stored once; and the two machines must compare.
Skips where Flask and waitress are not installed (tools/deps.sh --for serve).
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

import pmucap
import qemurun
from pmucap.capture import clean_lines
from testlib import run_lines as run_text  # the serial run's record lines, begin to end
from testlib.collector import Collector, server_python


GUEST_HOST = "10.0.2.2"      # the host, seen from inside QEMU's user network
MACHINES = {"RIG-E2E-1": "6b1f0a52-1d3e-4c55-9a61-0f2b3c4d5e61", "RIG-E2E-2": "6b1f0a52-1d3e-4c55-9a61-0f2b3c4d5e62"}
BOOT_TIMEOUT_S = 150

_lock = threading.Lock()
_state = {}


def boot(ctx, serial, uuid, how, out):
    log = os.path.join(tempfile.mkdtemp(prefix="pmuboot-fleet-e2e-log-"), "serial.log")
    atexit.register(shutil.rmtree, os.path.dirname(log), True)
    p = subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "run-qemu"), "--efi", ctx.efi, *how,
                        "--log", log, "--timeout", str(BOOT_TIMEOUT_S), "--",
                        "-smbios", f"type=1,uuid={uuid},serial={serial}"],
                       capture_output=True, text=True, timeout=BOOT_TIMEOUT_S + 60)
    with open(log, "rb") as f:
        out[serial] = {"rc": p.returncode, "stderr": p.stderr, "log": f.read().decode("latin-1")}


def fleet(ctx):
    """Boot both machines once (in parallel) against one collector; the tests read what it holds."""
    with _lock:
        if "fleet" in _state:
            return _state["fleet"]
        server_python()          # Skip here when the collector cannot run
        d = tempfile.mkdtemp(prefix="pmuboot-fleet-e2e-")
        c = Collector(os.path.join(d, "runs.sqlite"))
        root = qemurun.make_netboot(ctx.efi, d, "bench=none\n")  # make netboot's layout
        # Machine 1 as the acceptance boots it: run-qemu's own root, the options on its command
        # line (its pmuboot.cfg); machine 2 from make netboot's layout with its own pmuboot-<UUID>.cfg.
        (s1, u1), (s2, u2) = MACHINES.items()
        url = f"http://{GUEST_HOST}:{c.port}/api/runs"
        with open(os.path.join(root, f"pmuboot-{u2}.cfg"), "w") as f:
            f.write(f"bench=ref reps=5\nupload={url}\n")
        how = {s1: ["--netboot", "--opt", "bench=ref", "--opt", "reps=5", "--opt", f"upload={url}"],
               s2: ["--netboot", root]}
        out = {}
        threads = [threading.Thread(target=boot, args=(ctx, s, u, how[s], out)) for s, u in MACHINES.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        _state["fleet"] = (c, out, d)
        atexit.register(shutil.rmtree, d, True)
        atexit.register(c.kill)
        return _state["fleet"]


def test_each_machine_is_stored_as_its_serial_run_and_passes(ctx):
    c, out, _ = fleet(ctx)
    runs = c.get("/api/runs")[1]["runs"]
    assert len(runs) == 2, (runs, {s: o["log"][-800:] for s, o in out.items()})
    for serial, uuid in MACHINES.items():
        o = out[serial]
        assert o["rc"] == 0, (serial, o["rc"], o["stderr"][-1200:])
        lines = run_text(o["log"])
        assert lines and lines[-1].startswith('{"type":"end"'), o["log"][-1200:]
        status, body = c.get("/api/runs?machine=" + serial)
        assert status == 200 and len(body["runs"]) == 1, (serial, body)
        rid = body["runs"][0]["id"]
        status, one = c.get(f"/api/runs/{rid}")
        assert status == 200, one
        # The stored records are exactly the serial capture's, end record (count, CRC) included.
        assert one["records"] == [json.loads(line) for line in lines], serial
        assert one["run"]["verdict"] == "PASS", one["run"]
        assert one["run"]["system"]["serial"] == serial, one["run"]["system"]
        # The begin record names the config the boot server gave this machine: machine 2 its own by UUID,
        # machine 1 (no file of its own) the server's pmuboot.cfg after trying its UUID's and MAC's.
        want = f"pmuboot-{uuid}.cfg" if serial == list(MACHINES)[1] else "pmuboot.cfg"
        assert one["records"][0]["config"] == f"file tftp://{GUEST_HOST}/{want}", one["records"][0]["config"]
        # The image's own word: its upload record after the run (a 201 from the collector).
        trailer = [json.loads(l[len(pmucap.PREFIX):]) for _, l in clean_lines(o["log"])
                   if l.startswith(pmucap.PREFIX + '{"type":"upload"')]
        assert trailer and trailer[-1]["ok"] is True and trailer[-1]["status"] == 201, trailer


def test_the_same_run_again_is_stored_once_and_the_machines_compare(ctx):
    c, out, _ = fleet(ctx)
    serial = next(iter(MACHINES))
    text = "".join(line + "\n" for line in run_text(out[serial]["log"]))
    before = len(c.get("/api/runs")[1]["runs"])
    status, body = c.post(text)
    assert status == 200, (status, body)          # idempotent: already stored
    assert len(c.get("/api/runs")[1]["runs"]) == before
    ids = sorted(r["id"] for r in c.get("/api/runs")[1]["runs"])
    status, cmp_ = c.get(f"/api/compare?a={ids[0]}&b={ids[1]}")
    assert status == 200 and cmp_["rows"], (status, cmp_)
    variants = {r["variant"] for r in cmp_["rows"]}
    assert "ref.add_chain" in variants, variants
    # A damaged copy of the same run (one figure changed, CRC kept) is refused with the reason.
    forged = text.replace('"reps":5', '"reps":6', 1)
    assert forged != text
    status, body = c.post(forged)
    assert status == 400 and "crc" in json.dumps(body).lower(), (status, body)
