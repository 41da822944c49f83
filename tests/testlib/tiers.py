"""Which tier each test is in: tests/tiers.cfg, read here (docs/testing.md).

Each line of the file is `TIER PATTERN`: the pattern is shell-style (fnmatch) on the name the runner
prints (tests/host/test_x.py::test_y, or binary::case for a unit test), and a test's tier is that of
the first line that matches it.  A case that carries its own tier (a boot of tests/qemu/matrix.cfg)
takes it from there and never from this file, so every test has exactly one tier, declared once.
"""
import fnmatch

# In the order the make targets add them: check, then test (make test runs both), then slow.
TIERS = ("check", "test", "slow")


class TierError(Exception):
    """The file is malformed; the message names the file and line."""


class Table:
    def __init__(self, path):
        self.path = path
        self.lines = []          # [(line number, tier, pattern)]
        with open(path) as f:
            for no, text in enumerate(f, 1):
                text = text.split("#", 1)[0].strip()
                if not text:
                    continue
                parts = text.split(None, 1)
                if len(parts) != 2 or parts[0] not in TIERS:
                    raise TierError(f"{path}:{no}: expected `TIER PATTERN` with TIER one of "
                                    f"{', '.join(TIERS)}, got {text!r}")
                self.lines.append((no, parts[0], parts[1].strip()))
        if not self.lines:
            raise TierError(f"{path}: no tier lines")

    def _line(self, name):
        return next((ln for ln in self.lines if fnmatch.fnmatchcase(name, ln[2])), None)

    def tier_of(self, name, own=None):
        """The test's tier: its own (a matrix boot's) if it has one, else the first matching line's."""
        if own is not None:
            if own not in TIERS:
                raise TierError(f"{name}: tier {own!r} is not one of {', '.join(TIERS)}")
            return own
        ln = self._line(name)
        if ln is None:
            raise TierError(f"{name}: no line of {self.path} matches it (the last should be `check *`)")
        return ln[1]

    def unmatched(self, cases):
        """`file:line` of each line that decides no test of cases [(name, own tier)]: a stale line.
        A pattern for unit tests (no `/` in it) is not judged here: the unit names are known only
        once the binaries have run."""
        used = {self._line(n)[0] for n, own in cases if own is None and self._line(n)}
        return [f"{self.path}:{no}" for no, _, pat in self.lines if no not in used and "/" in pat]
