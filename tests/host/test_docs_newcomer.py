"""What a newcomer reads first (issue 34): README's two commands say how long they take and what `make run`
cannot show under an emulator, one section on the fleet, the layout table lists every document in docs/,
and no document cites tracker numbers a reader cannot follow."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(*path):
    with open(os.path.join(ROOT, *path), encoding="utf-8") as f:
        return f.read()


def sections(text):
    return re.findall(r"^## (.+)$", text, re.M)


def test_readme_has_one_fleet_section(ctx):
    titles = [t for t in sections(read("README.md")) if re.search(r"fleet|collector", t, re.I)]
    assert len(titles) == 1, titles


def test_readme_says_how_long_and_what_the_emulator_cannot_show(ctx):
    text = read("README.md")
    body = text[text.index("## The two commands"):]
    body = body[:body.index("\n## ", 3)]
    assert re.search(r"`make run` takes about \d+ seconds", body), body[:600]
    assert re.search(r"`make test` takes about \d+ minutes", body), body[:600]
    assert "skipped" in body and "nothing verified" in body, body


def test_readme_lists_every_doc(ctx):
    text = read("README.md")
    row = next(l for l in text.splitlines() if l.startswith("| `docs/` |"))
    linked = set(re.findall(r"\(docs/([\w.-]+\.md)\)", row))
    present = {f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")}
    assert linked == present, (sorted(present - linked), sorted(linked - present))


def test_no_tracker_numbers_in_the_docs(ctx):
    found = []
    for name in ["README.md"] + [os.path.join("docs", f) for f in sorted(os.listdir(os.path.join(ROOT, "docs")))
                                 if f.endswith(".md")]:
        for n, line in enumerate(read(name).splitlines(), 1):
            if re.search(r"\bissues? #?\d+", line, re.I):
                found.append(f"{name}:{n}: {line.strip()[:100]}")
    assert not found, "\n".join(found)
