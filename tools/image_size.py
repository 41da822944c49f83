#!/usr/bin/env python3
"""tools/image_size.py - what build/pmuboot.efi's bytes are: `make size`.

    tools/image_size.py [--build DIR] [--json]

Reads the linker map ($(B)/pmuboot.map: every input section, its object and its size, strings after
merging) and the PE file's section table (tools/pe_image.py), and prints the file's size by part:

  code              .text
  event catalogue   the generated tables ($(B)/gen/events_table.c): the compressed blob
                    (tools/lzpack.py) and its directory; below, what the blob inflates to, by table
  strings           string literals of every other file (.rodata.str*)
  other data        every other table and initialised variable (.rodata, .data, .got, ...), among
                    them the top-down metric tables ($(B)/gen/metrics_table.c): shown below it too,
                    their compressed blob and what it inflates to, by table
  relocations       .rela (one per pointer stored in data), .reloc, .dynamic
  headers, padding  the PE headers and each section's round-up to the file alignment

The parts add up to the file's size.  .bss (zero-filled by the loader, not in the file) is shown
below them, with the image's size in memory.  docs/architecture.md "Sizes" has the figures.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pe_image  # noqa: E402

CATALOGUE_OBJ = "gen/events_table.c.o"
CATALOGUE_SRC = "gen/events_table.c"
CATALOGUE_STREAM = "events_blob_stream"
METRICS_OBJ = "gen/metrics_table.c.o"
METRICS_SRC = "gen/metrics_table.c"
METRICS_STREAM = "mt_blob_stream"
# A line of the blob's directory in the generated C (tools/lzpack.py Blob.emit_c):
# "{ offset, size, stride, delta },	/* name */"
DIR_RE = re.compile(r"^\s*\{ (\d+), (\d+), (\d+), (\d+) \},\s*/\* (\w+) \*/$")
OUTPUT_RE = re.compile(r"^(\.\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)")
INPUT_RE = re.compile(r"^ (\.\S+|\*fill\*)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)(?:\s+(\S+))?)?\s*$")
CONT_RE = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)(?:\s+(\S+))?\s*$")
# The catalogue's tables, grouped as docs/events.md "Size in the image" describes them (their sizes
# inflated: the file holds them compressed together).
CATALOGUE_GROUPS = [
    ("rows (events_rows, 8 bytes each)", ("events_rows",)),
    ("side rows: cmask, extra MSRs, fixed counter... (events_side, events_offcore, events_msr_*)",
     ("events_side", "events_offcore", "events_msr_lo", "events_msr_hi")),
    ("names: token-coded parts (events_part_*, events_token_*)",
     ("events_part_codes", "events_part_at", "events_token_text", "events_token_at")),
    ("set lists and counter rules (events_ops, events_code_rules, events_limits)",
     ("events_ops", "events_code_rules", "events_limits")),
    ("sets, roles, IBS and AMD rules, set names (events_set_recs, events_notes, ...)", None),
]
# The top-down metric tables, grouped as docs/topdown.md "Size in the image" describes them.
METRICS_GROUPS = [
    ("formula nodes (mt_nodes, 4 bytes each)", ("mt_nodes",)),
    ("names: token-coded (mt_codes, mt_token_*)", ("mt_codes", "mt_token_text", "mt_token_at")),
    ("metrics and each table's list of them (mt_metrics, mt_lists, mt_tables)",
     ("mt_metrics", "mt_lists", "mt_tables")),
    ("inputs and literals (mt_inputs, mt_numbers)", None),
]


def read_map(path):
    """({output section: size}, [(output section, input section, object, size)]) from a GNU ld map."""
    out, sizes, section, pending = [], {}, None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        m = OUTPUT_RE.match(line)
        if m and not line.startswith(" "):
            section = m.group(1)
            sizes[section] = int(m.group(3), 16)
            pending = None
            continue
        if pending is not None:
            c = CONT_RE.match(line)
            if c:
                out.append((section, pending, c.group(3) or "", int(c.group(2), 16)))
            pending = None
            continue
        m = INPUT_RE.match(line)
        if not m or section is None:
            continue
        if m.group(2) is None:
            pending = m.group(1)        # the name alone: address and size follow on the next line
        else:
            out.append((section, m.group(1), m.group(4) or "", int(m.group(3), 16)))
    return sizes, out


def blob_tables(build, src):
    """{table: inflated bytes} from the blob's directory in a generated file (src, under build)."""
    path = os.path.join(build, src)
    tables = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = DIR_RE.match(line)
            if m:
                tables[m.group(5)] = int(m.group(2))
    if not tables:
        raise SystemExit(f"image_size: no blob directory in {path}")
    return tables


def symbol_sizes(elf):
    """{symbol: size} of the defined data symbols of the linked ELF (nm)."""
    p = subprocess.run(["nm", "-S", "--defined-only", elf], capture_output=True, text=True, check=True)
    sizes = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            sizes[parts[3]] = int(parts[1], 16)
    return sizes


def by_group(tables, groups):
    """{group: inflated bytes}: each group's tables; the last (None) takes the rest."""
    out, rest = {}, dict(tables)
    for name, members in groups:
        out[name] = sum(rest.values()) if members is None else sum(rest.pop(m, 0) for m in members)
    return out


def parts(build):
    """The file's parts and the catalogue's tables, as {name: bytes}."""
    efi = os.path.join(build, "pmuboot.efi")
    with open(efi, "rb") as f:
        img = pe_image.Image(f.read(), efi)
    sections, entries = read_map(os.path.join(build, "pmuboot.map"))
    size = lambda pred: sum(n for e in entries if pred(*e[:3]) for n in [e[3]])    # noqa: E731
    # Strings are what is left of .data: ld's map gives merged string sections sizes that overlap
    # by a few bytes where objects share a string, every other input section exactly.
    catalogue = size(lambda sec, inp, obj: sec == ".data" and obj.endswith(CATALOGUE_OBJ))
    metrics = size(lambda sec, inp, obj: sec == ".data" and not inp.startswith(".rodata.str") and
                   obj.endswith(METRICS_OBJ))
    other = size(lambda sec, inp, obj: sec == ".data" and not inp.startswith(".rodata.str") and
                 not obj.endswith(CATALOGUE_OBJ))
    data_used = sections.get(".data", 0)
    strings = data_used - catalogue - other
    bss = sections.get(".bss", 0)
    text, data = img.find(".text"), img.find(".data")
    relocs = sum(s.raw_size for s in img.sections if s.name in (".rela", ".reloc", ".dynamic"))
    total = os.path.getsize(efi)
    p = {
        "code": text.raw_size,
        "event catalogue": catalogue,
        "strings": strings,
        "other data": other,
        "relocations": relocs,
    }
    p["headers, padding"] = total - sum(p.values())
    if p["headers, padding"] < 0 or strings < 0 or data_used > data.raw_size:
        raise SystemExit(f"image_size: the map ({data_used} bytes of .data) does not match {efi}")
    sym = symbol_sizes(os.path.join(build, "pmuboot.so"))
    stream = sym.get(CATALOGUE_STREAM, 0)
    stored = {"compressed blob (events_blob_stream)": stream,
              "its directory, the blob descriptor, the table counts": catalogue - stream}
    inflated = by_group(blob_tables(build, CATALOGUE_SRC), CATALOGUE_GROUPS)
    mstream = sym.get(METRICS_STREAM, 0)
    mstored = {"compressed blob (mt_blob_stream)": mstream,
               "its directory, the blob descriptor, the table counts": metrics - mstream}
    minflated = by_group(blob_tables(build, METRICS_SRC), METRICS_GROUPS)
    return {"file": total, "parts": p, "bss": bss, "catalogue": stored, "catalogue_inflated": inflated,
            "metrics": mstored, "metrics_inflated": minflated}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.environ.get("PMUBOOT_BUILD", "build"))
    ap.add_argument("--json", action="store_true", help="the figures as JSON")
    a = ap.parse_args()
    r = parts(a.build)
    if a.json:
        print(json.dumps(r, indent=1))
        return 0
    print(f"{a.build}/pmuboot.efi: {r['file']:,} bytes ({r['file'] / 1024:.1f} KiB)")
    for name, n in r["parts"].items():
        print(f"  {name:<18} {n:>9,}")
    print(f"  {'= the file':<18} {sum(r['parts'].values()):>9,}")
    print(f"  {'.bss':<18} {r['bss']:>9,}  in memory only: zero-filled by the loader")
    for title, where, key in (("event catalogue", "", "catalogue"),
                              ("top-down metric tables", " (in other data)", "metrics")):
        print(f"{title} in the file{where}:")
        for name, n in r[key].items():
            print(f"  {n:>9,}  {name}")
        inflated = sum(r[key + "_inflated"].values())
        print(f"{title} inflated at first use: {inflated:,} bytes (heap; lib/unlz.h), by table:")
        for name, n in r[key + "_inflated"].items():
            print(f"  {n:>9,}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
