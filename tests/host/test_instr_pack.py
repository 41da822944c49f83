"""Host: the kernel pack (instr/pack.h; docs/instr.md, "In the image").

`pmuboot-host instr pack` assembles the kernels of the forms asked for, whatever this CPU has, into one
file the image reads from its medium.  Checked: the pack holds both iforms of ADD r64, r64 with their
bytes (the reader's unit test, tests/unit/test_instr_pack.c, checks every field), its header's counts
and length are what the command printed, misuse exits 2 naming what is wrong, and the reader under
hostile bytes (tests/fuzz/fuzz_instr_pack.c: the seed corpus, every prefix, bit flip and byte set to
0x00/0xff, each read as it is and with its CRC made right) never crashes under ASan and UBSan.
"""
import os
import re
import struct
import subprocess
import tempfile
import zlib

from testlib import replay

SOURCES = ["tests/fuzz/fuzz_instr_pack.c", "instr/pack.c", "instr/select.c", "lib/crc32.c", "lib/regex.c",
           "lib/libc_util.c", "lib/decimal.c"]
CORPUS = "tests/fuzz/corpus/instr_pack"
HEADER = 28


def _pack(ctx, *args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "instr.pack")
        p = ctx.run_host("instr", "pack", *args, "-o", out, timeout=120)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-2000:])
        with open(out, "rb") as f:
            return f.read(), p.stdout


def test_pack_add_r64(ctx):
    data, text = _pack(ctx, "--match", "^ADD r64, r64$")
    m = re.search(r"instr pack: (\d+) forms, (\d+) kernels \((\d+) not assembled\), (\d+) bytes", text)
    assert m, text
    forms, kernels, refused, size = map(int, m.groups())
    assert forms == 2 and refused == 0 and size == len(data), text
    magic, version, inits, nforms, nkernels, total, crc, table = struct.unpack_from("<4sBxHIIIII", data)
    assert (magic, version, nforms, nkernels, total) == (b"PMUI", 3, forms, kernels, len(data))
    assert crc == zlib.crc32(data[:20] + data[24:])
    # The init table ends the file: inits shared by the kernels, each once (fewer than the kernels).
    assert HEADER < table < len(data) and 1 <= inits < kernels
    # Both encodings of ADD r64, r64 (XED's 01 and 03 opcodes), each with REX.W: 48 01 and 48 03.
    assert b"ADD_GPRv_GPRv_01\0" in data and b"ADD_GPRv_GPRv_03\0" in data
    assert b"\x48\x01" in data and b"\x48\x03" in data


def test_pack_misuse_exits_2(ctx):
    for args, want in ((["instr", "pack"], "-o FILE"), (["instr", "pack", "--list", "-o", "/tmp/x"], "pack"),
                       (["instr", "pack", "--match", "(", "-o", "/tmp/x"], "--match"),
                       (["instr", "pack", "--extension", "NOPE", "-o", "/tmp/x"], "NOPE")):
        p = ctx.run_host(*args)
        assert p.returncode == 2 and want in p.stderr, (args, p.returncode, p.stderr)


def test_fuzz_replay_corpus_and_mutations(ctx):
    replay.replay_mutations(SOURCES, CORPUS, min_seeds=3, min_inputs=10000)