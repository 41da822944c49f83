"""Runs pmucap commands in-process (fast: one interpreter for hundreds of commands), in a child
process the host tests start with a time limit, so a hang still fails the test.

    python3 pmucap_child.py TOOLS_DIR matrix  < [[argv...], ...]      (JSON on stdin)
    python3 pmucap_child.py TOOLS_DIR fuzz SEED COUNT CAPTURE...

Prints one JSON object: per command its exit status, stderr and time ("matrix"), or a summary
of the mutated captures tried and every broken answer ("fuzz").  A broken answer is an exception
escaping pmucap's main, an unknown exit status, a refusal that is not exactly one line, or an
"internal error" line.
"""
import contextlib
import io
import json
import os
import random
import sys
import tempfile
import time
import traceback
import zlib

EXIT_STATUSES = (0, 1, 2, 3)
# Plot renders with matplotlib when it is there: a few renders prove the path, the rest only
# check the data handling (drawing hundreds of pictures would take minutes).
RENDERS_KEPT = 3


def run(main, argv):
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(argv)
    except SystemExit as e:   # argparse
        rc = e.code
    except BaseException:     # noqa: BLE001 - exactly what this child is here to catch
        return {"argv": argv, "rc": None, "stderr": err.getvalue(), "exc": traceback.format_exc(limit=6),
                "s": time.monotonic() - start}
    return {"argv": argv, "rc": rc, "stderr": err.getvalue(), "stdout_chars": len(out.getvalue()),
            "s": time.monotonic() - start}


def broken(r):
    """Why an answer breaks the rules, or None."""
    if r.get("exc"):
        return "exception: " + r["exc"][-600:]
    if r["rc"] not in EXIT_STATUSES:
        return f"exit status {r['rc']!r}"
    lines = r["stderr"].splitlines()
    if any("internal error" in l or "Traceback" in l for l in lines):
        return "internal error: " + r["stderr"][-400:]
    if r["rc"] != 0 and (len(lines) != 1 or not lines[0].startswith("pmucap: ")):
        return f"{len(lines)} stderr lines for a refusal: {lines[:3]}"
    if r["rc"] == 0 and not all(l.startswith(("pmucap: warning: ", "pmucap: wrote ")) for l in lines):
        return f"unexpected stderr on success: {lines[:3]}"
    return None


# --- mutations ---

HOSTILE_TOKENS = ["NaN", "Infinity", "-1e999", "9" * 5000, '"x"', "true", "null", "[]", "{}", "[" * 3000,
                  '{"a":' * 40 + "1" + "}" * 40, '"\\ud800"', "-0", "1e-400", '"\\u0000"']


def reframe(text):
    """Give the records of a (mutated) .jsonl a fresh, correct end record, so only the mutation
    itself can be what is wrong: that is how wrong types reach the typed-field readers."""
    lines = [l for l in text.split("\n") if l and '"type":"end"' not in l]
    crc = 0
    for t in lines:
        crc = zlib.crc32((t + "\n").encode("latin-1"), crc)
    end = json.dumps({"type": "end", "status": "ok", "errors": 0, "records": len(lines), "crc32": f"{crc:08x}"},
                     separators=(",", ":"))
    return "\n".join(lines + [end]) + "\n"


def mutate(rnd, text):
    n = len(text)
    op = rnd.randrange(9)
    i = rnd.randrange(max(n, 1))
    if op == 0:
        return text[:i] + chr(rnd.randrange(256)) + text[i + 1:]
    if op == 1:
        return text[:i] + text[i + rnd.randrange(1, 200):]
    if op == 2:
        j = i + rnd.randrange(1, 300)
        return text[:j] + text[i:j] + text[j:]
    if op == 3:
        junk = "".join(chr(rnd.choice([0, 10, 13, 27, 34, 44, 58, 91, 93, 123, 125, rnd.randrange(256)]))
                       for _ in range(rnd.randrange(1, 20)))
        return text[:i] + junk + text[i:]
    if op == 4:
        return text[:i]
    if op in (5, 6):
        # A value replaced by a hostile token: find a ':' and replace what follows up to ',' or '}'.
        k = text.find(":", i)
        if k < 0:
            return text
        e = min([x for x in (text.find(",", k), text.find("}", k)) if x >= 0] or [n])
        return text[:k + 1] + rnd.choice(HOSTILE_TOKENS) + text[e:]
    if op == 7:
        lines = text.split("\n")
        a, b = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
        return "\n".join(lines)
    # A string value becomes a number, an object or a list.
    k = text.find(':"', i)
    if k < 0:
        return text
    e = text.find('"', k + 2)
    return text[:k + 1] + rnd.choice(["5", "{}", "[1]", "false", "0.5"]) + text[e + 1:] if e > 0 else text


def fuzz(main, seed, count, captures):
    from pmucap import cmd_plot
    real_render = cmd_plot.render
    renders = {"n": 0}

    def render(*a, **kw):
        renders["n"] += 1
        if renders["n"] <= RENDERS_KEPT:
            return real_render(*a, **kw)
        return None
    cmd_plot.render = render

    rnd = random.Random(seed)
    texts = []
    for c in captures:
        with open(c, "rb") as f:
            texts.append((c, f.read().decode("latin-1")))
    d = tempfile.mkdtemp(prefix="pmucap-fuzz-")
    path = os.path.join(d, "mutated.log")
    res = {"mutations": 0, "commands": 0, "refused": 0, "accepted": 0, "reframed": 0, "broken": [],
           "max_s": 0.0, "renders": 0}
    try:
        for m in range(count):
            src, text = texts[m % len(texts)]
            mutated = text
            for _ in range(rnd.randrange(1, 4)):
                mutated = mutate(rnd, mutated)
            if src.endswith(".jsonl") and rnd.random() < 0.5:
                mutated = reframe(mutated)
                res["reframed"] += 1
            with open(path, "w", encoding="latin-1", newline="") as f:
                f.write(mutated)
            res["mutations"] += 1
            for argv in (["parse", path], ["table", path], ["junit", path, "-o", os.path.join(d, "j.xml")],
                         ["compare", captures[0], path], ["parse", path, "--format", "csv", "--allow-incomplete"],
                         ["table", path, "--allow-incomplete"], ["compare", path, captures[0], "--allow-incomplete"],
                         ["plot", path, "-o", os.path.join(d, "p.png"), "--allow-incomplete", "--metric", "all"]):
                r = run(main, argv)
                res["commands"] += 1
                res["max_s"] = max(res["max_s"], r["s"])
                res["refused" if r["rc"] else "accepted"] += 1
                why = broken(r)
                if why:
                    res["broken"].append({"mutation": m, "argv": argv[0], "why": why,
                                          "sample": mutated[:0] if len(mutated) > 4000 else mutated[-300:]})
    finally:
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)
        res["renders"] = renders["n"]
    return res


def main():
    sys.path.insert(0, sys.argv[1])
    from pmucap import cli
    if sys.argv[2] == "matrix":
        results = [run(cli.main, argv) for argv in json.load(sys.stdin)]
        for r in results:
            r["broken"] = broken(r)
        out = {"results": results}
    else:
        out = fuzz(cli.main, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:])
    sys.__stdout__.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
