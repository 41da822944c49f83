"""The map matches the tree: docs/architecture.md's drawing ("The tree") names every top-level
source folder and no folder that is gone, and docs/developing.md's "may include" column is
tools/layering.py's ALLOWED, room by room.  Each check is also shown failing on a map that drifted."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import layering  # noqa: E402

# Top-level folders that hold no source: the documentation itself.
NOT_SOURCE = {"docs"}


def read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def source_folders(root):
    """Top-level folders holding tracked (or new, not ignored) files, hidden ones and docs/ aside."""
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout.split()
    tops = {p.split("/", 1)[0] for p in out if "/" in p}
    return {t for t in tops if not t.startswith(".") and t not in NOT_SOURCE}


def section(text, title):
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"no section '## {title}'"
    return m.group(1)


def map_problems(text, root):
    """What is wrong with architecture.md's drawing of the tree, as messages naming the folder."""
    body = section(text, "The tree")
    block = re.search(r"^```\n(.*?)^```", body, re.M | re.S)
    if not block:
        return ["architecture.md 'The tree': no drawing (a ``` block) of the folders"]
    drawn = [m.group(1) for m in re.finditer(r"^([\w.-]+)/\s", block.group(1), re.M)]
    problems = []
    for folder in sorted(source_folders(root) - set(drawn)):
        problems.append(f"architecture.md 'The tree': the drawing misses the folder {folder}/")
    for folder in drawn:
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append(f"architecture.md 'The tree': the drawing names {folder}/, which does not exist")
    # Deeper paths named anywhere in the section (platform/metal/, `lib/x86/`) must exist too.
    for path in sorted(set(re.findall(r"\b((?:[\w-]+/){2,})", body))):
        if path.split("/", 1)[0] in drawn and not os.path.isdir(os.path.join(root, path)):
            problems.append(f"architecture.md 'The tree': {path} does not exist")
    return problems


def rule_rows(text):
    """{room: set of rooms} from developing.md's Rooms table, for the rooms tools/layering.py knows."""
    rows = {}
    for line in section(text, "Rooms").splitlines():
        m = re.match(r"^\| `([\w/.-]+)/` \|.*\| ([^|]*) \|$", line)
        if not m or m.group(1) not in layering.ALLOWED:
            continue
        cell = m.group(2)
        rooms = set()
        for tok in re.findall(r"`([\w/*]+)/?`", cell):
            tok = tok.rstrip("/")
            if tok == "pmu/*":
                rooms |= {r for r in layering.ALLOWED if r.startswith("pmu/")}
            else:
                rooms.add(tok)
        rows[m.group(1)] = rooms
    return rows


def rule_problems(text):
    rows = rule_rows(text)
    problems = []
    for room, allowed in sorted(layering.ALLOWED.items()):
        if room.startswith("tests/"):
            continue  # one "tests/" row says "everything"; tools/layering.py lists each
        if room not in rows:
            problems.append(f"developing.md 'Rooms': no row for {room}/ (tools/layering.py ALLOWED has it)")
            continue
        if rows[room] != set(allowed):
            extra = sorted(rows[room] - set(allowed))
            missing = sorted(set(allowed) - rows[room])
            problems.append(f"developing.md 'Rooms': {room}/ may include differs from tools/layering.py: "
                            f"listed but not allowed {extra}, allowed but not listed {missing}")
    return problems


def test_architecture_map_names_every_folder(ctx):
    problems = map_problems(read("docs", "architecture.md"), ROOT)
    assert not problems, "\n".join(problems)


def test_developing_rule_is_layering_allowed(ctx):
    problems = rule_problems(read("docs", "developing.md"))
    assert not problems, "\n".join(problems)


def test_map_check_catches_a_missing_and_a_gone_folder(ctx):
    text = read("docs", "architecture.md")
    drawing = section(text, "The tree")
    line = next(l for l in drawing.splitlines() if l.startswith("fwtables/"))
    missing = text.replace(line + "\n", "")
    assert any("misses the folder fwtables/" in p for p in map_problems(missing, ROOT))
    gone = text.replace(line + "\n", line + "\nkernel/        the runtime, by its old name\n")
    assert any("names kernel/, which does not exist" in p for p in map_problems(gone, ROOT))
    deeper = text.replace("platform/metal/ the runtime", "platform/bare/ the runtime")
    assert any("platform/bare/ does not exist" in p for p in map_problems(deeper, ROOT))


def test_rule_check_catches_a_drifted_row(ctx):
    text = read("docs", "developing.md")
    row = next(l for l in text.splitlines() if l.startswith("| `pmu/freq/` |"))
    drifted = text.replace(row, row.replace("`pmu/count/`, ", ""))
    assert any("pmu/freq/" in p and "pmu/count" in p for p in rule_problems(drifted))
    dropped = text.replace(row + "\n", "")
    assert any("no row for pmu/freq/" in p for p in rule_problems(dropped))
