#!/usr/bin/env python3
"""tools/lzpack.py - a small LZ77 compressor of our own, and the packed-table blob built on it.

lib/unlz.c is the decoder; lib/unlz.h states the same format for C.  Generators (tools/gen_events.py,
tools/gen_metrics.py) lay their pointer-free tables out in one buffer with Blob, which stores them
filtered and compressed in the image with a small uncompressed directory; the image inflates them
once, at first use.

The stream.  A sequence of commands, each a token byte and what it announces:

    token   bits 7:5  literal count, 0..6; 7: 7 + a varint that follows
            bit  4    the match reuses the previous match's offset (no offset bytes)
            bits 3:0  match length - MIN_MATCH, 0..14; 15: 15 + a varint after the literals
    then    [literal count varint] literals [match length varint] [offset - 1 varint]

A varint is 7 bits a byte, least significant first, bit 7 set on every byte but the last (at most
VARINT_MAX_BYTES).  The match copies `length` bytes from `offset` bytes back in the output (it may
overlap itself: offset 1 repeats a byte).  The stream ends after the literals of its last command:
that command's token has no match bits (bits 4:0 zero), and the decoder, knowing the inflated size,
stops when its input is used up.  The first match may not use the previous offset (there is none).

The blob.  Tables are laid out in the order added, each at an offset aligned as asked; the inflated
buffer is that layout, whose CRC-32 (lib/crc32.h) the directory holds.  Before compression each
table may be filtered: `stride` > 1 stores its bytes by plane (byte 0 of every element, then byte 1,
...), which puts a column's like values side by side; `delta` (stride 2, 4 or 8) stores each element
as a little-endian integer minus the one before it, for rising offsets.  The decoder inflates the
stream behind the tables' final place and undoes each table's filter into it (lib/unlz.c says why
that never overwrites what is still to be read).

    tools/lzpack.py FILE...             compress each file and check the round trip; prints the sizes
    tools/lzpack.py --vectors OUT.h     test vectors for tests/unit/test_unlz.c: varied inputs with
                                        their streams, and a filtered blob, as C arrays
"""
import os
import random
import struct
import sys
import time
import zlib

MIN_MATCH = 3
LIT_FIELD_MAX = 7           # bits 7:5; 7 announces a varint
LEN_FIELD_MAX = 15          # bits 3:0; 15 announces a varint
TOKEN_LIT_SHIFT = 5
TOKEN_REP = 0x10
VARINT_MAX_BYTES = 4        # 28 bits: any length or offset the decoder accepts
CHAIN_MAX = 48              # positions tried per hash bucket: speed against ratio
MATCH_MAX = 1 << 16         # longest match the compressor looks for (the format has no limit)
GOOD_ENOUGH = 128           # a match this long ends the search at its position, and the positions
                            # it covers take its tail as their match instead of searching (zero runs)
SHORT_LENGTHS = MIN_MATCH + LEN_FIELD_MAX   # below this a match's cost does not depend on its length


class LzError(Exception):
    pass


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def varint_len(v):
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


def _match_len(d, i, j, limit):
    """Length of the common run at d[i:] and d[j:] (j < i), at most limit."""
    if d[i:i + MIN_MATCH] != d[j:j + MIN_MATCH]:
        return 0
    lo, step = MIN_MATCH, 16
    while lo < limit:                   # grow in doubling steps, compared by slices (fast in Python)
        hi = min(limit, lo + step)
        if d[i + lo:i + hi] != d[j + lo:j + hi]:
            while lo < hi and d[i + lo] == d[j + lo]:
                lo += 1
            return lo
        lo, step = hi, step * 2
    return lo


def _candidates(d):
    """For each position, matches [(length, offset)] longest last, each longer than the one before
    and at the nearest offset that reaches its length (hash chains over MIN_MATCH bytes)."""
    n = len(d)
    heads, cands = {}, [None] * n
    ride = None         # (start, length, offset) of a long match whose tail later positions take
    for i in range(n - MIN_MATCH + 1):
        key = d[i:i + MIN_MATCH]
        chain = heads.get(key)
        found = []
        if ride and i - ride[0] <= ride[1] - GOOD_ENOUGH:
            found.append((ride[1] - (i - ride[0]), ride[2]))
            chain.append(i)
        elif chain:
            limit = min(MATCH_MAX, n - i)
            best = 0
            for j in reversed(chain[-CHAIN_MAX:]):
                length = _match_len(d, i, j, limit)
                if length > best:
                    best = length
                    found.append((length, i - j))
                    if length >= GOOD_ENOUGH:
                        ride = (i, length, i - j)
                        break
            chain.append(i)
        else:
            heads[key] = [i]
        cands[i] = found
    return cands


def _match_cost(length, offset):
    extra = varint_len(length - MIN_MATCH - LEN_FIELD_MAX) if length - MIN_MATCH >= LEN_FIELD_MAX else 0
    return 1 + extra + varint_len(offset - 1)


def _parse(d):
    """The cheapest split of d into literals and matches, by the cost model above (a literal is a
    byte, a match its token, length and offset bytes): [(literal count, match length, offset)]."""
    n = len(d)
    cands = _candidates(d)
    cost = [0] * (n + 1)
    step = [None] * (n + 1)
    for i in range(n - 1, -1, -1):
        best, how = cost[i + 1] + 1, None
        for length, offset in cands[i] or ():
            # Lengths below SHORT_LENGTHS cost the same, so each is worth trying; above, the longest.
            lengths = range(MIN_MATCH, min(length, SHORT_LENGTHS) + 1)
            for L in lengths:
                c = _match_cost(L, offset) + cost[i + L]
                if c < best:
                    best, how = c, (L, offset)
            if length > SHORT_LENGTHS:
                c = _match_cost(length, offset) + cost[i + length]
                if c < best:
                    best, how = c, (length, offset)
        cost[i], step[i] = best, how
    seqs, i, lits = [], 0, 0
    while i < n:
        if step[i] is None:
            lits += 1
            i += 1
            continue
        length, offset = step[i]
        seqs.append((lits, length, offset))
        lits = 0
        i += length
    seqs.append((lits, 0, 0))
    return seqs


def compress(data):
    """data (bytes) -> the stream (bytes)."""
    d = bytes(data)
    out, pos, last = bytearray(), 0, 0
    for lits, length, offset in _parse(d):
        lit_field = min(lits, LIT_FIELD_MAX)
        rep = length and offset == last
        len_field = min(length - MIN_MATCH, LEN_FIELD_MAX) if length else 0
        out.append(lit_field << TOKEN_LIT_SHIFT | (TOKEN_REP if rep else 0) | len_field)
        if lit_field == LIT_FIELD_MAX:
            out += varint(lits - LIT_FIELD_MAX)
        out += d[pos:pos + lits]
        pos += lits
        if not length:
            break
        if len_field == LEN_FIELD_MAX:
            out += varint(length - MIN_MATCH - LEN_FIELD_MAX)
        if not rep:
            out += varint(offset - 1)
        last = offset
        pos += length
    assert pos == len(d)
    return bytes(out)


def decompress(stream, size, seen=None):
    """What lib/unlz.c does, for the tests: the stream -> size bytes; LzError on a bad stream.
    seen (a set), when given, gets the forms the stream used (FORMS)."""
    seen = set() if seen is None else seen
    out, i, last, n = bytearray(), 0, 0, len(stream)

    def get_varint():
        nonlocal i
        v = 0
        for k in range(VARINT_MAX_BYTES):
            if i >= n:
                raise LzError(f"truncated varint at byte {i}")
            b = stream[i]
            i += 1
            v |= (b & 0x7F) << (7 * k)
            if not b & 0x80:
                return v
        raise LzError(f"varint longer than {VARINT_MAX_BYTES} bytes at byte {i}")

    while True:
        if i >= n:
            raise LzError(f"truncated: no command at byte {i}")
        t = stream[i]
        i += 1
        lits = t >> TOKEN_LIT_SHIFT
        if lits == LIT_FIELD_MAX:
            lits += get_varint()
            seen.add("literal count varint")
        if lits > n - i or lits > size - len(out):
            raise LzError(f"literal run of {lits} at byte {i} passes the end")
        out += stream[i:i + lits]
        i += lits
        if i == n:
            if t & (TOKEN_REP | LEN_FIELD_MAX):
                raise LzError("the last command announces a match")
            break
        length = (t & LEN_FIELD_MAX) + MIN_MATCH
        if t & LEN_FIELD_MAX == LEN_FIELD_MAX:
            at = i
            length += get_varint()
            seen.add("match length varint" + (" of 3 bytes" if i - at == 3 else ""))
        if t & TOKEN_REP:
            if not last:
                raise LzError(f"byte {i}: a repeated offset before any match")
            offset = last
            seen.add("repeated offset")
        else:
            at = i
            offset = get_varint() + 1
            seen.add(f"offset varint of {i - at} bytes")
        if offset > len(out) or length > size - len(out):
            raise LzError(f"byte {i}: match of {length} at offset {offset} outside the output")
        for _ in range(length):
            out.append(out[-offset])
        last = offset
    if len(out) != size:
        raise LzError(f"inflated to {len(out)} bytes, expected {size}")
    return bytes(out)


# The blob ----------------------------------------------------------------------------------------

def filter_table(data, stride, delta):
    """A table's bytes as stored: delta-coded (element = little-endian stride-byte integer) and/or
    split into byte planes.  The tail that fills no element is kept as is."""
    n = len(data) // stride if stride > 1 else 0
    body, tail = bytearray(data[:n * stride]), data[n * stride:]
    if delta:
        if stride not in (2, 4, 8):
            raise LzError(f"delta needs a stride of 2, 4 or 8, not {stride}")
        mask, prev = (1 << (8 * stride)) - 1, 0
        vals = [int.from_bytes(body[k * stride:(k + 1) * stride], "little") for k in range(n)]
        for k, v in enumerate(vals):
            body[k * stride:(k + 1) * stride] = ((v - prev) & mask).to_bytes(stride, "little")
            prev = v
    if stride > 1:
        body = bytearray(body[k * stride + j] for j in range(stride) for k in range(n))
    return bytes(body) + bytes(tail)


def unfilter_table(data, stride, delta):
    """filter_table undone (what lib/unlz.c does)."""
    n = len(data) // stride if stride > 1 else 0
    body, tail = data[:n * stride], data[n * stride:]
    if stride > 1:
        body = bytes(body[j * n + k] for k in range(n) for j in range(stride))
    if delta:
        out, mask, acc = bytearray(), (1 << (8 * stride)) - 1, 0
        for k in range(n):
            acc = (acc + int.from_bytes(body[k * stride:(k + 1) * stride], "little")) & mask
            out += acc.to_bytes(stride, "little")
        body = bytes(out)
    return bytes(body) + bytes(tail)


class Blob:
    """Tables laid out in one buffer and stored compressed (the module's docstring)."""

    def __init__(self):
        self.tables = []        # [(name, offset, bytes, stride, delta)]
        self.size = 0

    def add(self, name, data, align=8, stride=1, delta=False):
        """Places a table; returns its offset in the inflated buffer."""
        off = (self.size + align - 1) // align * align
        self.tables.append((name, off, bytes(data), stride, delta))
        self.size = off + len(data)
        return off

    def layout(self):
        """The inflated buffer."""
        buf = bytearray(self.size)
        for _, off, data, _, _ in self.tables:
            buf[off:off + len(data)] = data
        return bytes(buf)

    def stored(self):
        """The buffer as filtered before compression: same offsets, each table filtered."""
        buf = bytearray(self.size)
        for _, off, data, stride, delta in self.tables:
            buf[off:off + len(data)] = filter_table(data, stride, delta)
        return bytes(buf)

    def build(self):
        """-> (stream, inflated size, CRC-32 of the inflated buffer), checked by decoding it back."""
        stored = self.stored()
        stream = compress(stored)
        back = bytearray(decompress(stream, self.size))
        for _, off, data, stride, delta in self.tables:
            back[off:off + len(data)] = unfilter_table(back[off:off + len(data)], stride, delta)
        layout = self.layout()
        if bytes(back) != layout:
            raise LzError("the blob does not decode to its tables")
        self.stream = stream
        return stream, self.size, zlib.crc32(layout)

    def largest(self):
        return max((len(t[2]) for t in self.tables), default=0)

    def emit_c(self, name, storage=""):
        """C for the blob: the stream, its directory (struct unlz_table, lib/unlz.h) and a
        struct unlz_blob `name` (storage: "static " for a file's own)."""
        stream, size, crc = self.build()
        o = [f"/* {len(self.tables)} tables, {size} bytes, stored in {len(stream)} (tools/lzpack.py). */"]
        o += c_array(f"static const uint8_t {name}_stream[]", list(stream), 24)
        o.append(f"static const struct unlz_table {name}_dir[] = {{")
        for tname, off, data, stride, delta in self.tables:
            o.append(f"\t{{ {off}, {len(data)}, {stride}, {int(delta)} }},\t/* {tname} */")
        o.append("};")
        o.append(f"{storage}const struct unlz_blob {name} = {{ {name}_stream, sizeof({name}_stream), {name}_dir, "
                 f"ARRAY_SIZE({name}_dir), {size}, {self.largest()}, {crc:#010x} }};")
        return o


def pack_rows(fmt, rows, error):
    """Rows (tuples) as structs of the struct module's format fmt, one after another; a row that does not
    fit raises `error` (the generator's own exception class) saying so."""
    try:
        return b"".join(struct.pack(fmt, *r) for r in rows)
    except struct.error as e:
        raise error(f"a table row does not fit its C struct ({fmt}): {e}")


def place_function(func, place):
    """C for where each table is once a blob is inflated: a pointer per table of place ([(name, C type,
    offset)]) and void func(const uint8_t *base) that sets them."""
    o = [f"/* Where each table is once the blob is inflated ({func}). */"]
    o += [f"const {ctype} *{name};" for name, ctype, _ in place]
    o += ["", f"void {func}(const uint8_t *base)", "{"]
    o += [f"\t{name} = (const {ctype} *)(const void *)(base + {off});" for name, ctype, off in place]
    return o + ["}"]


def layout_asserts(struct_sizes, field_offsets, tool):
    """C _Static_asserts that the compiler lays the structs out as `tool` packed them into a blob:
    struct_sizes {ctype: bytes}, field_offsets {(ctype, field): byte}."""
    o = [f"_Static_assert(sizeof({ctype}) == {size}, \"{ctype}: {tool} lays it out in {size} bytes\");"
         for ctype, size in struct_sizes.items()]
    o += [f"_Static_assert(offsetof({ctype}, {field}) == {at}, \"{ctype}.{field}: {tool} puts it at byte {at}\");"
          for (ctype, field), at in field_offsets.items()]
    return o


def write_generated(out, text):
    """A generated file, whole or not at all (a build stopped midway leaves no half file for make to trust)."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, out)


def c_array(decl, items, per_line=16):
    """An initialised C array, per_line items a line."""
    out = [f"{decl} = {{"]
    for i in range(0, len(items), per_line):
        out.append("\t" + ", ".join(str(x) for x in items[i:i + per_line]) + ",")
    return out + ["};"]


def vector_inputs():
    """Inputs that reach every part of the format; the same bytes on every run (a seeded PRNG)."""
    rnd = random.Random(26)
    noise = bytes(rnd.randrange(256) for _ in range(3000))
    far = bytes(rnd.randrange(256) for _ in range(17000))
    phrase = b"MEM_LOAD_RETIRED.L1_HIT,"
    words = [b"UOPS_", b"RETIRED", b".", b"ALL", b"_LOADS", b"L2_", b"MISS", b"\0", b"\x01\x02"]
    return [
        ("empty", b""),
        ("one_byte", b"A"),
        ("all_zero", bytes(4096)),
        ("random", noise),                              # literals only: long literal-run varints
        ("long_repeat", phrase * 300),                  # one long match, a length varint of 2 bytes
        ("byte_run", b"x" + b"y" * 20000 + b"z"),       # offset 1, a length varint of 3 bytes
        ("far_offset", far + b"-" + far[:5000]),        # an offset needing a 3-byte varint
        ("words", b"".join(rnd.choice(words) for _ in range(4000))),    # short matches, repeated offsets
        ("short_lits", bytes(range(7)) + bytes(range(7)) + bytes(range(8)) * 3),
        ("patched", noise[:200] + noise[:60] + b"#" + noise[61:130] + b"$" + noise[131:200]),    # repeated offsets
    ]


def vector_blob():
    """A blob with every filter: plain bytes, planes of 8 and 3, and rising 16- and 32-bit offsets."""
    rnd = random.Random(384)
    b = Blob()
    b.add("text", b"".join(rnd.choice([b"RETIRED\0", b"L1_HIT\0", b"MISS\0"]) for _ in range(300)), 8)
    b.add("rows8", b"".join(struct.pack("<Q", rnd.randrange(1 << 20) << 24 | rnd.randrange(16)) for _ in range(500)),
          8, 8)
    b.add("odd3", bytes(rnd.randrange(4) for _ in range(3 * 101 + 2)), 2, 3)
    acc = 0
    rising = []
    for _ in range(400):
        acc += rnd.randrange(1, 40)
        rising.append(acc)
    b.add("at16", struct.pack(f"<{len(rising)}H", *rising), 2, 2, True)
    b.add("at32", struct.pack(f"<{len(rising)}I", *[v * 70001 for v in rising]), 8, 4, True)
    return b


# What the vectors must use between them, or the decoder's tests prove less than they say.
FORMS = {"literal count varint", "match length varint", "match length varint of 3 bytes", "repeated offset",
         "offset varint of 1 bytes", "offset varint of 2 bytes", "offset varint of 3 bytes"}


def emit_vectors():
    o = ["/* Generated by tools/lzpack.py --vectors - do not edit.  Streams the encoder made, for", " * tests/unit/test_unlz.c. */",
         "#include \"lib/unlz.h\"", "",
         "struct unlz_vector {", "\tconst char *name;", "\tconst uint8_t *raw, *stream;", "\tsize_t raw_n, stream_n;",
         "};", ""]
    entries, seen = [], set()
    for name, raw in vector_inputs():
        stream = compress(raw)
        if decompress(stream, len(raw), seen) != raw:
            raise LzError(f"vector {name} does not round-trip")
        o += c_array(f"static const uint8_t v_{name}_raw[{max(len(raw), 1)}]", list(raw), 32)
        o += c_array(f"static const uint8_t v_{name}_stream[]", list(stream), 32)
        entries.append(f"\t{{ \"{name}\", v_{name}_raw, v_{name}_stream, {len(raw)}, {len(stream)} }},")
    if FORMS - seen:
        raise LzError(f"the vectors never use: {', '.join(sorted(FORMS - seen))}")
    o += ["static const struct unlz_vector unlz_vectors[] = {"] + entries + ["};", ""]
    b = vector_blob()
    o += b.emit_c("vblob", "static ")
    o += c_array("static const uint8_t vblob_layout[]", list(b.layout()), 32)
    return "\n".join(o) + "\n"


def main(argv):
    if argv[:1] == ["--vectors"] and len(argv) == 2:
        write_generated(argv[1], emit_vectors())
        return 0
    for path in argv:
        with open(path, "rb") as f:
            data = f.read()
        t = time.time()
        s = compress(data)
        took = time.time() - t
        if decompress(s, len(data)) != data:
            print(f"{path}: round trip FAILED")
            return 1
        print(f"{path}: {len(data)} -> {len(s)} bytes ({took:.1f} s; zlib -9: {len(zlib.compress(data, 9))})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
