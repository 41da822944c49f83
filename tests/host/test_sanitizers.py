"""Sanitizers, a second compiler and the fuzz corpora, as counted tests.

`make test-slow` builds the unit tests and the fuzz corpus replayers a second
time with ASan+UBSan in <build>/asan (make test-builds).  Here each of those
unit binaries is one test, each harness's corpus replay is one test, and the
host build is compiled with clang and with gcc -O2 -Wformat-truncation=2
(both -Werror), each one test.  docs/fuzzing.md explains the layout.
"""
import glob
import os
import re
import subprocess

from testlib import BUILD, Skip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASAN = os.path.join(ROOT, BUILD, "asan")
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
SAN_ENV = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP",
               ASAN_OPTIONS="abort_on_error=0:detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1",
               LSAN_OPTIONS="suppressions=" + os.path.join(ROOT, "tests", "lsan.supp"))
SAN_REPORT = re.compile(r"ERROR: (Address|Leak)Sanitizer|runtime error:")


def need(path):
    if not os.path.exists(path):
        raise Skip(f"{os.path.relpath(path, ROOT)} is not built (make test-builds)")


def unit_case(name):
    def run(ctx):
        exe = os.path.join(ASAN, "tests", name)
        need(exe)
        p = subprocess.run([exe], capture_output=True, text=True, errors="replace", timeout=300, env=SAN_ENV)
        out = p.stdout + p.stderr
        assert not SAN_REPORT.search(out), out[-3000:]
        assert p.returncode == 0, f"exit {p.returncode}\n{out[-3000:]}"
        assert re.search(r"^ok \d+", p.stdout, re.M), "no test ran"
    return run


def replay_case(name):
    def run(ctx):
        exe = os.path.join(ASAN, "fuzz", f"replay_{name}")
        need(exe)
        corpus = os.path.join(CORPUS, name)
        files = [f for f in os.listdir(corpus) if not f.startswith(".")]
        assert files, f"{corpus} holds no seeds"
        p = subprocess.run([exe, corpus], capture_output=True, text=True, errors="replace", timeout=300,
                           env=SAN_ENV)
        out = p.stdout + p.stderr
        assert not SAN_REPORT.search(out) and p.returncode == 0, f"exit {p.returncode}\n{out[-3000:]}"
        assert f"{len(files)} inputs" in p.stdout, p.stdout
    return run


def compile_case(build_dir, make_args, tool):
    """The host build in its own directory, -Werror: any warning fails it and is shown."""
    def run(ctx):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            raise Skip(f"{tool} is not installed (tools/deps.sh installs it)")
        p = subprocess.run(["make", "--no-print-directory", "-s", f"B={os.path.join(BUILD, build_dir)}",
                            *make_args, "host"], cwd=ROOT, capture_output=True, text=True, timeout=900)
        out = p.stdout + p.stderr
        warnings = [ln for ln in out.splitlines() if "warning:" in ln or "error:" in ln]
        assert p.returncode == 0 and not warnings, "\n".join(warnings[:20]) or out[-3000:]
    return run


UNITS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "tests", "unit", "test_*.c")))
HARNESSES = sorted(os.path.basename(p)[len("fuzz_"):-2] for p in glob.glob(os.path.join(ROOT, "tests", "fuzz", "fuzz_*.c")))

CASES = [(f"asan_unit[{u[:-2]}]", unit_case(u[:-2])) for u in UNITS]
CASES += [(f"corpus_replay[{h}]", replay_case(h)) for h in HARNESSES]
CASES += [
    ("host_build[clang]", compile_case("clang", ["CC=clang"], "clang")),
    ("host_build[gcc -O2 -Wformat-truncation=2]",
     compile_case("gcc-format-truncation", ["HOST_EXTRA_CFLAGS=-O2 -Wformat-truncation=2"], "gcc")),
]


def test_every_harness_has_a_corpus(ctx):
    for h in HARNESSES:
        d = os.path.join(CORPUS, h)
        assert os.path.isdir(d) and os.listdir(d), f"tests/fuzz/corpus/{h}/ is missing or empty"
