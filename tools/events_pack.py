"""tools/events_pack.py - the compact forms tools/gen_events.py writes the event catalogue in.

events/events_table.h is the C side of each form; events/events.c decodes them on access.

Names.  An event name is split at its last dot into a prefix and a last part
("MEM_LOAD_RETIRED" + "L1_HIT"), each part stored once however many events and sets use it.
A part is a string of tokens (text up to and including a '.' or '_': "MEM_", "LOAD_", "RETIRED"),
and is stored as one code per token, ended by 0: codes 1..TOKEN_ONE_BYTE are the most used tokens,
a byte from TOKEN_TWO_BYTE_LEAD up starts a two-byte code for the others.  The tokens' text is stored
once, in the order of their codes.

Lists.  Each set's list of rows (and of counter rules) is a string of ops over the list of another
set, its base, chosen by the generator where that is shorter than the list itself:
  COPY n   the base's next n entries          SKIP n   pass over the base's next n entries
  FRESH n  the next n rows this set brings     ROWS n   rows start .. start+n-1 (start: 2 bytes, LE)
One byte each: the op in bits 7:6, n - 1 in bits 5:0.  Rows are numbered in the order sets first
use them, so the rows a set brings are consecutive and cost no index (FRESH).  A base is an earlier
set, so there are no circles, and chains of bases are at most LIST_MAX_DEPTH long (the decoder's
iterator holds one level per set in the chain).
"""
import difflib
import re
import struct

TOKEN_RE = re.compile(r"[^._]*[._]|[^._]+")
TOKEN_ONE_BYTE = 239            # codes 1..239: one byte
TOKEN_TWO_BYTE_LEAD = 240       # 240..255, then a byte: 16 * 256 more codes
TOKEN_MAX = TOKEN_ONE_BYTE + (256 - TOKEN_TWO_BYTE_LEAD) * 256

OP_COPY, OP_SKIP, OP_FRESH, OP_ROWS = 0, 1, 2, 3
OP_SHIFT, OP_RUN_MAX = 6, 64
LIST_MAX_DEPTH = 12             # events/events_table.h EV_LIST_MAX_DEPTH


class PackError(Exception):
    pass


def tokens(part):
    return TOKEN_RE.findall(part)


class NameParts:
    """The name parts of every event, token-coded (see the module's docstring)."""

    def __init__(self):
        self.at, self.parts = {"": 0}, [""]

    def add(self, part):
        if part not in self.at:
            self.at[part] = len(self.parts)
            self.parts.append(part)
        return self.at[part]

    def build(self):
        """Returns (token texts in code order, coded bytes, offset of each part in them)."""
        count = {}
        for p in self.parts:
            for t in tokens(p):
                count[t] = count.get(t, 0) + 1
        order = sorted(count, key=lambda t: (-count[t], t))
        if len(order) > TOKEN_MAX:
            raise PackError(f"{len(order)} distinct name tokens; codes hold {TOKEN_MAX}")
        code = {}
        for rank, t in enumerate(order):
            if rank < TOKEN_ONE_BYTE:
                code[t] = bytes([rank + 1])
            else:
                r = rank - TOKEN_ONE_BYTE
                code[t] = bytes([TOKEN_TWO_BYTE_LEAD + (r >> 8), r & 0xFF])
        coded, offsets = bytearray(), []
        for p in self.parts:
            offsets.append(len(coded))
            for t in tokens(p):
                coded += code[t]
            coded.append(0)
        if len(coded) > 0xFFFF:
            raise PackError("coded name parts passed 64 KiB: offsets are 16-bit")
        self.tokens, self.coded, self.offsets = order, bytes(coded), offsets
        assert all(decode_part(order, self.coded, o) == p for p, o in zip(self.parts, offsets))
        return order, self.coded, offsets


def decode_part(order, coded, off):
    """What events.c does: the part at off, from its codes."""
    out = []
    while coded[off]:
        b = coded[off]
        if b >= TOKEN_TWO_BYTE_LEAD:
            rank = TOKEN_ONE_BYTE + ((b - TOKEN_TWO_BYTE_LEAD) << 8 | coded[off + 1])
            off += 2
        else:
            rank = b - 1
            off += 1
        out.append(order[rank])
    return "".join(out)


class Numbering:
    """Ids for items (rows, rules) in the order sets first use them."""

    def __init__(self):
        self.at, self.items = {}, []

    def number(self, lists):
        """lists: [[item]] in set order -> ([[id]], [first id each list brings])."""
        ids, fresh = [], []
        for items in lists:
            fresh.append(len(self.items))
            out = []
            for it in items:
                if it not in self.at:
                    self.at[it] = len(self.items)
                    self.items.append(it)
                out.append(self.at[it])
            ids.append(out)
        return ids, fresh


def _run(ops, kind, n, start=None):
    while n:
        k = min(n, OP_RUN_MAX)
        ops.append(kind << OP_SHIFT | (k - 1))
        if kind == OP_ROWS:
            ops += struct.pack("<H", start)
            start += k
        n -= k


def encode(target, base, fresh_first):
    """The ops that make target from base (None: from nothing); fresh ids start at fresh_first."""
    ops, fresh = bytearray(), [fresh_first]

    def literal(ids):
        i = 0
        while i < len(ids):
            j = i + 1
            if ids[i] == fresh[0]:
                while j < len(ids) and ids[j] == ids[i] + (j - i):
                    j += 1
                _run(ops, OP_FRESH, j - i)
                fresh[0] += j - i
            else:
                if ids[i] > fresh[0]:
                    raise PackError("a new row out of order")   # Numbering makes this impossible
                while j < len(ids) and ids[j] == ids[i] + (j - i) and ids[j] < fresh_first:
                    j += 1
                _run(ops, OP_ROWS, j - i, ids[i])
            i = j

    if base is None:
        literal(target)
        return bytes(ops)
    skip = 0        # base entries to pass over, written before the next COPY
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, base, target, autojunk=False).get_opcodes():
        if tag in ("delete", "replace"):
            skip += i2 - i1
        if tag == "equal":
            _run(ops, OP_SKIP, skip)
            skip = 0
            _run(ops, OP_COPY, i2 - i1)
        elif tag in ("insert", "replace"):
            literal(target[j1:j2])
    return bytes(ops)       # a SKIP at the end is left out: the rest of the base is simply not used


def decode(lists, k):
    """What events.c does: list k's ids, from lists [(ops, fresh_first, base or None)]."""
    ops, fresh, base = lists[k]
    src = decode(lists, base) if base is not None else []
    out, b, i = [], 0, 0
    while i < len(ops):
        kind, n = ops[i] >> OP_SHIFT, (ops[i] & (OP_RUN_MAX - 1)) + 1
        i += 1
        if kind == OP_COPY:
            out += src[b:b + n]
            b += n
        elif kind == OP_SKIP:
            b += n
        elif kind == OP_FRESH:
            out += range(fresh, fresh + n)
            fresh += n
        else:
            start = struct.unpack_from("<H", ops, i)[0]
            i += 2
            out += range(start, start + n)
    return out


def encode_lists(id_lists, fresh_firsts, may_base):
    """Each list's ops against the base that makes them shortest (or none): [(ops, fresh, base)].
    may_base(k, b): whether list b may serve as list k's base (same vendor, say)."""
    out, depth = [], []
    for k, target in enumerate(id_lists):
        best = (encode(target, None, fresh_firsts[k]), None)
        for b in range(k):
            if depth[b] + 1 >= LIST_MAX_DEPTH or not may_base(k, b) or not id_lists[b]:
                continue
            ops = encode(target, id_lists[b], fresh_firsts[k])
            if len(ops) < len(best[0]):
                best = (ops, b)
        out.append((best[0], fresh_firsts[k], best[1]))
        depth.append(1 if best[1] is None else depth[best[1]] + 1)
    for k, target in enumerate(id_lists):
        if decode(out, k) != target:
            raise PackError(f"list {k} does not decode to itself")
    return out


def bits(fields, values, what):
    """Check values fit their widths: fields [(name, width)], values {name: int}."""
    for name, width in fields:
        v = values[name]
        if not 0 <= v < 1 << width:
            raise PackError(f"{what}: {name} = {v} does not fit its {width} bits (events/events_table.h)")
    return values
