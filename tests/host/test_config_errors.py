"""Host: an option's error names where the option was written, even when it is found later.

selftest= words are checked as they are read; events= names can only be looked up on the core
that counts them (the bench stage), so the option keeps its source for that error.  On the host
the source of a word is its command-line argument (the image: pmuboot.cfg:LINE or load-options,
tests/qemu/test_config_sources.py).
"""
import json

PREFIX = "@pmuboot "


def test_selftest_and_events_errors_name_their_argument(ctx):
    p = ctx.run_host("run", "bench=store_forward.forward", "iterations=100", "reps=3", "warmup=0",
                     "events=NO_SUCH_EVENT", "selftest=fixup,bogus", "save=off")
    recs = [json.loads(l[len(PREFIX):]) for l in p.stdout.splitlines() if l.startswith(PREFIX)]
    assert recs and recs[-1]["type"] == "end", p.stdout[-1500:]
    errors = {e["what"]: e for e in recs if e["type"] == "error"}
    assert set(errors) == {"events", "selftest"}, errors
    assert errors["events"]["source"] == "argument 5", errors["events"]
    assert "NO_SUCH_EVENT" in errors["events"]["message"], errors["events"]
    assert errors["selftest"]["source"] == "argument 6", errors["selftest"]
    assert "'bogus'" in errors["selftest"]["message"], errors["selftest"]
    # The good word was kept (the host skips self-tests, by name), and the bad one is not reported again.
    skipped = [r["test"] for r in recs if r["type"] == "selftest"]
    assert skipped == ["fixup"], skipped
    assert recs[-1]["errors"] == 2, recs[-1]
