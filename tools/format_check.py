#!/usr/bin/env python3
"""tools/format_check.py - which C files clang-format would change.

The layout rules are .clang-format at the repository root (docs/style.md
says what they are and why).  This runs clang-format over each file and
compares its output with the file; nothing is written unless --fix is
given.  With no FILE arguments it checks every tracked .c and .h file.

    tools/format_check.py [FILE...]        list the files that differ, with
                                           the number of lines that would
                                           change; exit 1 when any differ,
                                           0 when none do
    tools/format_check.py --fix [FILE...]  rewrite those files in place
    tools/format_check.py --diff [FILE...] show each change as a unified diff

CLANG_FORMAT in the environment names the program (default: clang-format,
then clang-format-14).  Exit 2 when it cannot be found, when a FILE does not
exist, or when clang-format fails on a file (the message names the file).
"""
import argparse
import concurrent.futures
import difflib
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = (".c", ".h")


def clang_format():
    for name in (os.environ.get("CLANG_FORMAT"), "clang-format", "clang-format-14"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def tracked_sources(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout.split()
    return sorted(p for p in out if p.endswith(SOURCES) and os.path.isfile(os.path.join(root, p)))


def formatted(program, root, path):
    """clang-format's version of one file, read with the repository's .clang-format."""
    with open(os.path.join(root, path), encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    out = subprocess.run([program, "--style=file", "--assume-filename=" + os.path.join(root, path)],
                         input=text, capture_output=True, text=True, errors="surrogateescape")
    if out.returncode != 0:
        raise RuntimeError(f"{path}: clang-format failed (exit {out.returncode}): {out.stderr.strip()[:500]}")
    return text, out.stdout


def changed_lines(before, after):
    """How many of the file's lines clang-format would replace or remove (and add, if more)."""
    a, b = before.splitlines(), after.splitlines()
    removed = added = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            removed += i2 - i1
            added += j2 - j1
    return max(removed, added)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="files to check (default: every tracked .c and .h file)")
    ap.add_argument("--fix", action="store_true", help="rewrite the files that differ")
    ap.add_argument("--diff", action="store_true", help="print a unified diff of each file that differs")
    ap.add_argument("--root", default=ROOT, help="the repository (default: this checkout)")
    args = ap.parse_args(argv)

    program = clang_format()
    if not program:
        print("format_check: clang-format not found (set CLANG_FORMAT)", file=sys.stderr)
        return 2
    root = os.path.abspath(args.root)
    files = [os.path.relpath(os.path.abspath(f), root) for f in args.files] or tracked_sources(root)
    for f in files:
        if not os.path.isfile(os.path.join(root, f)):
            print(f"format_check: {f}: no such file", file=sys.stderr)
            return 2

    differ, lines = [], 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(lambda f: formatted(program, root, f), files))
    except RuntimeError as e:
        print(f"format_check: {e}", file=sys.stderr)
        return 2
    for f, (before, after) in zip(files, results):
        if before == after:
            continue
        n = changed_lines(before, after)
        differ.append(f)
        lines += n
        if args.fix:
            with open(os.path.join(root, f), "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(after)
            print(f"{f}: reformatted ({n} lines)")
        else:
            print(f"{f}: {n} lines differ from clang-format")
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                                       "a/" + f, "b/" + f))
    if differ:
        verb = "reformatted" if args.fix else "differ from .clang-format"
        print(f"format_check: {len(differ)} of {len(files)} files ({lines} lines) {verb}")
        return 0 if args.fix else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
