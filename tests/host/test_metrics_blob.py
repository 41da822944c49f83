"""The top-down metric tables as the image stores them: one compressed blob (tools/lzpack.py) in
build/gen/metrics_table.c, which pmu/metrics/metrics.c inflates at first use.  Decoded here in Python it
is the tables tools/gen_metrics.py packed, byte for byte, under the CRC the image checks; the counts
beside it agree with the tables' sizes; a damaged stream does not pass for the tables."""
import os
import re
import struct
import zlib

import gen_metrics as G
import lzpack as L

TABLE_RE = re.compile(r"^\t\{ (\d+), (\d+), (\d+), (\d+) \},\t/\* (\w+) \*/$", re.M)


def generated(ctx):
    with open(os.path.join(ctx.build, "gen", "metrics_table.c"), encoding="utf-8") as f:
        return f.read()


def blob_of(text):
    """(stream, size, largest, crc, [(name, offset, size, stride, delta)]) from the generated C."""
    m = re.search(r"static const uint8_t mt_blob_stream\[\] = \{(.*?)\};", text, re.S)
    assert m, "mt_blob_stream is not in the generated tables"
    stream = bytes(int(x) for x in m.group(1).replace("\n", " ").split(",") if x.strip())
    d = re.search(r"const struct unlz_blob mt_blob = \{ mt_blob_stream, sizeof\(mt_blob_stream\), mt_blob_dir, "
                  r"ARRAY_SIZE\(mt_blob_dir\), (\d+), (\d+), (0x[0-9a-f]+) \};", text)
    assert d, "the blob's descriptor is not in the generated tables"
    dirs = [(n, int(o), int(s), int(st), int(dl)) for o, s, st, dl, n in TABLE_RE.findall(text)]
    return stream, int(d.group(1)), int(d.group(2)), int(d.group(3), 16), dirs


def inflate(stream, size, dirs):
    buf = bytearray(L.decompress(stream, size))
    for _, off, n, stride, delta in dirs:
        buf[off:off + n] = L.unfilter_table(bytes(buf[off:off + n]), stride, delta)
    return bytes(buf)


def test_the_built_blob_decodes_to_the_generators_tables(ctx):
    """Every table of the blob, decoded and unfiltered, is what gen_metrics packs from events/metrics/;
    the whole is the CRC the image checks; tables start aligned; stored in well under its size."""
    stream, size, largest, crc, dirs = blob_of(generated(ctx))
    buf = inflate(stream, size, dirs)
    assert zlib.crc32(buf) == crc
    assert largest == max(n for _, _, n, _, _ in dirs)
    assert all(off % G.TABLE_ALIGN == 0 for _, off, _, _, _ in dirs)
    assert len(stream) < size * 65 // 100, (len(stream), size)

    c = G.compile_all(os.path.join(ctx.root, "events"))
    text, tok_off, codes, str_off = c["strs"].pack()
    want = {name: data for name, _, data, _, _ in G.pack_tables(c, text, tok_off, codes, str_off)}
    assert sorted(want) == sorted(n for n, _, _, _, _ in dirs)
    for name, off, n, _, _ in dirs:
        assert buf[off:off + n] == want[name], f"{name}: the blob holds other bytes than the generator packed"
    # What the blob holds is the DAG: node i's operands decode to the generator's, op and references.
    nodes = want["mt_nodes"]
    for i in range(0, len(c["dag"].nodes), 97):
        (word,) = struct.unpack_from("<I", nodes, 4 * i)
        op, a, b = c["dag"].nodes[i]
        assert word & 0xF == G.OPS.index(op)
        assert (word >> 4) & 0x3FFF == G.Dag.code(a) and word >> 18 == G.Dag.code(b)


def test_the_counts_beside_the_blob_agree_with_it(ctx):
    """mt_node_count and the other counts are the tables' sizes in elements."""
    text = generated(ctx)
    _, _, _, _, dirs = blob_of(text)
    sizes = {name: n for name, _, n, _, _ in dirs}
    count = {k: int(v) for k, v in re.findall(r"^const uint16_t (mt_\w+) = (\d+);$", text, re.M)}
    element = {"mt_node_count": ("mt_nodes", 4), "mt_number_count": ("mt_numbers", G.STRUCT_SIZES["struct mnum"]),
               "mt_input_count": ("mt_inputs", G.STRUCT_SIZES["struct mt_input"]),
               "mt_table_count": ("mt_tables", G.STRUCT_SIZES["struct metrics_table"]),
               "mt_token_count": ("mt_token_at", 2), "mt_codes_size": ("mt_codes", 1)}
    assert sorted(count) == sorted(element), count
    for k, (table, width) in element.items():
        assert count[k] * width == sizes[table], (k, count[k], table, sizes[table])
    assert count["mt_table_count"] >= 20


def test_a_damaged_stream_is_not_taken_for_the_tables(ctx):
    """Any one byte of the stream changed: the decoder refuses it, or the CRC does not match."""
    stream, size, _, crc, dirs = blob_of(generated(ctx))
    for at in list(range(0, len(stream), max(1, len(stream) // 40))) + [len(stream) - 1]:
        bad = bytearray(stream)
        bad[at] ^= 0x5A
        try:
            got = inflate(bytes(bad), size, dirs)
        except L.LzError:
            continue
        assert zlib.crc32(got) != crc, f"byte {at} changed and the tables still pass"
