"""QEMU: a fleet's machine: network boot, options from the boot server by SMBIOS UUID or MAC, the
records POSTed to a collector, and run-qemu's verdict when there is no serial capture.

Every collector here is tests/upload_server.py, started by the test on 127.0.0.1 and a free port;
the guest reaches it as 10.0.2.2 through QEMU's user network, so the bytes never leave the QEMU
process and this machine.  Boots are shared between the tests that look at them (one per key).
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

import pmucap
import qemurun
import upload_server
from pmucap.capture import clean_lines
from testlib import describe, run_lines

UUID_A = "4c4c4544-0042-3510-8056-b8c04f4e3532"
UUID_B = "00112233-4455-6677-8899-aabbccddeeff"
# QEMU's default MAC for the first card, as a config name and as the records write it.
MAC_NAME, MAC_TEXT = "525400123456", "52:54:00:12:34:56"
TOKEN = "tok-4242-secret"
SHORT_TIMEOUT_S = 8      # upload=...,timeout=8: the bound the failing uploads must keep
BOOT_TIMEOUT_S = 120

_cache = {}
_guard = threading.Lock()


def _cached(key, make):
    with _guard:
        lock = _cache.setdefault(key + ".lock", threading.Lock())
    with lock:
        if key not in _cache:
            _cache[key] = make()
        return _cache[key]


def _tmpdir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


def trailer(text):
    """The final upload's record: the first record after the run's end record."""
    seen_end = False
    for _, line in clean_lines(text):
        if not line.startswith(pmucap.PREFIX):
            continue
        rec = json.loads(line[len(pmucap.PREFIX):])
        if seen_end:
            return rec
        seen_end = rec["type"] == "end"
    return None


def begin_of(res):
    return res.first("begin")


# ---- boot A: make netboot's layout served as it is, through tools/run-qemu --netboot DIR ----------

def boot_a(ctx):
    """UUID_A with its own pmuboot-<UUID>.cfg asking for an upload (firmware HTTP, a token)."""
    def make():
        srv = upload_server.Collector()
        d = _tmpdir("pmuboot-fleet-a-")
        root = qemurun.make_netboot(ctx.efi, d, "bench=none\n")  # make netboot's layout
        with open(os.path.join(root, f"pmuboot-{UUID_A}.cfg"), "w") as f:
            f.write(f"bench=ref reps=5\nupload={srv.url()}\nupload_token={TOKEN}\n")
        log = os.path.join(d, "serial.log")
        p = subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "run-qemu"), "--efi", ctx.efi,
                            "--netboot", root, "--log", log, "--timeout", str(BOOT_TIMEOUT_S), "--",
                            "-smbios", f"type=1,uuid={UUID_A},serial=RIG-A"],
                           capture_output=True, text=True, timeout=BOOT_TIMEOUT_S + 60)
        with open(log, "rb") as f:
            text = f.read().decode("latin-1")
        runs, _ = pmucap.parse(text)
        return {"rc": p.returncode, "stderr": p.stderr, "log": text, "run": runs[-1] if runs else None, "srv": srv}
    return _cached("fleet-a", make)


def test_netboot_upload_is_the_serial_run(ctx):
    a = boot_a(ctx)
    assert a["rc"] == 0, (a["rc"], a["stderr"][-1500:])
    run = a["run"]
    assert run and run.complete, a["log"][-1500:]
    lines = run_lines(a["log"])
    assert lines[0].startswith('{"type":"begin"') and lines[-1] == json.dumps(run.end, separators=(",", ":"))
    posts = a["srv"].posts
    assert len(posts) == 1, [(p.path, len(p.body)) for p in posts]
    post = posts[0]
    # Exactly the serial capture's records, begin to end (its count and CRC), one per LF-ended line.
    assert post.body == "".join(l + "\n" for l in lines).encode("latin-1"), (len(post.body), len(lines))
    stored, stray = pmucap.parse(post.body.decode("latin-1"))
    assert not stray and len(stored) == 1 and stored[0].complete and stored[0].end == run.end
    assert post.path == "/api/runs"
    h = post.headers
    assert h["content-type"] == "application/x-ndjson" and h["x-pmuboot-upload"] == "final", h
    assert h["authorization"] == f"Bearer {TOKEN}" and h["user-agent"].startswith("pmuboot/"), h
    assert h["content-length"] == str(len(post.body)) and h["host"] == f"10.0.2.2:{a['srv'].port}", h


def test_netboot_upload_record_says_how(ctx):
    a = boot_a(ctx)
    up = trailer(a["log"])
    assert up and up["type"] == "upload" and up["final"] is True, up
    assert up["ok"] is True and up["status"] == 201 and up["why"] is None, up
    # Debian's OVMF has EFI_HTTP_PROTOCOL (HttpDxe): the firmware's client carried it.
    assert up["via"] == "http" and up["protocol"] == "EFI_HTTP_PROTOCOL" and up["fallback"] is None, up
    body = a["srv"].posts[0].body
    assert up["bytes"] == len(body) and up["lines"] == body.count(b"\n") == a["run"].end["records"] + 1, up
    assert up["address"] == "pxe" and up["station"] == "10.0.2.15" and up["mac"] == MAC_TEXT, up
    assert up["attempts"] == 1 and '"stored": true' in up["response"], up
    assert up["elapsed_ms"] <= up["timeout_ms"], up
    assert "run-qemu: upload to " in a["stderr"] and ": stored" in a["stderr"], a["stderr"][-800:]
    # The token goes to the collector only: never on the serial line, the begin record says it is set.
    assert TOKEN not in a["log"]
    begin = a["run"].records[0][1]
    assert begin["options"]["upload_token"] == "(set)" and begin["upload"]["token"] is True, begin["upload"]
    assert begin["upload"]["url"] == a["srv"].url(), begin["upload"]


def test_netboot_config_and_identity_by_uuid(ctx):
    a = boot_a(ctx)
    begin = a["run"].records[0][1]
    assert begin["config"] == f"file tftp://10.0.2.2/pmuboot-{UUID_A}.cfg", begin["config"]
    tried = begin["config_tried"]
    assert [t["kind"] for t in tried] == ["uuid", "mac", "default"], tried
    assert tried[0]["result"] == "used" and tried[1]["result"].startswith("not asked"), tried
    assert begin["options"]["reps"] == "5" and begin["options"]["bench"] == "ref", begin["options"]
    assert begin["results"]["file"] is None, begin["results"]     # no disk: nothing saved locally
    plat = pmucap.first_record(a["run"], "platform")
    assert plat["smbios"]["system_uuid"] == UUID_A and plat["smbios"]["system_serial"] == "RIG-A", plat["smbios"]
    assert plat["network"] == {"boot": "pxe", "mac": MAC_TEXT, "station": "10.0.2.15", "server": "10.0.2.2",
                               "boot_file": "BOOTX64.EFI"}, plat["network"]


# ---- boot B: another machine, its own UUID, the project's TCP4 client and live uploads -----------

def boot_b(ctx):
    def make():
        srv = upload_server.Collector()
        files = {f"pmuboot-{UUID_A}.cfg": "bench=ref reps=5\n",
                 f"pmuboot-{UUID_B}.cfg": f"bench=ref reps=7\nupload={srv.url('/fleet/in')},tcp4,live\n"}
        res = qemurun.boot(efi=ctx.efi, netboot=True, cfg_text="bench=none\n", extra_files=files,
                           extra_args=["-smbios", f"type=1,uuid={UUID_B}"], timeout=BOOT_TIMEOUT_S)
        res.srv = srv
        return res
    return _cached("fleet-b", make)


def test_second_machine_picks_its_own_uuid_cfg(ctx):
    res = boot_b(ctx)
    assert res.status == qemurun.OK, describe(res)
    begin = begin_of(res)
    assert begin["config"] == f"file tftp://10.0.2.2/pmuboot-{UUID_B}.cfg", begin["config"]
    assert begin["config_tried"][0]["result"] == "used", begin["config_tried"]
    assert begin["options"]["reps"] == "7", begin["options"]
    assert res.first("platform")["smbios"]["system_uuid"] == UUID_B
    # Machine A, booted from a root holding both files, took its own.
    assert boot_a(ctx)["run"].records[0][1]["options"]["reps"] == "5"


def test_tcp4_client_and_live_uploads(ctx):
    res = boot_b(ctx)
    assert res.status == qemurun.OK, describe(res)
    posts = res.srv.posts
    kinds = [p.headers["x-pmuboot-upload"] for p in posts]
    assert kinds[-1] == "final" and kinds.count("final") == 1 and kinds.count("live") >= 5, kinds
    final = posts[-1].body
    assert final == "".join(l + "\n" for l in run_lines(res.log)).encode("latin-1")
    # Each live upload is the run so far: a prefix of the next, without an end record.
    for earlier, later in zip(posts, posts[1:]):
        assert later.body.startswith(earlier.body) and len(later.body) > len(earlier.body)
    assert all(b'"type":"end"' not in p.body for p in posts[:-1])
    live = res.records("upload")
    assert len(live) == kinds.count("live"), live
    assert all(u["final"] is False and u["ok"] is True and u["via"] == "tcp4" for u in live), live
    assert [u["after"] for u in live][:3] == ["identify", "topology", "timing"], [u["after"] for u in live]
    up = trailer(res.log)
    assert up["ok"] is True and up["via"] == "tcp4" and up["protocol"] == "EFI_TCP4_PROTOCOL", up
    assert up["status"] == 201 and up["url"] == res.srv.url("/fleet/in"), up


# ---- boot C: no UUID, a MAC-named file, a collector that never answers ---------------------------

def boot_c(ctx):
    def make():
        srv = upload_server.Collector("stall")
        files = {f"pmuboot-{MAC_NAME}.cfg": f"bench=ref\nupload={srv.url()},timeout={SHORT_TIMEOUT_S}\n"}
        res = qemurun.boot(efi=ctx.efi, netboot=True, cfg_text="bench=none\n", extra_files=files,
                           timeout=BOOT_TIMEOUT_S)
        res.srv = srv
        srv.close()
        return res
    return _cached("fleet-c", make)


def test_mac_cfg_when_there_is_no_uuid(ctx):
    res = boot_c(ctx)
    tried = begin_of(res)["config_tried"]
    assert tried[0]["result"].startswith("skipped") and "UUID" in tried[0]["result"], tried
    assert tried[1]["file"] == f"tftp://10.0.2.2/pmuboot-{MAC_NAME}.cfg" and tried[1]["result"] == "used", tried
    assert begin_of(res)["options"]["bench"] == "ref"
    assert res.first("platform")["smbios"]["system_uuid"] is None


def test_stalled_collector_is_bounded_and_no_run_error(ctx):
    res = boot_c(ctx)
    # Not a run error: the run ends ok and QEMU's debug-exit says clean.
    assert res.status == qemurun.OK and res.qemu_rc == qemurun.QEMU_CLEAN, describe(res)
    assert len(res.srv.posts) >= 1        # the request arrived; no answer ever came
    up = trailer(res.log)
    assert up["ok"] is False and up["status"] is None and up["why"], up
    assert "time" in up["why"] and up["efi_status"] == "EFI_TIMEOUT", up
    assert up["timeout_ms"] == SHORT_TIMEOUT_S * 1000 and up["elapsed_ms"] <= up["timeout_ms"] + 1000, up
    assert "upload: not stored" in res.log


# ---- boot D: a disk boot with a network card, a collector nobody listens for -----------------------

def boot_d(ctx):
    def make():
        d = _tmpdir("pmuboot-fleet-d-")
        port = upload_server.free_port()
        cfg = f"bench=ref\nupload=http://10.0.2.2:{port}/api/runs,timeout={SHORT_TIMEOUT_S}\n"
        img = qemurun.make_usb(ctx.efi, d, cfg)
        res = qemurun.boot(efi=ctx.efi, drive=("disk", img), nic=True, save_dir=os.path.join(d, "saved"),
                           timeout=BOOT_TIMEOUT_S)
        res.port = port
        return res
    return _cached("fleet-d", make)


def test_refused_upload_keeps_the_local_results(ctx):
    res = boot_d(ctx)
    assert res.status == qemurun.OK, describe(res)
    up = trailer(res.log)
    assert up["ok"] is False and up["status"] is None, up
    assert up["efi_status"] in ("EFI_CONNECTION_RESET", "EFI_CONNECTION_REFUSED"), up
    assert up["attempts"] >= 1 and up["elapsed_ms"] <= SHORT_TIMEOUT_S * 1000 + 1000, up
    # A disk boot got its address by DHCP (and put the NIC's policy back afterwards).
    assert up["address"] == "dhcp" and up["mac"] == MAC_TEXT, up
    assert res.first("platform")["network"] is None
    # The results file holds the whole run, then the upload record after its end.
    assert len(res.saved) == 1, res.saved
    with open(res.saved[0], "rb") as f:
        saved = f.read().decode("latin-1")
    lines = run_lines(res.log)
    assert saved == "".join(l + "\n" for l in lines) + json.dumps(up, separators=(",", ":")) + "\n"
    runs, stray = pmucap.parse(saved)
    assert runs[-1].complete and qemurun.trailer_only(stray) and len(stray) == 1, stray


# ---- run-qemu without a serial capture --------------------------------------------------------------

def run_qemu(ctx, *args):
    return subprocess.run([sys.executable, os.path.join(ctx.root, "tools", "run-qemu"), "--efi", ctx.efi,
                           "--timeout", "90", *args], capture_output=True, text=True, timeout=200, cwd=ctx.root)


def test_run_qemu_no_serial_clean_run_exits_0(ctx):
    p = run_qemu(ctx, "--no-serial", "--opt", "bench=ref")
    assert p.returncode == 0, (p.returncode, p.stderr[-1500:])
    assert "judged by QEMU's debug-exit status (exit 1) and the results file" in p.stderr, p.stderr


def test_run_qemu_serial_off_run_with_errors_exits_1(ctx):
    # serial=off: nothing on the capture; the results file and QEMU's exit 3 say "errors".
    p = run_qemu(ctx, "--opt", "serial=off", "--opt", "bench=ref", "--opt", "reps=many")
    assert p.returncode == 1, (p.returncode, p.stderr[-1500:])
    assert re.search(r"run ended with 1 error\(s\) \(no record on the serial capture", p.stderr), p.stderr
