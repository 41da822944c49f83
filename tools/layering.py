#!/usr/bin/env python3
"""tools/layering.py - check pmuboot's dependency rule on the #include graph.

The rule (docs/developing.md, "The dependency rule"): each room may include
only the rooms listed for it below, and no files include each other in a
circle, inside a room or across rooms.  Every include is written from the
repository root ("pmu/count/count.h"); a quoted include that is not such a
path is an error too, so the graph read here is the graph the compiler sees.

    tools/layering.py [--root DIR]     exit 0 when the tree keeps the rule,
                                       1 with one line per violation
"""
import argparse
import os
import re
import subprocess
import sys

# A room is the longest prefix of a file's path found in this table.  The
# value lists the rooms it may include besides itself.
ALLOWED = {
    "lib": [],
    "platform": ["lib"],
    "platform/metal": ["platform", "lib"],
    "linux": ["platform", "lib"],
    "net": ["lib"],
    "fwtables": ["lib"],
    "events": ["lib", "platform"],
    "cpu": ["lib", "platform"],
    # The instruction catalogue and the kernels built from it (issue 31); bench/ measures them.
    "instr": ["cpu", "lib", "platform"],
    "pmu/caps": ["cpu", "lib", "platform"],
    "pmu/count": ["pmu/caps", "cpu", "events", "lib", "platform"],
    "pmu/ibs": ["pmu/caps", "cpu", "events", "lib", "platform"],
    "pmu/freq": ["pmu/count", "pmu/caps", "cpu", "events", "lib", "platform"],
    # The audit's topdown check reads which PERF_METRICS bytes the core's TMA table uses (pmu/metrics).
    "pmu/audit": ["pmu/metrics", "pmu/freq", "pmu/count", "pmu/caps", "cpu", "events", "lib", "platform"],
    "pmu/metrics": ["pmu/count", "pmu/caps", "cpu", "events", "lib", "platform"],
    "bench": ["pmu/metrics", "pmu/audit", "pmu/freq", "pmu/count", "pmu/ibs", "pmu/caps", "cpu", "instr", "events",
              "lib", "platform"],
    "run": ["net", "bench", "pmu/metrics", "pmu/audit", "pmu/freq", "pmu/count", "pmu/ibs", "pmu/caps", "cpu",
            "instr", "events", "lib", "platform"],
    "output": ["run", "net", "bench", "pmu/metrics", "pmu/audit", "pmu/freq", "pmu/count", "pmu/ibs", "pmu/caps", "cpu",
               "instr", "events", "lib", "platform"],
    "boot": ["output", "net", "fwtables", "run", "bench", "pmu/metrics", "pmu/audit", "pmu/freq", "pmu/count",
             "pmu/ibs", "pmu/caps", "cpu", "instr", "events", "lib", "platform/metal", "platform"],
    "host": ["linux", "output", "net", "fwtables", "run", "bench", "pmu/metrics", "pmu/audit", "pmu/freq",
             "pmu/count", "pmu/ibs", "pmu/caps", "cpu", "instr", "events", "lib", "platform"],
    "tests/fake": ["run", "net", "bench", "pmu/metrics", "pmu/audit", "pmu/freq", "pmu/count", "pmu/ibs", "pmu/caps",
                   "cpu", "instr", "events", "lib", "platform"],
    "tests/fuzz": ["tests/fake", "linux", "host", "output", "net", "fwtables", "run", "bench", "pmu/metrics",
                   "pmu/audit", "pmu/freq", "pmu/count", "pmu/ibs", "pmu/caps", "cpu", "instr", "events", "lib",
                   "platform"],
    "tests/unit": ["tests/fake", "linux", "host", "boot", "output", "net", "fwtables", "run", "bench",
                   "pmu/metrics", "pmu/audit", "pmu/freq", "pmu/count", "pmu/ibs", "pmu/caps", "cpu", "instr", "events",
                   "lib", "platform"],
}
# platform/ declares interfaces that boot/, platform/metal/ and linux/ fill in (firmware.h, hw.h); it never includes them.
SOURCES = (".c", ".h", ".asm", ".inc")
INCLUDE = re.compile(r'^\s*[#%]\s*include\s+"([^"]+)"', re.M)
# Generated headers, found in $(B)/gen: the build version, enum event_role, lib/unlz.c's test vectors.
GENERATED = ("version.h", "event_roles.h", "unlz_vectors.h", "build/")


def room_of(path):
    best = None
    for room in ALLOWED:
        if path == room or path.startswith(room + "/"):
            if best is None or len(room) > len(best):
                best = room
    return best


def tracked_sources(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout.split()
    return sorted(p for p in out if p.endswith(SOURCES) and os.path.isfile(os.path.join(root, p)))


def read_graph(root, files):
    """{file: [included file]} and a list of problems with the includes themselves."""
    graph, problems = {}, []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        graph[f] = []
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            if inc.startswith(GENERATED):
                continue
            if not os.path.isfile(os.path.join(root, inc)):
                problems.append(f"{f}:{line}: include \"{inc}\" is not a path from the repository root")
                continue
            graph[f].append((inc, line))
    return graph, problems


def edge_problems(graph):
    problems = []
    for f, incs in graph.items():
        src = room_of(f)
        if src is None:
            continue
        for inc, line in incs:
            dst = room_of(inc)
            if dst is None or dst == src:
                continue
            if dst not in ALLOWED[src]:
                problems.append(f"{f}:{line}: {src}/ may not include {dst}/ (\"{inc}\")")
    return problems


def find_cycle(nodes, edges):
    """One cycle in the directed graph as a list of nodes, or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {n: WHITE for n in nodes}
    stack = []

    def visit(n):
        colour[n] = GREY
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if colour.get(m, BLACK) == GREY:
                return stack[stack.index(m):] + [m]
            if colour.get(m) == WHITE:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        colour[n] = BLACK
        return None

    for n in sorted(nodes):
        if colour[n] == WHITE:
            c = visit(n)
            if c:
                return c
    return None


def cycle_problems(graph):
    """Circles between rooms, and between headers (a .c file is never included, so a circle of
    files is a circle of headers)."""
    problems = []
    rooms = {room_of(f) for f in graph} - {None}
    room_edges, file_edges = {}, {}
    for f, incs in graph.items():
        for inc, _ in incs:
            a, b = room_of(f), room_of(inc)
            if a and b and a != b:
                room_edges.setdefault(a, set()).add(b)
            file_edges.setdefault(f, set()).add(inc)
    c = find_cycle(rooms, room_edges)
    if c:
        problems.append("rooms include each other in a circle: " + " -> ".join(c))
    c = find_cycle(set(graph), file_edges)
    if c:
        problems.append("files include each other in a circle: " + " -> ".join(c))
    return problems


GUARD = re.compile(r"^\s*#\s*ifndef\s+(\w+)", re.M)


def guard_problems(root, files):
    """A header's include guard names its path (PMUBOOT_ + the path, upper case, / and . as _), so a
    header moved to another room cannot keep a stale name that collides with the next one there."""
    problems = []
    for f in files:
        if not f.endswith(".h"):
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            m = GUARD.search(fh.read())
        want = "PMUBOOT_" + re.sub(r"[/.]", "_", f).upper()
        if m and m.group(1) != want:
            problems.append(f"{f}: include guard {m.group(1)}, expected {want}")
    return problems


def check(root):
    files = tracked_sources(root)
    graph, problems = read_graph(root, files)
    return problems + edge_problems(graph) + cycle_problems(graph) + guard_problems(root, files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    problems = check(args.root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
