"""Fuzz smoke test: pmucap on 300 deterministic mutations of the real captures.

Mutations (tests/host/pmucap_child.py): flipped, deleted, repeated and inserted bytes, cuts,
swapped lines, values replaced by hostile JSON (NaN, 1e999, 5000 digits, deep nesting, wrong
types); half of the .jsonl ones get a fresh, correct end record so wrong types reach the typed
field readers instead of stopping at the CRC.  Every command must answer: exit 0 (warnings
allowed with --allow-incomplete) or a refusal of exactly one line; never an exception, an
internal error or a hang.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "captures")
SEED = 15
MUTATIONS = 300
TIME_LIMIT_S = 120       # the whole run; a hang fails here
PER_COMMAND_LIMIT_S = 5  # any single command


def test_fuzz_mutated_captures(ctx):
    child = os.path.join(HERE, "pmucap_child.py")
    caps = [os.path.join(FIX, "qemu-usb-results.jsonl"), os.path.join(FIX, "qemu-usb-serial.log")]
    p = subprocess.run([sys.executable, child, os.path.join(ctx.root, "tools"), "fuzz", str(SEED), str(MUTATIONS),
                        *caps], capture_output=True, text=True, timeout=TIME_LIMIT_S)
    assert p.returncode == 0, p.stderr[-2000:]
    res = json.loads(p.stdout)
    assert res["mutations"] == MUTATIONS and res["commands"] == MUTATIONS * 8, res
    assert not res["broken"], (len(res["broken"]), res["broken"][:3])
    assert res["max_s"] < PER_COMMAND_LIMIT_S, res["max_s"]
    # The mutations reach both sides: refusals, and accepted captures whose fields were read.
    assert res["refused"] > 100 and res["accepted"] > 100 and res["reframed"] > 50, res
