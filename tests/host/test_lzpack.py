"""tools/lzpack.py, the compressor of the image's tables: its streams decode back (by its own
reference decoder, which lib/unlz.c follows: tests/unit/test_unlz.c runs the C one on streams made
here), the filters undo, and the real catalogue in the build is the tables the generator laid out."""
import os
import random
import re
import struct
import time
import zlib

import lzpack as L


def test_varied_inputs_round_trip(ctx):
    """Empty, one byte, zeros, noise, long and short repeats, and every length around the token
    fields' limits: each decodes to itself; repeats cost a small part of their length."""
    rng = random.Random(26)
    noise = bytes(rng.randrange(256) for _ in range(5000))
    inputs = [b"", b"a", bytes(10000), noise, b"ab" * 5000, noise[:300] * 7]
    inputs += [noise[:n] + noise[:n] for n in range(1, 40)]             # match lengths 1..39
    inputs += [noise[:n] + b"zzzz" for n in range(0, 160, 7)]           # literal runs across 7 and 7+127
    for data in inputs:
        s = L.compress(data)
        assert L.decompress(s, len(data)) == data, (len(data), data[:20])
    assert len(L.compress(bytes(10000))) < 10
    assert len(L.compress(b"ab" * 5000)) < 12
    assert len(L.compress(noise)) <= len(noise) + len(noise) // 100 + 4     # noise costs almost nothing extra


def test_the_decoder_refuses_bad_streams(ctx):
    s = L.compress(b"MEM_LOAD_RETIRED." * 20)
    for n in range(len(s)):
        try:
            L.decompress(s[:n], 17 * 20)
        except L.LzError:
            continue
        raise AssertionError(f"a stream cut to {n} of {len(s)} bytes decoded")
    for bad in (bytes([2 << 5]) + b"ab" + bytes([2, 0]),          # an offset before the start
                bytes([1 << 5 | L.TOKEN_REP]) + b"a" + bytes([0]),   # a repeated offset with none before
                bytes([1 << 5 | 2]) + b"a"):                       # the last command announces a match
        try:
            L.decompress(bad, 5)
        except L.LzError:
            continue
        raise AssertionError(f"{bad!r} decoded")


def test_filters_undo(ctx):
    rng = random.Random(384)
    for stride in (1, 2, 3, 4, 8, 10, 36):
        for n in (0, 1, stride - 1, stride * 5 + 3, 1000):
            data = bytes(rng.randrange(256) for _ in range(n))
            for delta in ((False, True) if stride in (2, 4, 8) else (False,)):
                f = L.filter_table(data, stride, delta)
                assert len(f) == len(data)
                assert L.unfilter_table(f, stride, delta) == data, (stride, n, delta)
    rising = struct.pack("<100H", *range(0, 1000, 10))
    assert L.filter_table(rising, 2, True)[2:100] == bytes([10]) * 98        # planes of the differences


def generated(ctx):
    with open(os.path.join(ctx.build, "gen", "events_table.c"), encoding="utf-8") as f:
        return f.read()


def c_bytes(text, name):
    m = re.search(r"static const uint8_t " + name + r"\[\] = \{(.*?)\};", text, re.S)
    assert m, f"{name} is not in the generated catalogue"
    return bytes(int(x) for x in m.group(1).replace("\n", " ").split(",") if x.strip())


def test_the_built_catalogue_decodes_to_its_tables(ctx):
    """The blob in build/gen/events_table.c, decoded in Python: its size, every table's filter undone,
    the CRC the image checks; it is stored in well under half its size, and encoding it takes seconds."""
    text = generated(ctx)
    stream = c_bytes(text, "events_blob_stream")
    m = re.search(r"const struct unlz_blob events_blob = \{ events_blob_stream, sizeof\(events_blob_stream\), "
                  r"events_blob_dir, ARRAY_SIZE\(events_blob_dir\), (\d+), (\d+), (0x[0-9a-f]+) \};", text)
    assert m, "the blob's descriptor is not in the generated catalogue"
    size, largest, crc = int(m.group(1)), int(m.group(2)), int(m.group(3), 16)
    table_re = re.compile(r"^\t\{ (\d+), (\d+), (\d+), (\d+) \},\t/\* (\w+) \*/$", re.M)
    dirs = [(n, int(o), int(s), int(st), int(d)) for o, s, st, d, n in table_re.findall(text)]
    assert len(dirs) >= 15 and largest == max(s for _, _, s, _, _ in dirs)
    t0 = time.time()
    buf = bytearray(L.decompress(stream, size))
    for name, off, n, stride, delta in dirs:
        buf[off:off + n] = L.unfilter_table(bytes(buf[off:off + n]), stride, delta)
    assert zlib.crc32(bytes(buf)) == crc
    assert len(stream) < size * 45 // 100, (len(stream), size)
    rows = next(d for d in dirs if d[0] == "events_rows")
    assert rows[2] % 8 == 0 and rows[1] % 8 == 0 and rows[3] == 8
    # The encoder again over the same stored bytes gives the same stream (the build is reproducible).
    stored = bytearray(size)
    for name, off, n, stride, delta in dirs:
        stored[off:off + n] = L.filter_table(bytes(buf[off:off + n]), stride, delta)
    t1 = time.time()
    again = L.compress(bytes(stored))
    took = time.time() - t1
    assert again == stream
    print(f"catalogue: {size} bytes -> {len(stream)} stored; Python decode {t1 - t0:.2f} s, encode {took:.1f} s")


def test_layout_asserts_name_each_struct_and_field(ctx):
    """Both generators check the compiler's layout of what they packed with these lines: one per struct
    size and one per field offset, naming the tool that packed it."""
    lines = L.layout_asserts({"struct ev_row": 8}, {("struct ev_row", "code"): 2}, "tools/x.py")
    assert lines == ['_Static_assert(sizeof(struct ev_row) == 8, "struct ev_row: tools/x.py lays it out in 8 bytes");',
                     '_Static_assert(offsetof(struct ev_row, code) == 2, "struct ev_row.code: tools/x.py puts it at '
                     'byte 2");']
    assert L.layout_asserts({}, {}, "t") == []
