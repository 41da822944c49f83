"""pmuboot-host ibs-report: the IBS derived events offline from a capture.

The image path is exercised on the fake hardware by the unit test
build/tests/test_ibs_run, which can leave what it printed as a serial log
(PMUBOOT_IBS_CAPTURE); ibs-report over that log must give the very numbers
the image's own ibs records carry.  A hand-made capture checks the decoding
from bits set by hand, and damaged input must be named.
"""
import json
import os
import subprocess
import tempfile
import zlib

from testlib import Skip

PREFIX = "@pmuboot "
COMPUTED = ("samples", "dropped", "events", "not_available", "ratios", "averages")


def records(text, rtype):
    out = []
    for line in text.splitlines():
        i = line.find(PREFIX)
        if i < 0:
            continue
        try:
            rec = json.loads(line[i + len(PREFIX):].rstrip("\r"))
        except ValueError:
            continue
        if rec.get("type") == rtype:
            out.append(rec)
    return out


def image_capture(ctx):
    exe = os.path.join(ctx.build, "tests", "test_ibs_run")
    if not os.path.exists(exe):
        raise Skip(f"{exe} is not built (make unit)")
    fd, path = tempfile.mkstemp(prefix="ibs-capture-", suffix=".log")
    os.close(fd)
    p = subprocess.run([exe], env=dict(os.environ, PMUBOOT_IBS_CAPTURE=path), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-1000:]
    with open(path, newline="") as f:
        text = f.read()
    return path, text


def test_offline_numbers_equal_the_images(ctx):
    path, text = image_capture(ctx)
    try:
        assert "\r\n" in text, "the capture should look like a serial log"
        image = [r for r in records(text, "ibs") if r.get("available")]
        samples = records(text, "ibs_sample")
        assert len(image) == 3 and len(samples) > 40, (len(image), len(samples))
        p = ctx.run_host("ibs-report", path)
        assert p.returncode == 0, p.stderr
        offline = records(p.stdout, "ibs")
        assert len(offline) == len(image), (len(offline), p.stdout[-2000:])
        for img, off in zip(image, offline):
            assert off["source"] == "capture" and img["source"] == "image"
            for key in ("kernel", "variant", "arena_page", "family", "model", "ibs_caps", "sampled") + COMPUTED:
                assert off[key] == img[key], (key, img["kernel"], img["variant"], img[key], off[key])
        # Every derived event of the seed is in the record: a count, or null where not available.
        ev = offline[0]["events"]
        assert len(ev) == 60 and ev["0xF000"] > 0 and ev["0xF100"] > 0, ev
        assert all(ev[c] is None for c in offline[0]["not_available"])
        assert all(v is not None for c, v in ev.items() if c not in offline[0]["not_available"])
        # The readable table is there too, one per variant.
        assert p.stdout.count("IBS split.load_page") == 2 and "IBS ref.add_chain" in p.stdout
        assert "3 kernel variants decoded" in p.stdout
    finally:
        os.unlink(path)


def sample(kind, regs, family="0x10", model="0x2", kernel="k", variant="v"):
    rec = {"type": "ibs_sample", "kind": kind, "family": family, "model": model, "kernel": kernel,
           "variant": variant, "regs": {k: hex(v) for k, v in regs.items()}}
    return PREFIX + json.dumps(rec, separators=(",", ":"))


B = lambda n: 1 << n  # noqa: E731


def whole_run(lines):
    """Lines wrapped in a begin and an end record whose count and CRC match (a complete run)."""
    begin = PREFIX + '{"type":"begin","format":1,"program":"test","version":"0"}'
    texts = [ln[len(PREFIX):] for ln in [begin] + lines if ln.startswith(PREFIX)]
    crc = 0
    for t in texts:
        crc = zlib.crc32((t + "\n").encode(), crc)
    end = PREFIX + json.dumps({"type": "end", "status": "ok", "errors": 0, "records": len(texts),
                               "crc32": f"{crc:08x}"}, separators=(",", ":"))
    return [begin] + lines + [end]


def test_hand_made_capture(ctx):
    comp, icm, phy, l1m = B(50), B(51), B(52), B(55)
    val_en = B(49) | B(48)
    lines = [
        "Boot noise before the run",
        # Fetch: one killed (latency set, counted nowhere but F000/F001), one IC miss aborted, one completed 2M.
        sample("fetch", {"IbsFetchCtl": val_en | (70 << 32), "IbsFetchLinAd": 0x1000}),
        sample("fetch", {"IbsFetchCtl": val_en | icm | phy | l1m | (40 << 32), "IbsFetchLinAd": 0x1040}),
        "\x1b[1mscreen escape\x1b[0m",
        sample("fetch", {"IbsFetchCtl": val_en | comp | phy | B(53) | (10 << 32), "IbsFetchLinAd": 0x1080}),
        # Ops on Family 10h: bit 38 is reserved there, so this one counts.
        sample("op", {"IbsOpCtl": B(18) | B(17), "IbsOpData": B(37) | B(36) | B(38) | (25 << 16),
                      "IbsOpData3": 0}),
        # A load that missed, served by remote DRAM, 300 cycles.
        sample("op", {"IbsOpCtl": B(18) | B(17), "IbsOpData": 5 << 16, "IbsOpData2": 3 | B(4),
                      "IbsOpData3": B(0) | B(7) | B(17) | (300 << 32)}),
        # A store that missed: DC miss, but no NB data and no load latency.
        sample("op", {"IbsOpCtl": B(18) | B(17), "IbsOpData3": B(1) | B(7) | B(8) | (900 << 32)}),
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write("\r\n".join(lines[:1] + whole_run(lines[1:])) + "\r\n")
        path = f.name
    try:
        p = ctx.run_host("ibs-report", path)
        assert p.returncode == 0, p.stdout[-1500:] + p.stderr
        recs = records(p.stdout, "ibs")
        assert len(recs) == 1, recs
        r = recs[0]
        ev = r["events"]
        assert r["sampled"] == ["fetch", "op"] and r["samples"] == {"fetch": 3, "op": 3}, r
        expect = {
            "0xF000": 3, "0xF001": 1, "0xF002": 2, "0xF003": 1, "0xF004": 1, "0xF005": 1, "0xF006": 1,
            "0xF008": 1, "0xF009": 1, "0xF00A": 1, "0xF00B": 1, "0xF00E": 50,
            "0xF100": 3, "0xF101": 30, "0xF103": 1, "0xF104": 1, "0xF200": 2, "0xF201": 1, "0xF202": 1,
            "0xF203": 1, "0xF206": 2, "0xF207": 0, "0xF208": 1, "0xF219": 300,
            "0xF240": 0, "0xF241": 1, "0xF246": 1, "0xF24B": 0, "0xF24C": 300,
        }
        got = {k: ev[k] for k in expect}
        assert got == expect, {k: (ev[k], v) for k, v in expect.items() if ev[k] != v}
        assert r["not_available"] == [], r["not_available"]  # Family 10h defined every event
        assert r["averages"]["fetch_latency"] == 25.0 and r["averages"]["dc_miss_load_latency"] == 300.0, r
        assert r["ratios"]["ic_miss"] == 0.5 and r["ratios"]["misaligned"] == 0.5, r["ratios"]
        # No ibs record in this capture: the tool says the capabilities were unknown.
        assert "capabilities are unknown" in p.stdout
    finally:
        os.unlink(path)


def test_damaged_input_is_named(ctx):
    good = sample("op", {"IbsOpCtl": B(18) | B(17)})
    bad = sample("op", {"IbsOpCtl": B(18), "IbsFetchCtl": 1})
    cut = good[:len(good) // 2]
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write("\n".join(whole_run([good, bad, "noise", cut])) + "\n")
        path = f.name
    try:
        # The run fails its CRC check (the cut line): refused, by name, unless asked.
        p = ctx.run_host("ibs-report", path)
        assert p.returncode == 1, p.returncode
        errors = records(p.stdout, "error")
        assert len(errors) == 1 and "run 1 (lines 1-6) is damaged" in errors[0]["message"], errors
        assert not records(p.stdout, "ibs"), p.stdout
        p = ctx.run_host("ibs-report", "--allow-incomplete", path)
        assert p.returncode == 1, p.returncode
        assert "read anyway (--allow-incomplete)" in p.stdout
        errors = records(p.stdout, "error")
        assert len(errors) == 2, errors
        assert errors[0]["source"] == f"{path}:3" and "'IbsFetchCtl' is not an IBS op register" in errors[0]["message"]
        assert errors[1]["source"] == f"{path}:5" and "malformed" in errors[1]["message"]
        assert f"{path}:3" in p.stderr
        # The good sample is still decoded.
        assert records(p.stdout, "ibs")[0]["samples"]["op"] == 1
        end = records(p.stdout, "end")[0]
        assert end["status"] == "error" and end["errors"] == 2, end
    finally:
        os.unlink(path)


def test_records_outside_runs_and_lone_cr(ctx):
    """ibs-report reads a capture as pmucap does (lib/capture.h): a sample before any begin belongs
    to no run, is refused by name and never decoded; lines ending in a lone CR are lines, numbered
    as pmucap numbers them."""
    good = sample("op", {"IbsOpCtl": B(18) | B(17)})
    bad = sample("op", {"IbsOpCtl": B(18), "IbsFetchCtl": 1})
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, newline="") as f:
        f.write("\r".join([good] + whole_run([good, bad])) + "\r")
        path = f.name
    try:
        p = ctx.run_host("ibs-report", path)
        assert p.returncode == 1, p.returncode
        errors = records(p.stdout, "error")
        assert errors and errors[0]["source"] == f"{path}:1" and "outside any run" in errors[0]["message"] and \
            "record before any begin record" in errors[0]["message"], errors
        p = ctx.run_host("ibs-report", "--allow-incomplete", path)
        assert "outside any run" in p.stdout and "not read" in p.stdout, p.stdout[-1500:]
        errors = records(p.stdout, "error")
        # The damaged sample is line 4 (begin is line 2): numbered across the lone CRs.
        assert len(errors) == 1 and errors[0]["source"] == f"{path}:4", errors
        assert records(p.stdout, "ibs")[0]["samples"]["op"] == 1     # the stray one is not counted
    finally:
        os.unlink(path)


def test_nothing_to_report(ctx):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write("\n".join(whole_run(['@pmuboot {"type":"ibs","available":false,'
                                      '"reason":"not attempted: GenuineIntel"}'])) + "\n")
        path = f.name
    try:
        p = ctx.run_host("ibs-report", path)
        assert p.returncode == 1 and "did not use IBS" in p.stderr, (p.returncode, p.stderr)
    finally:
        os.unlink(path)
    p = ctx.run_host("ibs-report", "/nonexistent/capture.log")
    assert p.returncode == 1 and "/nonexistent/capture.log" in p.stderr, p.stderr
    p = ctx.run_host("ibs-report")
    assert p.returncode == 2 and "usage" in p.stderr
