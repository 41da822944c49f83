#!/usr/bin/env python3
"""tools/pe_image.py - the PE32+ file objcopy makes of the image: fold its .bss, check its size.

    tools/pe_image.py fold-bss FILE
    tools/pe_image.py check FILE [--max-zero-run N] [--budget SECTION=BYTES ...] [--other-budget BYTES]

fold-bss merges the .bss section objcopy writes (no file contents) into the .data before it:
.data's VirtualSize then covers the .bss, its SizeOfRawData only the initialised bytes, and the
loader zero-fills the difference (PE/COFF specification, section table: "VirtualSize ... If this
value is greater than SizeOfRawData, the section is zero-padded").  That is the layout MSVC gives a
.bss, which every UEFI firmware meets in the images it must load; docs/architecture.md "Sizes" says
why it is preferred to a separate section with no file contents.

check fails (exit 1, a message naming the file, the offset and the section) when the file holds a
run of zero bytes longer than --max-zero-run (zeros the loader could have made instead), or when
an initialised section's file bytes pass its budget (--budget .text=229376; --other-budget for
sections not named).  The Makefile runs both on build/pmuboot.efi and states the budgets.
"""
import argparse
import struct
import sys

PE_SIGNATURE = b"PE\0\0"
DOS_LFANEW = 0x3C               # e_lfanew: file offset of the PE signature
COFF_SIZE = 20                  # Machine .. Characteristics
COFF_NSECTIONS = 2              # offset of NumberOfSections in the COFF header
COFF_OPT_SIZE = 16              # offset of SizeOfOptionalHeader
PE32PLUS_MAGIC = 0x20B
OPT_SIZE_OF_UNINIT = 12         # SizeOfUninitializedData in the optional header
OPT_SECTION_ALIGN = 32          # SectionAlignment
OPT_CHECKSUM = 64               # CheckSum
SECTION_SIZE = 40               # one section header
SCN_CNT_UNINITIALIZED_DATA = 0x80


class PeError(Exception):
    pass


class Section:
    def __init__(self, raw, at):
        (name, self.vsize, self.va, self.raw_size, self.raw_ptr, _, _, _, _,
         self.flags) = struct.unpack_from("<8sIIIIIIHHI", raw, at)
        self.name = name.rstrip(b"\0").decode("ascii", "replace")
        self.at = at            # file offset of its header

    def pack_into(self, buf):
        struct.pack_into("<II", buf, self.at + 8, self.vsize, self.va)
        struct.pack_into("<II", buf, self.at + 16, self.raw_size, self.raw_ptr)
        struct.pack_into("<I", buf, self.at + 36, self.flags)


class Image:
    """The headers of a PE32+ file and its sections, over a bytearray."""

    def __init__(self, data, path="(image)"):
        self.buf, self.path = bytearray(data), path
        if len(self.buf) < DOS_LFANEW + 4 or self.buf[:2] != b"MZ":
            raise PeError(f"{path}: not a PE file (no MZ header)")
        self.pe = struct.unpack_from("<I", self.buf, DOS_LFANEW)[0]
        if self.buf[self.pe:self.pe + 4] != PE_SIGNATURE:
            raise PeError(f"{path}: no PE signature at offset {self.pe:#x}")
        self.coff = self.pe + 4
        self.opt = self.coff + COFF_SIZE
        if struct.unpack_from("<H", self.buf, self.opt)[0] != PE32PLUS_MAGIC:
            raise PeError(f"{path}: not PE32+ (optional header magic is not 0x20b)")
        nsec = struct.unpack_from("<H", self.buf, self.coff + COFF_NSECTIONS)[0]
        opt_size = struct.unpack_from("<H", self.buf, self.coff + COFF_OPT_SIZE)[0]
        self.table = self.opt + opt_size
        if self.table + nsec * SECTION_SIZE > len(self.buf):
            raise PeError(f"{path}: section table runs past the end of the file")
        self.sections = [Section(self.buf, self.table + i * SECTION_SIZE) for i in range(nsec)]
        self.section_align = struct.unpack_from("<I", self.buf, self.opt + OPT_SECTION_ALIGN)[0]

    def find(self, name):
        found = [s for s in self.sections if s.name == name]
        return found[0] if len(found) == 1 else None

    def section_at(self, offset):
        """The section whose file bytes hold offset, or None (headers, padding)."""
        for s in self.sections:
            if s.raw_ptr <= offset < s.raw_ptr + s.raw_size:
                return s
        return None

    def checksum(self):
        """The PE image checksum: 16-bit one's-complement-style sum of the file with the CheckSum
        field taken as zero, plus the file's length."""
        data = bytes(self.buf)
        at = self.opt + OPT_CHECKSUM
        data = data[:at] + b"\0\0\0\0" + data[at + 4:]
        if len(data) % 2:
            data += b"\0"
        total = 0
        for (word,) in struct.iter_unpack("<H", data):
            total += word
            total = (total & 0xFFFF) + (total >> 16)
        total = (total & 0xFFFF) + (total >> 16)
        return (total + len(self.buf)) & 0xFFFFFFFF

    def fold_bss(self):
        """Merge .bss into the .data before it (see the module's docstring)."""
        data, bss = self.find(".data"), self.find(".bss")
        if bss is None:
            raise PeError(f"{self.path}: no .bss section to fold (already folded?)")
        if data is None:
            raise PeError(f"{self.path}: no single .data section to fold .bss into")
        if bss.raw_size:
            raise PeError(f"{self.path}: .bss has {bss.raw_size} bytes in the file; expected none")
        data_end = data.va + data.vsize
        between = [s for s in self.sections if s not in (data, bss) and data.va <= s.va < bss.va]
        if bss.va < data_end or bss.va - data_end >= max(self.section_align, 1) or between:
            raise PeError(f"{self.path}: .bss (RVA {bss.va:#x}) does not follow .data "
                          f"(RVA {data.va:#x}..{data_end:#x}) directly; see linker.ld")
        data.vsize = bss.va + bss.vsize - data.va
        data.pack_into(self.buf)
        # Drop .bss's header: the ones after it move up, the freed slot is zeroed.
        i = self.sections.index(bss)
        rest = self.buf[bss.at + SECTION_SIZE:self.table + len(self.sections) * SECTION_SIZE]
        self.buf[bss.at:bss.at + len(rest)] = rest
        end = self.table + (len(self.sections) - 1) * SECTION_SIZE
        self.buf[end:end + SECTION_SIZE] = bytes(SECTION_SIZE)
        struct.pack_into("<H", self.buf, self.coff + COFF_NSECTIONS, len(self.sections) - 1)
        if not any(s.flags & SCN_CNT_UNINITIALIZED_DATA for k, s in enumerate(self.sections) if k != i):
            struct.pack_into("<I", self.buf, self.opt + OPT_SIZE_OF_UNINIT, 0)
        if struct.unpack_from("<I", self.buf, self.opt + OPT_CHECKSUM)[0]:
            struct.pack_into("<I", self.buf, self.opt + OPT_CHECKSUM, self.checksum())
        self.__init__(self.buf, self.path)


def zero_runs(data, longer_than):
    """(offset, length) of every run of zero bytes longer than longer_than."""
    runs, start = [], None
    for i, b in enumerate(data):
        if b == 0:
            if start is None:
                start = i
        elif start is not None:
            if i - start > longer_than:
                runs.append((start, i - start))
            start = None
    if start is not None and len(data) - start > longer_than:
        runs.append((start, len(data) - start))
    return runs


def check(img, max_zero_run, budgets, other_budget):
    """Problems with the file, as messages; [] when it is within its limits."""
    problems = []
    for off, n in zero_runs(bytes(img.buf), max_zero_run):
        s = img.section_at(off)
        where = f"in {s.name} at RVA {s.va + off - s.raw_ptr:#x}" if s else "outside every section"
        problems.append(f"{img.path}: {n} zero bytes at file offset {off:#x} ({where}); a run over "
                        f"{max_zero_run} bytes belongs in .bss (or memory from the firmware), not the file")
    for s in img.sections:
        if not s.raw_size:
            continue
        budget = budgets.get(s.name, other_budget)
        used = min(s.raw_size, s.vsize) if s.vsize else s.raw_size
        if budget is not None and used > budget:
            problems.append(f"{img.path}: section {s.name} holds {used} bytes, past its budget of {budget} "
                            f"(the Makefile's IMAGE_BUDGETS say why)")
    return problems


def parse_budget(text):
    name, eq, value = text.partition("=")
    if not eq or not name.startswith("."):
        raise argparse.ArgumentTypeError(f"'{text}': expected .SECTION=BYTES")
    try:
        return name, int(value, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': '{value}' is not a number of bytes")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fold-bss", help="merge .bss into .data's virtual size, in place")
    f.add_argument("file")
    c = sub.add_parser("check", help="zero runs and section budgets")
    c.add_argument("file")
    c.add_argument("--max-zero-run", type=int, default=4096)
    c.add_argument("--budget", type=parse_budget, action="append", default=[])
    c.add_argument("--other-budget", type=int, default=None)
    a = ap.parse_args(argv)
    try:
        with open(a.file, "rb") as fh:
            img = Image(fh.read(), a.file)
        if a.cmd == "fold-bss":
            img.fold_bss()
            with open(a.file, "wb") as fh:
                fh.write(img.buf)
            return 0
        problems = check(img, a.max_zero_run, dict(a.budget), a.other_budget)
    except (OSError, PeError) as e:
        print(f"pe_image: {e}", file=sys.stderr)
        return 1
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
