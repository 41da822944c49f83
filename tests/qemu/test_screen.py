"""QEMU: the screen for people.  Boots with a VGA screen, takes a QEMU screendump
after on_finish=halt and checks the picture against what the begin record says
the screen is: the readable layout (a blue title bar, the table header in
reverse video, the summary at the bottom) or, with screen=records, the lines
as they come (no title bar)."""
import json
import os
import shutil
import socket
import tempfile
import threading
import time

from testlib import describe
import qemurun

# EDK II GraphicsConsole draws 8x19 glyphs (MdeModulePkg GraphicsConsole.h EFI_GLYPH_WIDTH/HEIGHT).
GLYPH_W, GLYPH_H = 8, 19


def _qmp(path, commands):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(20)
    s.connect(path)
    f = s.makefile("rw")
    f.readline()  # greeting
    for c in [{"execute": "qmp_capabilities"}] + commands:
        f.write(json.dumps(c) + "\n")
        f.flush()
        while True:
            r = json.loads(f.readline())
            if "return" in r or "error" in r:
                assert "error" not in r, r
                break
    s.close()


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, dims, maxval, pixels = data.split(b"\n", 3)
    assert magic == b"P6" and maxval == b"255", (magic, maxval)
    w, h = map(int, dims.split())
    return w, h, pixels


def shot(ctx, key, cfg_text):
    """Boot with on_finish=halt, screendump once the end record is on serial, then quit QEMU."""
    def run():
        work = tempfile.mkdtemp(prefix="pmuboot-screen-")
        sock, log, ppm = (os.path.join(work, n) for n in ("qmp.sock", "serial.log", "screen.ppm"))
        out = {}

        def boot():
            out["res"] = qemurun.boot(efi=ctx.efi, cfg_text=cfg_text, timeout=150, log_path=log,
                                      keep_dir=work, extra_args=["-vga", "std", "-qmp",
                                                                 f"unix:{sock},server=on,wait=off"])
        t = threading.Thread(target=boot)
        t.start()
        deadline = time.monotonic() + 140
        while time.monotonic() < deadline and t.is_alive():
            if os.path.exists(log) and b'"type":"end"' in open(log, "rb").read():
                break
            time.sleep(0.5)
        if t.is_alive():
            time.sleep(2)  # the summary is drawn after the end record
            _qmp(sock, [{"execute": "screendump", "arguments": {"filename": ppm}},
                        {"execute": "quit"}])
        t.join()
        res = out["res"]
        res.screen = read_ppm(ppm) if os.path.exists(ppm) else None
        shutil.rmtree(work, ignore_errors=True)
        return res
    with ctx._guard:
        lock = ctx._locks.setdefault(key, threading.Lock())
    with lock:
        if key not in ctx._boots:
            ctx._boots[key] = run()
        return ctx._boots[key]


def band(screen, row, x0=0.0, x1=1.0):
    """The pixels of one text row, between fractions x0 and x1 of the width: (r, g, b) tuples."""
    w, h, px = screen
    top = (h % GLYPH_H) // 2  # GraphicsConsole centres the text area in the picture
    out = []
    for y in range(top + row * GLYPH_H, min(h, top + (row + 1) * GLYPH_H)):
        line = px[y * w * 3:(y + 1) * w * 3]
        out += [tuple(line[i * 3:i * 3 + 3]) for i in range(int(x0 * w), int(x1 * w))]
    return out


def lit(p):
    return max(p) > 0x60


def share(pixels, pred):
    return sum(1 for p in pixels if pred(p)) / max(1, len(pixels))


def is_blue(p):
    return p[2] > 0x60 and p[0] < 0x40 and p[1] < 0x40


def is_gray(p):
    return min(p) > 0x60 and max(p) - min(p) < 0x20


CFG = "on_finish=halt\nbench=ref,store_forward.size_mismatch\n"


def readable(ctx):
    return shot(ctx, "screen-readable", CFG)


def test_readable_screen_record_matches_picture(ctx):
    res = readable(ctx)
    assert res.run and res.run.end, describe(res)
    assert res.screen, "no screendump was taken"
    scr = res.run.records[0][1]["screen"]
    assert scr["mode"] == "readable" and scr["consoles"] >= 1, scr
    w, h, _ = res.screen
    assert (scr["columns"], scr["rows"]) == (w // GLYPH_W, h // GLYPH_H), (scr, w, h)


def test_readable_screen_layout(ctx):
    res = readable(ctx)
    assert res.screen, describe(res)
    rows = res.run.records[0][1]["screen"]["rows"]
    # Row 0: the title bar, blue across the width (the text on it is a small share).
    assert share(band(res.screen, 0), is_blue) > 0.7, "no title bar"
    # Row 7 at the end (below Machine, CPU (two rows), PMU, Cache and IBS): the table header, dark text on light gray.
    assert share(band(res.screen, 7), is_gray) > 0.6, "no table header in reverse video"
    # Rows below the table: the summary text is there, and the last row says what happens next.
    shares = [share(band(res.screen, r), lit) for r in range(rows)]
    assert shares[rows - 1] > 0.01, shares
    # The table has one row per figure: 2 reference kernels, a variant and its control; under QEMU
    # there are no events, so each row ends before the middle of the screen (then only the check).
    nbench = len(res.records("bench"))
    assert nbench == 4, res.records("bench")
    assert all(shares[r] > 0.005 for r in range(8, 8 + nbench)), shares
    # The Cache row holds the cache record's levels.
    assert shares[5] > 0.01, shares
    middle = [share(band(res.screen, r, 0.45, 0.9), lit) for r in range(8, 8 + nbench)]
    assert not any(middle), f"table rows run across the screen: {middle}"


def test_records_screen_shows_lines_as_they_come(ctx):
    res = shot(ctx, "screen-records", CFG + "screen=records\n")
    assert res.screen and res.run and res.run.end, describe(res)
    scr = res.run.records[0][1]["screen"]
    assert scr["mode"] == "records", scr
    assert share(band(res.screen, 0), is_blue) < 0.1, "a title bar in screen=records"
    # Records wrap across the full width: many rows are lit in the middle of the screen.
    w, h, _ = res.screen
    middle = [share(band(res.screen, r, 0.45, 0.9), lit) for r in range(h // GLYPH_H)]
    assert sum(1 for m in middle if m > 0.02) >= 5, middle
