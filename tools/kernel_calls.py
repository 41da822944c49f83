#!/usr/bin/env python3
"""tools/kernel_calls.py - no circle of calls between platform/ files.

tools/layering.py reads the #include graph.  This reads the call graph the
linker sees: for every object file of platform/ in the image build
(build/image/kernel/*.o and platform/metal/*.o), `nm` lists the symbols it defines and the ones it
leaves undefined.  File A uses file B when A leaves undefined a symbol B
defines.  The rule (docs/architecture.md, "Inside platform/"): those uses
form no circle.  Where a lower file must reach a higher one at run time
(trap.c's fatal path, the NMI callbacks), the higher one registers a hook,
which is a pointer, not a symbol, and so is no edge here.

    tools/kernel_calls.py [--objs DIR] [--src DIR]
                                         exit 0 when there is no circle,
                                         1 with one line per circle,
                                         2 when DIR holds no objects
    tools/kernel_calls.py --graph        print the edges as well
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OBJS = os.path.join(ROOT, os.environ.get("PMUBOOT_BUILD", "build"), "image", "platform")
DEFAULT_SRC = os.path.join(ROOT, "platform")
# nm letters of symbols an object defines for others (text, data, read-only, bss, common, weak).
DEFINED = set("TDRBCGSVWi")


def symbols(obj):
    """(defined, undefined) global symbol names of one object file."""
    out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in DEFINED:
            defined.add(parts[2])
    return defined, undefined


def call_graph(objs):
    """{file: {used file: [symbols]}} over the given {name: path} objects."""
    table = {name: symbols(path) for name, path in objs.items()}
    owner = {}
    for name, (defined, _) in table.items():
        for s in defined:
            owner.setdefault(s, name)
    graph = {name: {} for name in table}
    for name, (_, undefined) in table.items():
        for s in sorted(undefined):
            o = owner.get(s)
            if o and o != name:
                graph[name].setdefault(o, []).append(s)
    return graph


def circles(graph):
    """Strongly connected components with more than one file (Tarjan), each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def describe(graph, comp):
    """One line naming a circle and the symbols that tie it."""
    members = set(comp)
    ties = []
    for a in comp:
        for b, syms in sorted(graph[a].items()):
            if b in members:
                ties.append(f"{a} -> {b} ({', '.join(syms[:3])}{', ...' if len(syms) > 3 else ''})")
    return "platform/ files call each other in a circle: " + "; ".join(ties)


def objects_in(objdir, srcdir):
    """{source name: object path} for the objects whose source is in srcdir or a folder under it
    (platform/metal/), named by their path from srcdir ("metal/trap.c"); a stale object is left out."""
    if not os.path.isdir(objdir):
        return {}
    objs = {}
    for here, dirs, names in os.walk(objdir):
        dirs.sort()
        rel = os.path.relpath(here, objdir)
        for n in sorted(names):
            stem, ext = os.path.splitext(n)
            if ext != ".o":
                continue
            for src_ext in (".c", ".asm"):
                name = os.path.normpath(os.path.join(rel, stem + src_ext))
                if os.path.exists(os.path.join(srcdir, name)):
                    objs[name] = os.path.join(here, n)
                    break
    return objs


def check(objdir, srcdir=DEFAULT_SRC):
    """(problems, graph); problems is None when objdir holds no objects."""
    objs = objects_in(objdir, srcdir)
    if not objs:
        return None, {}
    graph = call_graph(objs)
    return [describe(graph, c) for c in circles(graph)], graph


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--objs", default=DEFAULT_OBJS, help="directory of platform/ object files (%(default)s)")
    ap.add_argument("--src", default=DEFAULT_SRC, help="directory of their sources (%(default)s)")
    ap.add_argument("--graph", action="store_true", help="print every edge")
    a = ap.parse_args()
    problems, graph = check(a.objs, a.src)
    if problems is None:
        print(f"kernel_calls: no object files in {a.objs} (run make image first)", file=sys.stderr)
        return 2
    if a.graph:
        for f in sorted(graph):
            for g, syms in sorted(graph[f].items()):
                print(f"{f} -> {g}: {' '.join(syms)}")
    for p in problems:
        print(p)
    if not problems:
        print(f"kernel_calls: {len(graph)} platform/ files, {sum(len(v) for v in graph.values())} uses, no circle")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
