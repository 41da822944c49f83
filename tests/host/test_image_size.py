"""The image's size checks: .bss out of the file, no long zero runs, section budgets, `make size`."""
import os
import struct
import subprocess
import tempfile

import pe_image

FILE_ALIGN, SECTION_ALIGN = 0x200, 0x1000
OPT_HEADER_SIZE = 240           # PE32+ optional header with 16 data directories
SCN_CODE, SCN_DATA, SCN_BSS = 0x60000020, 0xC0000040, 0xC0000080


def synthetic_pe(sections, checksum=True):
    """A minimal PE32+ file: sections is [(name, rva, virtual size, file bytes or None, flags)]."""
    hdr_end = 0x40 + 4 + 20 + OPT_HEADER_SIZE + 40 * len(sections)
    raw_at = (hdr_end + FILE_ALIGN - 1) & ~(FILE_ALIGN - 1)
    table, body = b"", b""
    for name, rva, vsize, raw, flags in sections:
        if raw:
            raw = raw + bytes(-len(raw) % FILE_ALIGN)
            ptr = raw_at + len(body)
            body += raw
        else:
            raw, ptr = b"", 0
        table += struct.pack("<8sIIIIIIHHI", name.encode(), vsize, rva, len(raw), ptr, 0, 0, 0, 0, flags)
    opt = bytearray(OPT_HEADER_SIZE)
    struct.pack_into("<H", opt, 0, pe_image.PE32PLUS_MAGIC)
    struct.pack_into("<I", opt, pe_image.OPT_SECTION_ALIGN, SECTION_ALIGN)
    struct.pack_into("<I", opt, pe_image.OPT_SECTION_ALIGN + 4, FILE_ALIGN)
    struct.pack_into("<I", opt, pe_image.OPT_SIZE_OF_UNINIT, 0x1000)
    struct.pack_into("<I", opt, 108, 16)          # NumberOfRvaAndSizes
    dos = bytearray(0x40)
    dos[:2] = b"MZ"
    struct.pack_into("<I", dos, pe_image.DOS_LFANEW, 0x40)
    coff = struct.pack("<HHIIIHH", 0x8664, len(sections), 0, 0, 0, OPT_HEADER_SIZE, 0x20E)
    head = bytes(dos) + pe_image.PE_SIGNATURE + coff + bytes(opt) + table
    data = bytearray(head + bytes(raw_at - len(head)) + body)
    if checksum:
        img = pe_image.Image(data)
        struct.pack_into("<I", data, img.opt + pe_image.OPT_CHECKSUM, img.checksum())
    return bytes(data)


def image(ctx):
    with open(ctx.efi, "rb") as f:
        return pe_image.Image(f.read(), ctx.efi)


def test_image_bss_is_zero_filled_by_the_loader_not_stored(ctx):
    """The ELF's .bss is large (every static buffer); the PE has no .bss section and .data's
    virtual size reaches exactly to the end of the ELF's .bss, past its file bytes."""
    p = subprocess.run(["objdump", "-h", os.path.join(ctx.build, "pmuboot.so")], capture_output=True, text=True,
                       check=True)
    bss = next(l.split() for l in p.stdout.splitlines() if l.split()[1:2] == [".bss"])
    bss_size, bss_va = int(bss[2], 16), int(bss[3], 16)
    assert bss_size > 64 * 1024, f"the ELF .bss holds only {bss_size} bytes"
    img = image(ctx)
    assert img.find(".bss") is None, "objcopy's .bss was not folded into .data"
    data = img.find(".data")
    assert data.va + data.vsize == bss_va + bss_size, (hex(data.va), hex(data.vsize), hex(bss_va), hex(bss_size))
    assert data.raw_size < data.vsize - bss_size + FILE_ALIGN, "the .bss bytes are in the file"


def test_check_fails_on_a_zero_run_over_4k(ctx):
    text = b"\x90" * 0x400
    at_limit = b"\x11" * 16 + bytes(4096) + b"\x22" * 16
    over = b"\x11" * 16 + bytes(4097) + b"\x22" * 16
    ok = pe_image.Image(synthetic_pe([(".text", 0x1000, len(text), text, SCN_CODE),
                                      (".data", 0x2000, len(at_limit), at_limit, SCN_DATA)]))
    assert pe_image.check(ok, 4096, {}, None) == []
    bad = synthetic_pe([(".text", 0x1000, len(text), text, SCN_CODE),
                        (".data", 0x3000, len(over), over, SCN_DATA)])
    img = pe_image.Image(bad)
    problems = pe_image.check(img, 4096, {}, None)
    data = img.find(".data")
    assert len(problems) == 1 and "4097 zero bytes" in problems[0], problems
    assert f"file offset {data.raw_ptr + 16:#x}" in problems[0] and "in .data at RVA 0x3010" in problems[0], problems
    # The command the Makefile runs fails on it, naming the run.
    with tempfile.NamedTemporaryFile(suffix=".efi") as f:
        f.write(bad)
        f.flush()
        p = subprocess.run(["python3", os.path.join(ctx.root, "tools", "pe_image.py"), "check", f.name,
                            "--max-zero-run", "4096"], capture_output=True, text=True)
        assert p.returncode == 1 and "4097 zero bytes" in p.stderr, (p.returncode, p.stderr)


def test_check_fails_on_a_section_past_its_budget(ctx):
    text = b"\x90" * 0x1234
    pe = pe_image.Image(synthetic_pe([(".text", 0x1000, len(text), text, SCN_CODE),
                                      (".extra", 0x3000, 0x10, b"\x01" * 0x10, SCN_DATA)]))
    assert pe_image.check(pe, 4096, {".text": 0x1234}, 0x200) == []
    over = pe_image.check(pe, 4096, {".text": 0x1233}, 0x200)
    assert len(over) == 1 and ".text holds 4660 bytes, past its budget of 4659" in over[0], over
    # A section with no budget of its own gets the other sections' budget.
    assert any(".extra holds 16 bytes" in p for p in pe_image.check(pe, 4096, {".text": 0x2000}, 0x0F))


def test_fold_bss_merges_into_data_and_keeps_the_checksum_true(ctx):
    text, data = b"\x90" * 0x300, b"\x55" * 0x180
    pe = synthetic_pe([(".text", 0x1000, len(text), text, SCN_CODE),
                       (".data", 0x2000, len(data), data, SCN_DATA),
                       (".bss", 0x2180, 0x5000, None, SCN_BSS),
                       (".rela", 0x8000, 0x20, b"\x07" * 0x20, SCN_DATA)])
    img = pe_image.Image(pe)
    img.fold_bss()
    assert [s.name for s in img.sections] == [".text", ".data", ".rela"]
    d = img.find(".data")
    assert (d.va, d.vsize, d.raw_size) == (0x2000, 0x180 + 0x5000, FILE_ALIGN), (d.va, d.vsize, d.raw_size)
    assert img.find(".rela").raw_size == FILE_ALIGN and bytes(img.buf[img.find(".rela").raw_ptr:][:4]) == b"\x07" * 4
    assert struct.unpack_from("<I", img.buf, img.opt + pe_image.OPT_CHECKSUM)[0] == img.checksum()
    assert struct.unpack_from("<I", img.buf, img.opt + pe_image.OPT_SIZE_OF_UNINIT)[0] == 0
    # The slot the .bss header held is cleared, and a second fold has nothing to do.
    end = img.table + 3 * pe_image.SECTION_SIZE
    assert bytes(img.buf[end:end + pe_image.SECTION_SIZE]) == bytes(pe_image.SECTION_SIZE)
    try:
        img.fold_bss()
        raise AssertionError("a second fold should fail")
    except pe_image.PeError as e:
        assert "no .bss" in str(e)


def test_fold_bss_refuses_a_bss_that_does_not_follow_data(ctx):
    text, data = b"\x90" * 0x300, b"\x55" * 0x180
    pe = synthetic_pe([(".text", 0x1000, len(text), text, SCN_CODE),
                       (".data", 0x2000, len(data), data, SCN_DATA),
                       (".bss", 0x4000, 0x5000, None, SCN_BSS)])
    try:
        pe_image.Image(pe).fold_bss()
        raise AssertionError("a .bss a page past .data's end should be refused")
    except pe_image.PeError as e:
        assert "does not follow .data" in str(e), e


def test_host_only_text_is_not_in_the_image(ctx):
    """The option reference's examples and help, and the events' sources and descriptions, are in
    pmuboot-host (docs/options.md is made from it) but not in the image, which has the keys."""
    with open(ctx.efi, "rb") as f:
        image = f.read()
    rows = [l.split(" | ") for l in ctx.run_host("options", "--markdown", check=True).stdout.splitlines()
            if l.startswith("| `")]
    assert len(rows) > 20, rows[:3]
    for key, _, example, meaning in rows:
        key = key.strip("|` ")
        if key != "kernel.NAME":
            assert key.encode() + b"\0" in image, f"the image lacks the key {key}: the test cannot see strings"
        example = example.strip("`")
        if len(example) >= 14:      # shorter ones ("save=off") are also words the run itself says
            assert example.encode() + b"\0" not in image, f"{key}'s example is in the image"
        assert meaning[:48].encode() not in image, f"{key}'s help is in the image: {meaning[:48]}"
    import csv
    import io
    described = [r for r in csv.DictReader(io.StringIO(ctx.run_host("events", "--uarch", "all", check=True).stdout))
                 if r["description"] and r["uarch"] != "ibs"]
    assert len(described) > 100
    for r in described:
        assert r["description"].encode() not in image, f"{r['uarch']} {r['name']}: its description is in the image"


def test_make_size_parts_add_up_to_the_file(ctx):
    """`make size`'s parts are the file: they sum to its size, code is .text, the catalogue's tables
    are the catalogue, and the .bss it shows is the memory the loader zero-fills."""
    import json
    p = subprocess.run(["python3", os.path.join(ctx.root, "tools", "image_size.py"), "--build", ctx.build, "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    img = image(ctx)
    assert sum(r["parts"].values()) == r["file"] == os.path.getsize(ctx.efi), r
    assert r["parts"]["code"] == img.find(".text").raw_size
    assert all(n > 0 for n in r["parts"].values()), r["parts"]
    assert sum(r["catalogue"].values()) == r["parts"]["event catalogue"], r
    assert all(n > 0 for n in r["catalogue"].values()), r["catalogue"]
    data = img.find(".data")
    data_parts = r["parts"]["event catalogue"] + r["parts"]["strings"] + r["parts"]["other data"]
    assert data_parts <= data.raw_size < data_parts + FILE_ALIGN + 64, (data_parts, data.raw_size)
    assert data_parts + r["bss"] <= data.vsize < data_parts + r["bss"] + 2 * FILE_ALIGN, (data.vsize, r["bss"])
    # `make size` runs it (a dry run: a test must not rebuild the image other tests boot).
    p = subprocess.run(["make", "-n", "--no-print-directory", "-C", ctx.root,
                        f"B={os.path.relpath(ctx.build, ctx.root)}", "size"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-800:]
    assert "tools/image_size.py --build" in p.stdout, p.stdout[-800:]
