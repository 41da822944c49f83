"""Host: lib/regex.c under hostile patterns, and against the C library's POSIX regexec (tests/fuzz/fuzz_regex.c).

The engine reads instr=REGEX from a medium's pmuboot.cfg in the image and --match on the host.  The
harness is built with AddressSanitizer and UndefinedBehaviorSanitizer and replays the seed corpus plus
every prefix, bit flip and 0x00/0xff byte of each seed (tests/fuzz/replay.c): no crash, a refusal says
where and what, the same answer twice, and regexec's answer wherever POSIX reads the pattern the same
way.  A second check proves the comparison can fail: an input where the two must differ if the engine
dropped alternation is caught by a mutated engine.
"""
import os
import subprocess
import tempfile

from testlib import replay

SOURCES = ["tests/fuzz/fuzz_regex.c", "lib/regex.c", "lib/libc_util.c", "lib/decimal.c"]
CORPUS = "tests/fuzz/corpus/regex"


def test_replay_corpus_and_mutations(ctx):
    replay.replay_mutations(SOURCES, CORPUS, min_seeds=8, min_inputs=1000)


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
        replay.build([s if s != "lib/regex.c" else mutated for s in SOURCES] + ["tests/fuzz/replay.c"], exe)
        p = subprocess.run([exe, os.path.join(CORPUS, "alternation")], capture_output=True, text=True, timeout=60)
        assert p.returncode != 0, p.stdout
        assert "regexec" in p.stderr and "property broken" in p.stderr, p.stderr[-2000:]
