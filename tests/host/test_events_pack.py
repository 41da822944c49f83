"""The catalogue's packed forms (tools/events_pack.py): lists as differences, token-coded names."""
import os
import random
import re

import events_pack as P


def test_lists_round_trip_through_their_ops(ctx):
    """Every kind of op, runs longer than one op holds, rows from earlier sets and a chain of bases:
    each list decodes to itself, and the related ones cost far less than their length."""
    rng = random.Random(26)
    base = [f"e{i}" for i in range(300)]
    lists = [base,
             base[:100] + [f"n{i}" for i in range(150)] + base[180:],          # fresh rows in the middle
             base[::-1][:40] + base[50:250],                                   # old rows out of order: ROWS
             [x for x in base if rng.random() > 0.1] + ["late"],               # skips
             [],                                                               # an empty set
             ["n3", "e7", "x", "y", "e8", "e9"]]                               # rows of two earlier sets
    num = P.Numbering()
    ids, fresh = num.number(lists)
    packed = P.encode_lists(ids, fresh, lambda k, b: True)
    for k, want in enumerate(ids):
        assert P.decode(packed, k) == want, k
    ops = [len(o) for o, _, _ in packed]
    assert packed[1][2] == 0 and ops[1] < 20, packed[1]        # a copy, 150 fresh rows, a copy
    assert packed[3][2] is not None and ops[3] < len(ids[3]) // 3, ops
    assert packed[0][2] is None and ops[0] == (300 + 63) // 64     # FRESH runs of at most 64


def test_bases_never_chain_past_the_decoders_depth(ctx):
    lists = [[f"e{i}" for i in range(50 + k)] for k in range(3 * P.LIST_MAX_DEPTH)]
    ids, fresh = P.Numbering().number(lists)
    packed = P.encode_lists(ids, fresh, lambda k, b: True)
    for k in range(len(packed)):
        depth, b = 1, packed[k][2]
        while b is not None:
            assert b < k and packed[b][2] != k
            depth, b = depth + 1, packed[b][2]
        assert depth <= P.LIST_MAX_DEPTH, (k, depth)
        assert P.decode(packed, k) == ids[k]


def test_may_base_is_obeyed(ctx):
    lists = [["a", "b", "c"] * 20, ["a", "b", "c"] * 20 + ["d"]]
    ids, fresh = P.Numbering().number(lists)
    assert P.encode_lists(ids, fresh, lambda k, b: True)[1][2] == 0
    assert P.encode_lists(ids, fresh, lambda k, b: False)[1][2] is None


def test_name_parts_decode_with_one_and_two_byte_codes(ctx):
    """More tokens than one-byte codes: the rare ones take two bytes, and every part decodes."""
    names = P.NameParts()
    parts = [f"TOK{i}_COMMON_PART.X{i % 7}" for i in range(600)] + ["MEM_LOAD_RETIRED", "L1_HIT", ""]
    at = [names.add(p) for p in parts]
    tokens, coded, offsets = names.build()
    assert len(tokens) > P.TOKEN_ONE_BYTE
    assert any(b >= P.TOKEN_TWO_BYTE_LEAD for b in coded)
    for p, i in zip(parts, at):
        assert P.decode_part(tokens, coded, offsets[i]) == p
    assert at[-1] == 0 and names.add("L1_HIT") == at[-2]        # "" is part 0; a part is stored once
    # The commonest tokens have the one-byte codes.
    assert tokens[0] in ("COMMON_", "PART.")


def test_bits_refuses_a_value_past_its_field(ctx):
    assert P.bits([("a", 4)], {"a": 15}, "row")["a"] == 15
    for v in (16, -1):
        try:
            P.bits([("a", 4)], {"a": v}, "row 7")
            raise AssertionError(f"{v} fit in 4 bits")
        except P.PackError as e:
            assert "row 7: a" in str(e)


def test_generated_widths_match_the_header(ctx):
    """The widths the generator packs with are the header's (the generated file asserts them too)."""
    import gen_events
    with open(os.path.join(ctx.root, "events", "events_table.h")) as f:
        header = dict(re.findall(r"#define (EV_\w+_BITS)\s+(\d+)", f.read()))
    for fields, prefix in ((gen_events.ROW_FIELDS, "ROW"), (gen_events.SIDE_FIELDS, "SIDE"),
                           (gen_events.NOTE_FIELDS, "NOTE")):
        for name, width in fields:
            assert int(header[f"EV_{prefix}_{name.upper()}_BITS"]) == width, name
