"""tests/qemu/matrix.cfg, read: the QEMU boots several tests judge, declared as data.

A test asks for a boot by name (ctx.boot(NAME) with no other argument: testlib.Context.boot) and
judges it in Python; cases(group, judge) makes one case per row of a group, each carrying its row's
tier, which tests/run.py takes instead of tests/tiers.cfg's.
"""
import os
import re

from testlib.tiers import TIERS

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "qemu", "matrix.cfg")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
CONFIG_RE = re.compile(r"^config\s+([a-z0-9-]+)\s*=\s*(.+)$")


class MatrixError(Exception):
    """A malformed row; the message names the file and line."""


class Row:
    def __init__(self, name, cpu, timeout, tier, groups, config):
        self.name, self.cpu, self.timeout, self.tier = name, cpu, timeout, tier
        self.groups, self.config = groups, config

    def boot_args(self):
        """qemurun.boot's keywords for this boot."""
        return {"cpu": self.cpu, "timeout": self.timeout, "cfg_text": self.config + "\n" if self.config else None}


def parse(path=PATH):
    rows, configs = {}, {}
    with open(path) as f:
        for no, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            where = f"{os.path.relpath(path)}:{no}"
            m = CONFIG_RE.match(text)
            if m:
                configs[m.group(1)] = m.group(2).strip()
                continue
            parts = text.split(None, 5)
            if len(parts) < 6:
                raise MatrixError(f"{where}: expected NAME CPU TIMEOUT TIER GROUPS CONFIG, got {len(parts)} "
                                  f"columns: {text!r}")
            name, cpu, timeout, tier, groups, config = parts
            if not NAME_RE.match(name):
                raise MatrixError(f"{where}: boot name {name!r}: lower-case letters, digits and '-' only")
            if name in rows:
                raise MatrixError(f"{where}: boot {name} is declared twice")
            if not timeout.isdigit() or not 10 <= int(timeout) <= 600:
                raise MatrixError(f"{where}: {name}: timeout {timeout!r} is not a number of seconds in 10..600")
            if tier not in TIERS:
                raise MatrixError(f"{where}: {name}: tier {tier!r} is not one of {', '.join(TIERS)}")
            if config.startswith("@"):
                if config[1:] not in configs:
                    raise MatrixError(f"{where}: {name}: no `config {config[1:]} = ...` line above it")
                config = configs[config[1:]]
            rows[name] = Row(name, cpu, int(timeout), tier, [] if groups == "-" else groups.split(","),
                             None if config == "-" else config)
    return rows


_rows = None


def rows():
    global _rows
    if _rows is None:
        _rows = parse()
    return _rows


def row(name):
    r = rows().get(name)
    if r is None:
        raise MatrixError(f"no boot named {name} in {os.path.relpath(PATH)}")
    return r


def group(name):
    found = [r for r in rows().values() if name in r.groups]
    if not found:
        raise MatrixError(f"no boot of {os.path.relpath(PATH)} is in group {name}")
    return found


def cases(group_name, judge, prefix):
    """[(prefix[NAME], test, tier)]: judge(ctx, row) on each boot of the group, in the row's tier."""
    def one(r):
        return lambda ctx: judge(ctx, r)
    return [(f"{prefix}[{r.name}]", one(r), r.tier) for r in group(group_name)]
