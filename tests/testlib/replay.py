"""A fuzz harness replayed without libFuzzer, under ASan and UBSan (tests/fuzz/replay.c): the seed corpus and
every prefix, bit flip and 0x00/0xff byte of each seed.  The host tests of the harnesses that `make test`
replays (the kernel file reader, the kernel pack reader, the regular expressions) share it."""
import glob
import os
import subprocess
import tempfile

FLAGS = ["-std=gnu11", "-g", "-O1", "-DPMUBOOT_HOSTED", "-I.", "-fsanitize=address,undefined",
         "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


def build(sources, out, cc="gcc"):
    """The harness's sources, with the sanitizers, into out; a failed build fails the test with its errors."""
    p = subprocess.run([cc, *FLAGS, *sources, "-o", out], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]


def replay_mutations(sources, corpus, min_seeds, min_inputs):
    """Build sources with tests/fuzz/replay.c and replay corpus with every mutation: no finding, every seed
    read, at least min_inputs inputs in all.  Returns replay's output."""
    seeds = sorted(glob.glob(os.path.join(corpus, "*")))
    assert len(seeds) >= min_seeds, seeds
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "replay")
        build(list(sources) + ["tests/fuzz/replay.c"], exe)
        p = subprocess.run([exe, "--mutate", *seeds], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-3000:])
        assert "replay: %d files" % len(seeds) in p.stdout, p.stdout
        assert int(p.stdout.split(",")[1].split()[0]) > min_inputs, p.stdout
        return p.stdout
