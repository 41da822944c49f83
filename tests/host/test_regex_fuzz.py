"""Host: lib/regex.c under hostile patterns, and against the C library's POSIX regexec (tests/fuzz/fuzz_regex.c).

The engine reads instr=REGEX from a medium's pmuboot.cfg in the image and --match on the host.  The
harness is built with AddressSanitizer and UndefinedBehaviorSanitizer and replays the seed corpus plus
every prefix, bit flip and 0x00/0xff byte of each seed (tests/fuzz/replay.c): no crash, a refusal says
where and what, the same answer twice, and regexec's answer wherever POSIX reads the pattern the same
way.  A second check proves the comparison can fail: an input where the two must differ if the engine
dropped alternation is caught by a mutated engine.
"""
import glob
import os
import subprocess
import tempfile

SOURCES = ["tests/fuzz/fuzz_regex.c", "lib/regex.c", "lib/libc_util.c", "lib/decimal.c", "tests/fuzz/replay.c"]
FLAGS = ["-std=gnu11", "-g", "-O1", "-DPMUBOOT_HOSTED", "-I.", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
CORPUS = "tests/fuzz/corpus/regex"


def _build(sources, out):
    p = subprocess.run(["gcc", *FLAGS, *sources, "-o", out], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]


def test_replay_corpus_and_mutations(ctx):
    seeds = sorted(glob.glob(os.path.join(CORPUS, "*")))
    assert len(seeds) >= 8, seeds
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "replay")
        _build(SOURCES, exe)
        p = subprocess.run([exe, "--mutate", *seeds], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-3000:])
        assert "replay: %d files" % len(seeds) in p.stdout, p.stdout
        assert int(p.stdout.split(",")[1].split()[0]) > 1000, p.stdout


def test_a_wrong_answer_is_caught(ctx):
    """The engine with its alternation's second branch never taken: the seed `alternation` must fail."""
    with open("lib/regex.c") as f:
        src = f.read()
    broken = src.replace("re->insn[split].y = re->n;\n\t\tif (!gen(p, nd->b))",
                         "re->insn[split].y = split;\n\t\tif (!gen(p, nd->b))")
    assert broken != src, "lib/regex.c's alternation is no longer where this test breaks it"
    with tempfile.TemporaryDirectory() as d:
        mutated = os.path.join(d, "regex.c")
        with open(mutated, "w") as f:
            f.write(broken)
        exe = os.path.join(d, "replay")
        _build([s if s != "lib/regex.c" else mutated for s in SOURCES], exe)
        p = subprocess.run([exe, os.path.join(CORPUS, "alternation")], capture_output=True, text=True, timeout=60)
        assert p.returncode != 0, p.stdout
        assert "regexec" in p.stderr and "property broken" in p.stderr, p.stderr[-2000:]
