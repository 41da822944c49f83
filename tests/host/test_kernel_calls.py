"""No circle of calls between platform/ files (tools/kernel_calls.py, on the image's objects), and
the checker shown to catch one on objects compiled here."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "tools"))
import kernel_calls  # noqa: E402


def _objdir(ctx):
    return os.path.join(ctx.build, "image", "platform")


def _compile(files):
    """Compile {name.c: text} into a temporary directory; returns it (sources and objects side by side)."""
    d = tempfile.mkdtemp(prefix="pmuboot-calls-")
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        subprocess.run(["gcc", "-c", "-O2", "-fpic", "-o", os.path.join(d, name[:-2] + ".o"),
                        os.path.join(d, name)], check=True)
    return d


def _check(files):
    d = _compile(files)
    try:
        return kernel_calls.check(d, d)
    finally:
        subprocess.run(["rm", "-rf", d])


def test_kernel_files_call_in_no_circle(ctx):
    p = subprocess.run([sys.executable, "tools/kernel_calls.py", "--objs", _objdir(ctx)], cwd=ctx.root,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-1000:]


def test_graph_is_the_real_one(ctx):
    """The check read the platform/ objects, not an empty directory: the known uses are there."""
    problems, graph = kernel_calls.check(_objdir(ctx))
    assert problems == [], problems
    assert len(graph) >= 15, sorted(graph)
    assert "metal/trap.c" in graph["metal/runtime.c"], graph["metal/runtime.c"]
    assert "metal/trap.c" in graph["metal/entry.asm"], graph["metal/entry.asm"]
    assert "window.c" in graph["metal/platform_metal.c"], graph["metal/platform_metal.c"]


def test_trap_calls_only_below_it(ctx):
    """trap.c exposes hooks that the runtime registers; it calls nothing above itself."""
    _, graph = kernel_calls.check(_objdir(ctx))
    assert set(graph["metal/trap.c"]) <= {"activity.c", "fixup.c", "nmi.c"}, graph["metal/trap.c"]


def test_platform_is_passed_down(ctx):
    """No file fetches the platform from runtime.c: nothing but efi_main (outside platform/) calls into it."""
    _, graph = kernel_calls.check(_objdir(ctx))
    callers = sorted(f for f, uses in graph.items() if "metal/runtime.c" in uses)
    assert callers == [], callers


def test_circle_is_caught(ctx):
    problems, graph = _check({
        "a.c": "void b(void); void a(void) { b(); }\n",
        "b.c": "void c(void); void b(void) { c(); }\n",
        "c.c": "void a(void); void c(void) { a(); }\n",
    })
    assert len(problems) == 1, problems
    assert "a.c -> b.c (b)" in problems[0] and "c.c -> a.c (a)" in problems[0], problems


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
        problems, graph = kernel_calls.check(d, d)
        assert problems == [] and list(graph) == ["a.c"], (problems, graph)
    finally:
        subprocess.run(["rm", "-rf", d])
