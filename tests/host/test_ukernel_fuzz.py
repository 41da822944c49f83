"""Host: the kernel file reader under hostile input (tests/fuzz/fuzz_ukernel.c).

Builds the fuzz target with AddressSanitizer and UndefinedBehaviorSanitizer
and replays the seed corpus plus every prefix, bit flip and 0x00/0xff byte
of each seed (tests/fuzz/replay.c); with clang's libFuzzer present it also
fuzzes for a bounded number of runs.  Any crash, sanitizer report or broken
round trip fails the test.
"""
import glob
import os
import shutil
import subprocess
import tempfile

SOURCES = ["tests/fuzz/fuzz_ukernel.c", "bench/ukernel.c", "bench/ukernel_encode_host.c", "lib/crc32.c"]
FLAGS = ["-std=gnu11", "-g", "-O1", "-DPMUBOOT_HOSTED", "-I.", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
CORPUS = "tests/fuzz/corpus/ukernel"


def _build(cc, extra, out):
    p = subprocess.run([cc, *FLAGS, *extra, "-o", out], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]


def test_replay_corpus_and_mutations(ctx):
    seeds = sorted(glob.glob(os.path.join(CORPUS, "*")))
    assert len(seeds) >= 4, seeds
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "replay")
        _build("gcc", SOURCES + ["tests/fuzz/replay.c"], exe)
        p = subprocess.run([exe, "--mutate", *seeds], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-3000:])
        assert "replay: %d files" % len(seeds) in p.stdout, p.stdout
        inputs = int(p.stdout.split(",")[1].split()[0])
        assert inputs > 1000, p.stdout


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
