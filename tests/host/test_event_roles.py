"""The benchmark roles are listed once, in events/roles.csv; C and the Python tools derive from it."""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

import gen_events


def roles_csv(ctx):
    return gen_events.read_roles(os.path.join(ctx.root, "events", "roles.csv"))


def test_generated_header_is_the_csv(ctx):
    """build/gen/event_roles.h holds exactly the CSV's roles, bits and words, in order."""
    with open(os.path.join(ctx.build, "gen", "event_roles.h")) as f:
        header = f.read()
    enum = re.findall(r"\b(EV_ROLE_\w+) = 1u << (\d+),", header)
    roles = roles_csv(ctx)
    assert enum == [(r["enum"], str(r["bit"])) for r in roles], enum
    words = re.search(r"#define EV_ROLE_WORDS \\\n(.*?)\n\n", header, re.S).group(1)
    assert re.findall(r'"(\w+)\\0"', words) == [r["word"] for r in roles]


def lists_roles(text, words):
    """Whether text spells out the role list: most of the words as strings ("cycles", cycles\\0),
    or most of the enum's members defined."""
    quoted = sum(1 for w in words if re.search(r'(^|["\s]|\\0)%s(\\0|")' % re.escape(w), text, re.M))
    defined = sum(1 for w in words if re.search(r"\bEV_ROLE_%s\s*=" % w.upper(), text))
    return max(quoted, defined) > len(words) // 2


def test_no_other_copy_of_the_list(ctx):
    """No C or Python source spells the role list out again; the check knows a copy when it sees one
    (the lists this replaced)."""
    words = [r["word"] for r in roles_csv(ctx)]
    old_copies = ['static const char role_words[] =\n\t"' + "\\0".join(words) + '\\0";',
                  "ROLES = {\n" + "".join(f'    "{w}": "EV_ROLE_{w.upper()}",\n' for w in words) + "}",
                  "enum event_role {\n" + "".join(f"\tEV_ROLE_{w.upper()} = 1u << {i},\n"
                                                   for i, w in enumerate(words)) + "};"]
    assert all(lists_roles(c, words) for c in old_copies)
    out = subprocess.run(["git", "-C", ctx.root, "ls-files", "*.c", "*.h", "*.py"], capture_output=True,
                         text=True, check=True).stdout.split()
    for path in out:
        if path.startswith("tests/"):
            continue
        with open(os.path.join(ctx.root, path), encoding="utf-8", errors="replace") as f:
            assert not lists_roles(f.read(), words), f"{path} lists the roles again; derive it from events/roles.csv"


def test_every_role_word_round_trips_through_c(ctx):
    """pmuboot-host's listing prints roles through events_role_name: every word it prints is in the
    CSV, and the roles the role rows use all appear."""
    words = {r["word"] for r in roles_csv(ctx)}
    seen = set()
    for row in csv.DictReader(io.StringIO(ctx.run_host("events", "--uarch", "all", check=True).stdout)):
        seen |= set(row["roles"].split())
    assert seen <= words, seen - words
    assert {"cycles", "instructions", "stlf_block", "split_load", "smi"} <= seen, seen


def copy_events(ctx, d):
    src = os.path.join(ctx.root, "events")
    shutil.copytree(src, d, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.c", "*.h", "*.md", "*.mk"))


def run_gen(d, *args):
    gen = os.path.join(os.path.dirname(gen_events.__file__), "gen_events.py")
    return subprocess.run([sys.executable, gen, "--dir", d, *args], capture_output=True, text=True)


def test_a_new_role_needs_only_the_csv(ctx):
    """A role added to roles.csv is accepted in role rows and appears in the generated enum."""
    with tempfile.TemporaryDirectory() as d:
        copy_events(ctx, d)
        n = len(roles_csv(ctx))
        with open(os.path.join(d, "roles.csv"), "a") as f:
            f.write(f"{n},fancy_stall,a stall nobody has seen\n")
        path = os.path.join(d, "skymont.csv")
        with open(path) as f:
            rows = f.read()
        assert ",stlf_block,@doc," in rows
        with open(path, "w") as f:
            f.write(rows.replace(",stlf_block,@doc,", ",stlf_block fancy_stall,@doc,", 1))
        p = run_gen(d, "--out", os.path.join(d, "t.c"))
        assert p.returncode == 0, p.stderr
        with open(os.path.join(d, "t.c")) as f:
            note = re.search(r"\{ (\d+), (\d+) \},\t/\* skymont: LD_BLOCKS.STORE_FORWARD stlf_block fancy_stall \*/",
                             f.read())
        stlf = next(r["bit"] for r in roles_csv(ctx) if r["word"] == "stlf_block")
        assert note and int(note.group(2)) == (1 << stlf | 1 << n), note
        p = run_gen(d, "--roles-header", os.path.join(d, "r.h"))
        assert p.returncode == 0, p.stderr
        with open(os.path.join(d, "r.h")) as f:
            assert f"EV_ROLE_FANCY_STALL = 1u << {n}," in f.read()


def test_bad_role_lists_are_refused(ctx):
    cases = [("0,cycles,x\n1,cycles,y\n", "listed twice"),
             ("0,cycles,x\n2,instructions,y\n", "bit 2 out of order"),
             ("0,Cycles,x\n", "must be lower-case"),
             ("0,cycles,\n", "needs a description"),
             ("0,cycles,a */ b\n", "may not hold */")]
    for body, expect in cases:
        with tempfile.TemporaryDirectory() as d:
            copy_events(ctx, d)
            with open(os.path.join(d, "roles.csv"), "w") as f:
                f.write("bit,word,description\n" + body)
            p = run_gen(d, "--roles-header", os.path.join(d, "r.h"))
            assert p.returncode == 1 and expect in p.stderr and "roles.csv" in p.stderr, (body, p.stderr)
