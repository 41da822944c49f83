"""No circle of files in the image or in pmuboot-host (tools/file_circles.py, on the builds' objects),
and the checker shown to catch one, inside a folder and across folders, on objects compiled here."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tools"))
import file_circles  # noqa: E402


_graphs = {}


def _graph(ctx, label):
    """The use graph of one build ("image" or "host"), read once for the tests here."""
    if label not in _graphs:
        name, objdir, skip = next(b for b in file_circles.builds(ctx.build) if b[0] == label)
        problems, _graphs[label] = file_circles.check(objdir, ctx.root, skip)
        assert problems is not None, f"no objects in {objdir}"
    return _graphs[label]


def _compile(files):
    """Compile {path.c: text} into a temporary directory; returns it (sources and objects side by side)."""
    d = tempfile.mkdtemp(prefix="pmuboot-circles-")
    for name, text in files.items():
        src = os.path.join(d, name)
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w") as f:
            f.write(text)
        subprocess.run(["gcc", "-c", "-O2", "-fpic", "-o", src[:-2] + ".o", src], check=True)
    return d


def _check(files):
    d = _compile(files)
    try:
        return file_circles.check(d, d)
    finally:
        subprocess.run(["rm", "-rf", d])


def test_no_circle_of_files(ctx):
    p = subprocess.run([sys.executable, "tools/file_circles.py", "--build", ctx.build], cwd=ctx.root,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-1000:]


def test_both_builds_are_read(ctx):
    """The check read every folder of both links, not an empty directory or one folder."""
    image, host = _graph(ctx, "image"), _graph(ctx, "host")
    assert len(image) >= 100 and len(host) >= 100, (len(image), len(host))
    assert "platform/metal/trap.c" in image["platform/metal/runtime.c"], image["platform/metal/runtime.c"]
    assert "platform/metal/trap.c" in image["platform/metal/entry.asm"], image["platform/metal/entry.asm"]
    assert "boot/mp.c" in image["boot/mp_pass.c"], image["boot/mp_pass.c"]
    assert "cpu/cpu.c" in image["run/run.c"], image["run/run.c"]
    assert "build/gen/uarch_table.c" in image["cpu/uarch.c"], image["cpu/uarch.c"]
    assert "host/cmd_run.c" in host["host/main.c"], host["host/main.c"]
    assert "linux/hw_linux.c" in host["cpu/cpu.c"], host["cpu/cpu.c"]
    # The unit tests' fakes are not part of pmuboot-host's link.
    assert not [f for f in host if f.startswith("tests/")], sorted(host)
    assert not [f for f in host if f.startswith(("boot/", "platform/metal/"))], sorted(host)


def test_trap_calls_only_below_it(ctx):
    """trap.c exposes hooks that the runtime registers; it calls nothing above itself."""
    uses = _graph(ctx, "image")["platform/metal/trap.c"]
    assert set(uses) <= {"platform/activity.c", "platform/fixup.c", "platform/nmi.c", "lib/libc_min.c"}, uses


def test_platform_is_passed_down(ctx):
    """No file fetches the platform from runtime.c: only boot/ (efi_main and the MP pass) calls into it."""
    graph = _graph(ctx, "image")
    callers = sorted(f for f, uses in graph.items() if "platform/metal/runtime.c" in uses)
    assert all(f.startswith("boot/") for f in callers), callers


def test_lower_files_stay_lower(ctx):
    """The shared pieces moved down to break circles call nothing of the files above them."""
    for label in ("image", "host"):
        graph = _graph(ctx, label)
        below = {
            "pmu/count/count_msr_state.c": {"pmu/count/count_msr.c", "pmu/count/count_msr_pass.c",
                                            "pmu/count/count_msr_report.c", "pmu/count/count.c"},
            "pmu/count/count_td.c": {"pmu/count/count.c", "pmu/count/count_msr_pass.c"},
            "pmu/freq/freq_amd.c": {"pmu/freq/freq.c"},
            "pmu/freq/freq_intel.c": {"pmu/freq/freq.c"},
            "cpu/cpu.c": {"cpu/topo.c"},
        }
        for low, high in below.items():
            assert not set(graph[low]) & high, (label, low, graph[low])
    assert "boot/mp_pass.c" not in _graph(ctx, "image")["boot/mp.c"]
    host = _graph(ctx, "host")
    assert "cpu/cpuid_dump_host.c" not in host["cpu/cpuid_dump_tagged_host.c"], host["cpu/cpuid_dump_tagged_host.c"]
    assert "host/main.c" not in host["host/cmd_run.c"], host["host/cmd_run.c"]


def test_circle_is_caught(ctx):
    problems, graph = _check({
        "a.c": "void b(void); void a(void) { b(); }\n",
        "b.c": "void c(void); void b(void) { c(); }\n",
        "c.c": "void a(void); void c(void) { a(); }\n",
    })
    assert problems == ["a.c -> b.c (b) -> c.c (c) -> a.c (a)"], problems


def test_circle_across_folders_is_caught(ctx):
    """Two files in two folders that use each other, beside a third that only uses them."""
    problems, graph = _check({
        "low/x.c": "extern int y_count; int x_get(void) { return y_count; }\n",
        "high/y.c": "int x_get(void); int y_count; int y(void) { return x_get() + 1; }\n",
        "top.c": "int y(void); int main(void) { return y(); }\n",
    })
    assert problems == ["high/y.c -> low/x.c (x_get) -> high/y.c (y_count)"], problems
    assert graph["top.c"] == {"high/y.c": ["y"]}, graph


def test_every_file_of_a_circle_is_in_its_chain(ctx):
    """A circle that is no single ring (a hub and two spokes) is still one chain naming every file."""
    problems, _ = _check({
        "hub.c": "void l(void); void r(void); void hub_note(void) { } void hub(void) { l(); r(); }\n",
        "l.c": "void hub_note(void); void l(void) { hub_note(); }\n",
        "r.c": "void hub_note(void); void r(void) { hub_note(); }\n",
    })
    assert problems == ["hub.c -> l.c (l) -> hub.c (hub_note) -> r.c (r) -> hub.c (hub_note)"], problems


def test_tool_exits_1_naming_the_circle(ctx):
    d = _compile({"a.c": "void b(void); void a(void) { b(); }\n", "b.c": "void a(void); void b(void) { a(); }\n"})
    try:
        p = subprocess.run([sys.executable, "tools/file_circles.py", "--objs", d, "--src", d], cwd=ctx.root,
                           capture_output=True, text=True)
        assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
        assert "circle (objs): a.c -> b.c (b) -> a.c (a)" in p.stdout, p.stdout
        empty = tempfile.mkdtemp(prefix="pmuboot-circles-")
        p = subprocess.run([sys.executable, "tools/file_circles.py", "--objs", empty, "--src", empty],
                           cwd=ctx.root, capture_output=True, text=True)
        os.rmdir(empty)
        assert p.returncode == 2 and "no object files" in p.stderr, (p.returncode, p.stderr)
    finally:
        subprocess.run(["rm", "-rf", d])


def test_unreadable_object_is_named(ctx):
    """An object nm cannot read is an error naming it, not a traceback."""
    d = _compile({"a.c": "void a(void) { }\n"})
    try:
        with open(os.path.join(d, "a.o"), "wb") as f:
            f.write(b"not an object file\n")
        p = subprocess.run([sys.executable, "tools/file_circles.py", "--objs", d, "--src", d], cwd=ctx.root,
                           capture_output=True, text=True)
        assert p.returncode == 2 and "a.o" in p.stderr and "Traceback" not in p.stderr, (p.returncode, p.stderr)
    finally:
        subprocess.run(["rm", "-rf", d])


def test_hook_is_no_edge(ctx):
    """A lower file that calls a registered pointer does not depend on who registered it."""
    problems, graph = _check({
        "low.c": "static void (*hook)(void); void low_set(void (*h)(void)) { hook = h; }\n"
                 "void low(void) { if (hook) hook(); }\n",
        "high.c": "void low_set(void (*h)(void)); void low(void);\n"
                  "static void up(void) { } void high(void) { low_set(up); low(); }\n",
    })
    assert problems == [], problems
    assert graph == {"high.c": {"low.c": ["low", "low_set"]}, "low.c": {}}, graph


def test_stale_object_is_ignored(ctx):
    """An object whose source is gone (a renamed file) is not part of the graph."""
    d = _compile({"a.c": "void b(void); void a(void) { b(); }\n", "b.c": "void a(void); void b(void) { a(); }\n"})
    try:
        os.remove(os.path.join(d, "b.c"))
        problems, graph = file_circles.check(d, d)
        assert problems == [] and list(graph) == ["a.c"], (problems, graph)
    finally:
        subprocess.run(["rm", "-rf", d])
