#!/usr/bin/env python3
"""tools/file_circles.py - no circle of files in the image or in pmuboot-host.

tools/layering.py reads the #include graph between folders.  This reads the
graph the linker sees between files: for every object of a build, `nm` lists
the symbols it defines and the ones it leaves undefined, and file A uses
file B when A leaves undefined a symbol B defines.  The rule
(docs/architecture.md): those uses form no circle, inside a folder or across
folders, so that every file can be read, tested and replaced with only the
files below it.  Where a lower file must reach a higher one at run time (trap.c's
fatal path, the NMI callbacks, a vendor's probe), the higher one registers a
hook or passes a pointer, which is no symbol and so no edge here.

Two builds are read, each a link of its own: the image (BUILD/image/**/*.o)
and pmuboot-host (BUILD/host/**/*.o but the unit tests' fakes under tests/).
A file is named by its source ("pmu/freq/freq.c"); an object whose source is
gone (a renamed file) is left out.

    tools/file_circles.py [--build DIR]  exit 0 when there is no circle,
                                         1 printing each circle as a chain
                                         of files, 2 when a build holds no
                                         objects (run make all first) or
                                         nm cannot read one
    tools/file_circles.py --objs DIR --src DIR
                                         one directory of objects, whose
                                         sources are under the other
    tools/file_circles.py --graph        print every use as well
"""
import argparse
import collections
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BUILD = os.environ.get("PMUBOOT_BUILD", "build")
# nm letters of symbols an object defines for others (text, data, read-only, bss, common, weak).
DEFINED = set("TDRBCGSVWi")
# Object folders of a build that are not part of its link: the unit tests' fakes.
NOT_LINKED = ("tests",)


def symbols(paths):
    """{path: (defined, undefined)} global symbol names of each object file (one nm for them all)."""
    table = {path: (set(), set()) for path in paths}
    if not paths:
        return table
    p = subprocess.run(["nm", "-g", "-A", *paths], capture_output=True, text=True)
    if p.returncode != 0:
        raise ValueError(f"nm could not read every object: {p.stderr.strip()}")
    for line in p.stdout.splitlines():
        path, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 2 and parts[0] == "U":
            table[path][1].add(parts[1])
        elif len(parts) == 3 and parts[1] in DEFINED:
            table[path][0].add(parts[2])
    return table


def call_graph(objs):
    """{file: {used file: [symbols]}} over the given {name: path} objects."""
    syms = symbols(sorted(objs.values()))
    table = {name: syms[path] for name, path in objs.items()}
    owner = {}
    for name in sorted(table):
        for s in table[name][0]:
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
    return sorted(out)


def _path(graph, members, a, b):
    """Shortest chain of files from a to b (a excluded) inside members."""
    prev, queue = {a: None}, collections.deque([a])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v]):
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    if b not in prev or b == a:
        # b == a: the shortest way back round (one step out, then home).
        step = next(w for w in sorted(graph[a]) if w in members)
        return [step] + (_path(graph, members, step, a) if step != a else [])
    chain = []
    while b != a:
        chain.append(b)
        b = prev[b]
    return chain[::-1]


def chain(graph, comp):
    """A closed walk through every file of a circle: [first, ..., first]."""
    members = set(comp)
    walk = [comp[0]]
    for target in comp[1:] + [comp[0]]:
        if target in walk[1:] and target != comp[0]:
            continue
        walk += _path(graph, members, walk[-1], target)
    return walk


def describe(graph, comp):
    """The circle as a chain of files, each step naming a symbol that ties it."""
    walk = chain(graph, comp)
    steps = [walk[0]]
    for a, b in zip(walk, walk[1:]):
        syms = graph[a][b]
        steps.append(f"-> {b} ({syms[0]}{f' +{len(syms) - 1}' if len(syms) > 1 else ''})")
    return " ".join(steps)


def objects_in(objdir, srcdir, skip=()):
    """{source name: object path} for the objects under objdir whose source is in srcdir, named by
    their path from srcdir ("pmu/freq/freq.c"); a generated source's object (build/gen/x.c.o) is
    named by its path; a stale object is left out, and so are the folders in skip."""
    if not os.path.isdir(objdir):
        return {}
    objs = {}
    for here, dirs, names in os.walk(objdir):
        rel = os.path.relpath(here, objdir)
        dirs[:] = sorted(d for d in dirs if os.path.normpath(os.path.join(rel, d)) not in skip)
        for n in sorted(names):
            stem, ext = os.path.splitext(n)
            if ext != ".o":
                continue
            candidates = [stem] if stem.endswith(".c") else [stem + ".c", stem + ".asm"]
            for src in candidates:
                name = os.path.normpath(os.path.join(rel, src))
                if os.path.exists(os.path.join(srcdir, name)):
                    objs[name] = os.path.join(here, n)
                    break
    return objs


def check(objdir, srcdir=ROOT, skip=()):
    """(problems, graph) of one link; problems is None when objdir holds no objects."""
    objs = objects_in(objdir, srcdir, skip)
    if not objs:
        return None, {}
    graph = call_graph(objs)
    return [describe(graph, c) for c in circles(graph)], graph


def builds(build):
    """[(label, object directory, folders to skip)] of the two links."""
    build = os.path.join(ROOT, build)
    return [("image", os.path.join(build, "image"), ()),
            ("host", os.path.join(build, "host"), NOT_LINKED)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=DEFAULT_BUILD, help="the build directory (%(default)s)")
    ap.add_argument("--objs", help="one directory of object files instead of the two builds")
    ap.add_argument("--src", default=ROOT, help="where --objs's sources are (%(default)s)")
    ap.add_argument("--graph", action="store_true", help="print every use")
    a = ap.parse_args()
    links = [("objs", a.objs, ())] if a.objs else builds(a.build)
    # A circle of portable files shows in both builds: print it once, naming both.
    found, sizes = {}, []
    for label, objdir, skip in links:
        try:
            problems, graph = check(objdir, a.src if a.objs else ROOT, skip)
        except ValueError as e:
            print(f"file_circles: {objdir}: {e}", file=sys.stderr)
            return 2
        if problems is None:
            print(f"file_circles: no object files in {objdir} (run make all first)", file=sys.stderr)
            return 2
        if a.graph:
            for f in sorted(graph):
                for g, syms in sorted(graph[f].items()):
                    print(f"{label}: {f} -> {g}: {' '.join(syms)}")
        for p in problems:
            found.setdefault(p, []).append(label)
        sizes.append(f"{label} {len(graph)} files, {sum(len(v) for v in graph.values())} uses")
    for p, labels in found.items():
        print(f"circle ({'+'.join(labels)}): {p}")
    print(f"file_circles: {'; '.join(sizes)}; {len(found) or 'no'} circle{'' if len(found) == 1 else 's'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
