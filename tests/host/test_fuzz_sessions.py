"""make fuzz: every harness runs to its budget and is reported, a failure in one hides none.

The recipe's own command (read with `make -n fuzz`) is run over stand-in harnesses that answer
as libFuzzer does: one breaks a property on every input, one hits a sanitizer, one is not
built, two pass.  Then a short real session (clang's libFuzzer) over the config harness, whose
round trip must hold for kernel.NAME= lines.  docs/fuzzing.md describes make fuzz.
"""
import os
import shlex
import shutil
import stat
import subprocess
import tempfile

from testlib import BUILD, Skip

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Stand-ins for build/fuzz/fuzz_NAME: each notes the budget it was given, then answers as libFuzzer does.
FAKE = r"""#!/bin/sh
for a in "$@"; do
  case "$a" in
    -max_total_time=*) echo "${a#-max_total_time=}" >> "$0.budgets" ;;
    -artifact_prefix=*) prefix="${a#-artifact_prefix=}" ;;
  esac
done
case "$(basename "$0")" in
  fuzz_breaks)
    echo "INFO: Seed: 1"
    echo "tests/fuzz/fuzz_breaks.c:49: property broken: config_apply_word(&c, word)" >&2
    echo "==7== ERROR: libFuzzer: deadly signal" >&2
    : > "${prefix}crash-0f0f"
    echo "artifact_prefix='$prefix'; Test unit written to ${prefix}crash-0f0f" >&2
    exit 1 ;;
  fuzz_overflows)
    echo "==9==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011 at pc 0x1" >&2
    echo "artifact_prefix='$prefix'; Test unit written to ${prefix}crash-beef" >&2
    exit 1 ;;
  *)
    echo "Done 1234 runs in 1 second(s)"
    echo "stat::number_of_executed_units: 1234"
    echo "stat::peak_rss_mb: 42"
    exit 0 ;;
esac
"""
NAMES = ["breaks", "good_a", "overflows", "unbuilt", "good_b"]


def recipe_command(build, seconds, names):
    """The sessions.py command `make fuzz` runs, as make prints it."""
    p = subprocess.run(["make", "-n", "--no-print-directory", "fuzz", f"B={build}", f"FUZZ_SECONDS={seconds}",
                        f"FUZZ_TARGETS={' '.join(names)}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = [l for l in p.stdout.splitlines() if "tests/fuzz/sessions.py" in l]
    assert len(lines) == 1, f"make -n fuzz runs no tests/fuzz/sessions.py:\n{p.stdout[-2000:]}{p.stderr[-2000:]}"
    return shlex.split(lines[0])


def test_every_harness_runs_and_each_is_reported(ctx):
    with tempfile.TemporaryDirectory() as build:
        os.makedirs(os.path.join(build, "fuzz"))
        for n in NAMES:
            if n == "unbuilt":
                continue
            exe = os.path.join(build, "fuzz", f"fuzz_{n}")
            with open(exe, "w") as f:
                f.write(FAKE)
            os.chmod(exe, os.stat(exe).st_mode | stat.S_IXUSR)
        cmd = recipe_command(build, 2, NAMES)
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
        out = p.stdout
        assert p.returncode != 0, f"exit 0 although harnesses failed:\n{out}"
        # Every harness after a failing one still ran, with the whole budget, and has its line.
        for n in ("good_a", "good_b"):
            with open(os.path.join(build, "fuzz", f"fuzz_{n}.budgets")) as f:
                assert f.read().split() == ["2"], n
            assert f"fuzz: {n}: passed, 1234 inputs" in out, out
        # A finding is named, with its input; one that recurs on the same input is not fuzzed forever.
        assert "fuzz: breaks: FAILED (1 finding)" in out, out
        assert ("property broken: config_apply_word(&c, word) (tests/fuzz/fuzz_breaks.c:49); input "
                f"{build}/fuzz/crashes/breaks/crash-0f0f") in out, out
        with open(os.path.join(build, "fuzz", "fuzz_breaks.budgets")) as f:
            assert len(f.read().split()) == 2, "a finding that recurs on its input is tried once more, then left"
        assert "AddressSanitizer: heap-buffer-overflow" in out, out
        assert "fuzz: unbuilt: FAILED" in out and "not built" in out, out
        assert out.rstrip().endswith("fuzz: 2 of 5 harnesses passed; failed: breaks overflows unbuilt"), out
        with open(os.path.join(build, "fuzz", "breaks.log")) as f:
            assert "property broken" in f.read()


def test_real_session_config_round_trip(ctx):
    """One short libFuzzer session over the config harness, from seeds that hold kernel.NAME= lines."""
    if not shutil.which("clang"):
        raise Skip("clang is not installed (tools/deps.sh --for fuzz installs it)")
    seeds = os.path.join(ROOT, "tests", "fuzz", "corpus", "config")
    assert any("kernel." in open(os.path.join(seeds, f), errors="replace").read() for f in os.listdir(seeds)), \
        "no config seed holds a kernel.NAME= line"
    p = subprocess.run(["make", "--no-print-directory", "-s", "fuzz", f"B={BUILD}", "FUZZ_SECONDS=1",
                        "FUZZ_TARGETS=config"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "fuzz: config: passed" in p.stdout, p.stdout[-2000:]
