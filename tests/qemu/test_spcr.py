"""QEMU: the console UART from the firmware's ACPI SPCR table (serial=auto).

QEMU adds a table given with -acpitable to those OVMF installs, so a crafted SPCR
naming COM2 (0x2f8) at 57600 baud must move the records to COM2 and the begin record
must say so.  A table naming a UART that is not there falls back to COM1, with a note.
"""
import atexit
import os
import shutil
import struct
import tempfile

import pmucap
import qemurun
from testlib import describe

SPCR_LENGTH = 80           # revision 2 layout (Microsoft SPCR specification)
GAS_SYSTEM_IO = 1          # ACPI 6.5 §5.2.3.2
GAS_ACCESS_BYTE = 1
BAUD_CODE_57600 = 6


def spcr_table(base, baud_code):
    t = bytearray(SPCR_LENGTH)
    t[0:4] = b"SPCR"
    struct.pack_into("<I", t, 4, SPCR_LENGTH)
    t[8] = 2                                   # revision
    t[10:16] = b"PMUTST"
    t[16:24] = b"PMUSPCR "
    t[36] = 0                                  # interface type: full 16550
    struct.pack_into("<BBBBQ", t, 40, GAS_SYSTEM_IO, 8, 0, GAS_ACCESS_BYTE, base)
    t[58] = baud_code
    t[60] = 1                                  # one stop bit
    t[9] = (-sum(t)) & 0xFF                    # checksum: all bytes sum to zero
    return bytes(t)


def boot_with_spcr(ctx, key, base):
    d = tempfile.mkdtemp(prefix="pmuboot-spcr-")
    atexit.register(shutil.rmtree, d, True)
    table = os.path.join(d, "spcr.bin")
    with open(table, "wb") as f:
        f.write(spcr_table(base, BAUD_CODE_57600))
    com2 = os.path.join(d, "com2.log")
    res = ctx.boot(key, cfg_text="bench=none\n",
                   extra_args=["-acpitable", f"file={table}", "-serial", f"file:{com2}"])
    with open(com2, "rb") as f:
        res.com2 = f.read().decode("latin-1")
    return res


def test_spcr_uart_becomes_the_console(ctx):
    res = boot_with_spcr(ctx, "spcr-com2", 0x2F8)
    assert res.qemu_rc == qemurun.QEMU_CLEAN, f"qemu rc {res.qemu_rc}: {res.qemu_output[-400:]}"
    runs, stray = pmucap.parse(res.com2)
    assert runs and runs[-1].complete and not stray, (stray, res.com2[-800:])
    serial = runs[-1].records[0][1]["serial"]
    assert serial["how"] == "ACPI SPCR" and serial["access"] == "io" and serial["base"] == "0x2f8", serial
    assert serial["baud"] == 57600 and serial["active"] is True, serial
    assert serial["spcr"]["usable"] is True and serial["spcr"]["revision"] == 2, serial
    # COM1 carries only the firmware's own output now: no records there.
    assert "@pmuboot" not in res.log, res.log[-600:]


def test_spcr_uart_that_does_not_answer_falls_back_to_com1(ctx):
    # 0x2e8 (COM4) has no device on QEMU's q35 machine: the scratch-register test fails.
    res = boot_with_spcr(ctx, "spcr-missing", 0x2E8)
    assert res.status == qemurun.OK, describe(res)
    serial = res.first("begin")["serial"]
    assert serial["how"] == "default COM1" and serial["base"] == "0x3f8" and serial["active"], serial
    assert "did not answer" in serial["note"], serial
    assert serial["spcr"]["base"] == "0x2e8" and serial["spcr"]["usable"] is True, serial
    assert "@pmuboot" not in res.com2
