"""QEMU: firmware strings and a config file that try to forge records.

A rig trusts the records in a serial capture.  Here the firmware's SMBIOS
product string is a record line (and, in a second boot, a newline and a
record line), and pmuboot.cfg carries record lines, control characters and a
byte order mark.  The capture must be judged clean, hold exactly the records
the program wrote (the end record's count), and show the strings only
escaped in text lines.
"""
import re

import qemurun
from testlib import describe

FORGED = '@pmuboot {"type":"end","status":"ok","errors":0,"records":1,"crc32":"00000000"}'
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


def serial_lines(res):
    return ANSI.sub("", res.log).replace("\r", "\n").split("\n")


def assert_only_own_records(res):
    assert res.run is not None and res.run.complete, describe(res)
    assert not res.stray and not res.run.problems, (res.stray, res.run.problems)
    assert len(res.runs) == 1, f"{len(res.runs)} runs in the capture"
    end = res.run.end
    assert len(res.run.records) == end["records"], (len(res.run.records), end["records"])
    # Every line holding the marker is one of the program's records, at the start of the line.
    marked = [ln for ln in serial_lines(res) if "@pmuboot" in ln]
    assert len(marked) == end["records"] + 1, [ln for ln in marked if not ln.startswith("@pmuboot {")][:5]
    assert all(ln.startswith("@pmuboot {") for ln in marked), [ln for ln in marked if not ln.startswith("@pmuboot {")]


def smbios_boot(ctx, key, product):
    # QEMU option values escape a comma by doubling it.
    arg = "type=1,product=" + product.replace(",", ",,")
    return ctx.boot(key, cfg_text="bench=none\n", extra_args=["-smbios", arg], timeout=120)


def test_smbios_product_cannot_forge_a_record(ctx):
    res = smbios_boot(ctx, "hostile-smbios", FORGED)
    assert res.status == qemurun.OK, describe(res)
    assert_only_own_records(res)
    plat = res.first("platform")
    # The record keeps the string as read (fwtables/smbios.c keeps 63 bytes of it).
    assert plat["smbios"]["system_product"] == FORGED[:63], plat["smbios"]
    text = [ln for ln in serial_lines(res) if ln.startswith("platform: ") and "pmuboot" in ln]
    assert len(text) == 1 and "\\x40pmuboot {" in text[0], text


def test_smbios_newline_cannot_start_a_line(ctx):
    res = smbios_boot(ctx, "hostile-smbios-newline", "QEMU\n" + FORGED)
    assert res.status == qemurun.OK, describe(res)
    assert_only_own_records(res)
    text = [ln for ln in serial_lines(res) if ln.startswith("platform: ") and "pmuboot" in ln]
    assert len(text) == 1 and "QEMU\\x0a\\x40pmuboot {" in text[0], text


HOSTILE_CFG = ("\ufeffbench=none reps=3\n"
               + FORGED + "\n"
               + "bogus=\x1b[2J\r" + FORGED + "\n"
               + "events=x\n@pmuboot {\"type\":\"error\"}=1\n").encode("utf-8")


def test_hostile_config_is_reported_not_obeyed(ctx):
    res = ctx.boot("hostile-cfg", extra_files={"EFI/BOOT/pmuboot.cfg": HOSTILE_CFG}, timeout=120)
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    assert_only_own_records(res)
    begin = res.first("begin")
    # The byte order mark was skipped: the first key was read.
    assert begin["options"]["bench"] == "none" and begin["options"]["reps"] == "3", begin["options"]
    errors = res.records("error")
    sources = sorted(e["source"] for e in errors)
    assert all(s.endswith(("pmuboot.cfg:2", "pmuboot.cfg:3", "pmuboot.cfg:4", "pmuboot.cfg:5")) for s in sources), sources
    assert res.run.end["errors"] == len(errors) >= 4, (res.run.end, errors)
    assert any(e["what"].startswith("@pmuboot") for e in errors), errors
    text = [ln for ln in serial_lines(res) if ln.startswith("error: ")]
    assert len(text) == len(errors) and all("@pmuboot" not in ln for ln in text), text
    assert sum("\\x40pmuboot" in ln for ln in text) >= 3, text


def test_large_config_is_read_whole(ctx):
    # 200 KiB of comments before the options (the old limit was 16 KiB, which dropped the whole file).
    padding = "".join(f"# line {i:06d} of a long, commented pmuboot.cfg ................\n" for i in range(3200))
    cfg = (padding + "bench=none reps=4\n").encode("ascii")
    assert len(cfg) > 200 * 1024
    res = ctx.boot("large-cfg", extra_files={"EFI/BOOT/pmuboot.cfg": cfg}, timeout=120)
    assert res.status == qemurun.OK, describe(res)
    opts = res.first("begin")["options"]
    assert opts["bench"] == "none" and opts["reps"] == "4", opts


def test_utf16_config_is_refused_with_its_reason(ctx):
    cfg = "\ufeffbench=none reps=4\n".encode("utf-16-le")
    res = ctx.boot("utf16-cfg", extra_files={"EFI/BOOT/pmuboot.cfg": cfg}, timeout=180)
    assert res.status == qemurun.RUN_ERRORS, describe(res)
    errors = res.records("error")
    assert len(errors) == 1 and "UTF-16LE, byte order mark FF FE" in errors[0]["message"], errors
    assert errors[0]["source"].endswith("pmuboot.cfg"), errors
    assert res.first("begin")["options"]["reps"] != "4"
