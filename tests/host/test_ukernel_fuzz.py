"""Host: the kernel file reader under hostile input (tests/fuzz/fuzz_ukernel.c).

Builds the fuzz target with AddressSanitizer and UndefinedBehaviorSanitizer
and replays the seed corpus plus every prefix, bit flip and 0x00/0xff byte
of each seed (tests/fuzz/replay.c); with clang's libFuzzer present it also
fuzzes for a bounded number of runs.  Any crash, sanitizer report or broken
round trip fails the test.
"""
import os
import shutil
import subprocess
import tempfile

from testlib import replay

SOURCES = ["tests/fuzz/fuzz_ukernel.c", "bench/ukernel.c", "bench/ukernel_encode_host.c", "lib/crc32.c"]
FLAGS = replay.FLAGS
CORPUS = "tests/fuzz/corpus/ukernel"


def test_replay_corpus_and_mutations(ctx):
    replay.replay_mutations(SOURCES, CORPUS, min_seeds=4, min_inputs=1000)


def test_libfuzzer_bounded(ctx):
    from testlib import Skip
    if not shutil.which("clang"):
        raise Skip("clang is not installed (libFuzzer comes with it)")
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "fuzz")
        p = subprocess.run(["clang", *FLAGS, "-fsanitize=fuzzer", *SOURCES, "-o", exe],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0 and "fuzzer" in p.stderr:
            raise Skip("this clang has no libFuzzer runtime")
        assert p.returncode == 0, p.stderr[-3000:]
        work = os.path.join(d, "corpus")
        shutil.copytree(CORPUS, work)
        p = subprocess.run([exe, "-runs=200000", "-max_len=2200", "-seed=1", work],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-3000:]
        assert "Done 200000 runs" in p.stderr, p.stderr[-1500:]
