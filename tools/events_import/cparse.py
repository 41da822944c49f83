"""Read the C initializer tables of libpfm4's event headers (vendor-events/amd, intel-legacy).

Only what those headers use is understood: `static const TYPE NAME[]={ {.field = value, ...}, ...};`
with values that are strings, numbers, identifiers from a known list, `|`, `<<`, parentheses and
LIBPFM_ARRAY_SIZE(x).  Anything else stops the import with the file and line, so a new construct
in a future release is looked at rather than misread.
"""
import re

TOKEN = re.compile(r'\s+|/\*.*?\*/|//[^\n]*|"(?:[^"\\]|\\.)*"|0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|'
                   r'[A-Za-z_][A-Za-z0-9_]*|<<|[{}\[\]=,;()|.]', re.S)


class ParseError(Exception):
    pass


def tokens(text, path):
    """(kind, value, line) tokens; preprocessor lines (#define with continuations, #include) are
    skipped: the tables that use a macro fail later on the unknown name."""
    out, pos, line = [], 0, 1
    lines = text.split("\n")
    cleaned = []
    skipping = False
    for l in lines:
        if skipping or l.lstrip().startswith("#"):
            skipping = l.rstrip().endswith("\\")
            cleaned.append("")
            continue
        cleaned.append(l)
    text = "\n".join(cleaned)
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ParseError(f"{path}:{line}: cannot read {text[pos:pos + 20]!r}")
        t = m.group(0)
        if t[0] == '"':
            out.append(("str", bytes(t[1:-1], "ascii").decode("unicode_escape"), line))
        elif t[0].isdigit():
            out.append(("num", int(t.rstrip("uUlL"), 0), line))
        elif t[0].isalpha() or t[0] == "_":
            out.append(("id", t, line))
        elif not (t.isspace() or t.startswith("/*") or t.startswith("//")):
            out.append(("op", t, line))
        line += t.count("\n")
        pos = m.end()
    return out


class Reader:
    def __init__(self, path, consts):
        self.path = path
        self.consts = consts        # identifier -> int or symbolic value
        with open(path, encoding="latin-1") as f:
            self.toks = tokens(f.read(), path)
        self.i = 0

    def err(self, msg):
        line = self.toks[min(self.i, len(self.toks) - 1)][2] if self.toks else 0
        return ParseError(f"{self.path}:{line}: {msg}")

    def peek(self, k=0):
        return self.toks[self.i + k] if self.i + k < len(self.toks) else ("eof", None, 0)

    def take(self, kind=None, value=None):
        t = self.peek()
        if (kind and t[0] != kind) or (value is not None and t[1] != value):
            raise self.err(f"expected {value or kind}, found {t[1]!r}")
        self.i += 1
        return t

    def arrays(self):
        """{name: (type, [struct dict])} for every static const array in the file."""
        out = {}
        while self.peek()[0] != "eof":
            self.take("id", "static")
            self.take("id", "const")
            typ = self.take("id")[1]
            name = self.take("id")[1]
            self.take("op", "[")
            self.take("op", "]")
            self.take("op", "=")
            out[name] = (typ, self.list_of_structs())
            self.take("op", ";")
        return out

    def list_of_structs(self):
        self.take("op", "{")
        items = []
        while self.peek()[1] != "}":
            items.append(self.struct())
            if self.peek()[1] == ",":
                self.take()
        self.take("op", "}")
        return items

    def struct(self):
        self.take("op", "{")
        d = {}
        while self.peek()[1] != "}":
            self.take("op", ".")
            field = self.take("id")[1]
            self.take("op", "=")
            if field in d:
                raise self.err(f"field .{field} given twice")
            d[field] = self.expr()
            if self.peek()[1] == ",":
                self.take()
        self.take("op", "}")
        return d

    def expr(self):
        v = self.shift()
        while self.peek()[1] == "|":
            self.take()
            w = self.shift()
            v = orv(v, w, self)
        return v

    def shift(self):
        v = self.atom()
        while self.peek()[1] == "<<":
            self.take()
            w = self.atom()
            if not isinstance(v, int) or not isinstance(w, int):
                raise self.err("<< needs numbers")
            v = v << w
        return v

    def atom(self):
        kind, val, _ = self.peek()
        if kind == "num":
            self.take()
            return val
        if kind == "str":
            s = ""
            while self.peek()[0] == "str":
                s += self.take()[1]
            return s
        if val == "(":
            self.take()
            v = self.expr()
            self.take("op", ")")
            return v
        if kind == "id":
            self.take()
            if val in ("LIBPFM_ARRAY_SIZE", "PFM_ARRAY_SIZE"):
                self.take("op", "(")
                ref = self.take("id")[1]
                self.take("op", ")")
                return ("count", ref)
            if val in self.consts:
                return self.consts[val]
            return ("ref", val)     # an array name; the caller decides whether it may be one
        raise self.err(f"unexpected {val!r}")


def orv(a, b, rd):
    """Numbers or together; symbolic flags (frozensets) union."""
    if isinstance(a, int) and isinstance(b, int):
        return a | b
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return a | b
    raise rd.err(f"cannot combine {a!r} | {b!r}")
