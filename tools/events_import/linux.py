"""Linux's counter constraints where they are narrower than perfmon's (linux_constraints.csv; its
header says what each column means).  apply() narrows the imported rows of one set in place and
returns what it changed, for the vendor file's header and docs/events.md."""
import csv
import os

from .rows import ImportError_, mask_text

COLUMNS = ["file", "table", "sets", "event", "umask", "mask", "resolve"]
LINUX_FILE_DIR = "arch/x86/events/intel/"
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linux_constraints.csv")


def _num(text, what, where, limit):
    try:
        v = int(text, 0)
    except ValueError:
        raise ImportError_(f"{where}: {what} '{text}' is not a number")
    if not 0 <= v <= limit:
        raise ImportError_(f"{where}: {what} {text} out of range 0..{limit:#x}")
    return v


def read(path=PATH):
    """{set key: [entry, ...] in table order}."""
    with open(path, newline="", encoding="utf-8") as f:
        lines = [(i + 1, l) for i, l in enumerate(f.read().splitlines())]
    data = [(n, l) for n, l in lines if l.strip() and not l.lstrip().startswith("#")]
    by_set, header = {}, None
    for (n, _), fields in zip(data, csv.reader([l for _, l in data])):
        fields = [x.strip() for x in fields]
        where = f"{path}:{n}"
        if header is None:
            if fields != COLUMNS:
                raise ImportError_(f"{where}: header must be {','.join(COLUMNS)}")
            header = fields
            continue
        if len(fields) != len(COLUMNS):
            raise ImportError_(f"{where}: {len(fields)} fields, expected {len(COLUMNS)}")
        r = dict(zip(COLUMNS, fields))
        lo, _, hi = r["event"].partition("-")
        e = {"table": r["table"], "file": LINUX_FILE_DIR + r["file"], "lo": _num(lo, "event", where, 0xFF),
             "hi": _num(hi or lo, "event", where, 0xFF), "umask": None, "ubit": False,
             "mask": _num(r["mask"], "mask", where, 0xFFFFFFFF), "resolve": r["resolve"], "where": where,
             "text": f"{r['event']}{'/' + r['umask'] if r['umask'] else ''}"}
        if e["hi"] < e["lo"]:
            raise ImportError_(f"{where}: event range {r['event']} runs backwards")
        if r["umask"]:
            u = r["umask"]
            if u.startswith("bit "):
                e["ubit"], u = True, u[4:]
            e["umask"] = _num(u, "umask", where, 0xFF)
        if r["resolve"] not in ("", "perfmon"):
            raise ImportError_(f"{where}: resolve '{r['resolve']}' must be empty or perfmon")
        if not e["mask"] or not r["table"] or not r["sets"]:
            raise ImportError_(f"{where}: every entry needs a table, its sets and a non-zero mask")
        for key in r["sets"].split():
            by_set.setdefault(key, []).append(e)
    return by_set


def _matches(e, event, umask):
    if not e["lo"] <= event <= e["hi"]:
        return False
    if e["umask"] is None:
        return True
    return (umask & e["umask"]) == e["umask"] if e["ubit"] else umask == e["umask"]


def _narrow(perfmon, linux):
    """perfmon's list (0 = any) kept to Linux's mask: the intersection, or 0 when they share nothing."""
    return linux if not perfmon else perfmon & linux


def apply(key, rows, entries):
    """Narrow rows (perfmon Row objects of set `key`) by Linux's entries, first match wins, an
    offcore row's second form included; returns [(entry, name, before, after)] for every row whose
    lists changed, and for every conflict resolved in perfmon's favour (after == before)."""
    changes = []
    for r in rows:
        if r.fixed_only:
            continue
        entry = None
        for ev, um in [(r.event, r.umask)] + ([r.alt] if r.alt else []):
            entry = next((e for e in entries if _matches(e, ev, um)), None)
            if entry:
                break
        if not entry:
            continue
        before = (r.counters, r.counters_htoff)
        on = _narrow(r.counters, entry["mask"])
        off = _narrow(r.counters_htoff, entry["mask"]) if r.counters_htoff is not None else None
        if not on or off == 0:
            if entry["resolve"] != "perfmon":
                raise ImportError_(f"{entry['where']}: {key} {r.name}: perfmon allows counters "
                                   f"{mask_text(r.counters) or 'any'}, Linux's {entry['table']} "
                                   f"{mask_text(entry['mask'])}: no counter in common; say which wins "
                                   f"(resolve=perfmon) and document it")
            changes.append((entry, r.name, before, before))
            continue
        r.counters = on
        r.counters_htoff = off if off is not None and off != on else None
        if (r.counters, r.counters_htoff) != before:
            changes.append((entry, r.name, before, (r.counters, r.counters_htoff)))
    return changes


def summary(changes):
    """Header lines for the vendor file: per Linux entry and outcome, how many rows."""
    counted = {}
    for entry, name, before, after in changes:
        k = (entry["table"], entry["text"], mask_text(entry["mask"]), mask_text(before[0]) or "any",
             mask_text(after[0]) or "any", before == after)
        counted[k] = counted.get(k, 0) + 1
    out = []
    for (table, text, linux, b, a, conflict), n in counted.items():
        rows = f"{n} row{'s' if n > 1 else ''}"
        if conflict:
            out.append(f"Linux {table} {text} allows counters {linux}, perfmon {b}: no counter in common; "
                       f"perfmon's list kept for {rows} (docs/events.md)")
        else:
            out.append(f"narrowed by Linux {table} {text} ({linux}): {rows} {b} -> {a}")
    return out
