"""The pictures' shared parts: matplotlib (a file-only backend), the output's format from its
name, drawing into a temporary file that then takes the output's place, number labels, and the
panels of bars (a run's variants in order, each after its control)."""
import os
import sys
import tempfile

from . import capture
from .capture import STR, get

COLOURS = ("#4e79a7", "#f28e2b")   # A, B
FLAG_COLOUR = "#d62728"
PANEL_INCHES = 0.75
WIDTH_INCHES = 11.0
FORMATS = ("png", "svg", "pdf")
DPI = 110
# More panels than this would make a picture nobody can read (and a huge file).
MAX_PANELS = 40
# Header lines wrap here (characters at the legend's font size across the picture).
TITLE_CHARS = 105


def import_matplotlib():
    """matplotlib with a file-only backend, or CaptureError saying how to get it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        # SVG text stays text (searchable, small), not glyph outlines.
        matplotlib.rcParams["svg.fonttype"] = "none"
        # A name is drawn as written: "$x$" in a brand is no formula (and "$\\foo$" no error).
        matplotlib.rcParams["text.parse_math"] = False
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch
        return Figure, Patch
    except ImportError:
        debian = "/usr/lib/python3/dist-packages/matplotlib"
        if os.path.isdir(debian) and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            raise capture.InputError(f"plot needs matplotlib, which is installed for /usr/bin/python3 but not for "
                                     f"this Python ({sys.executable}): run /usr/bin/python3 tools/pmucap plot ...")
        raise capture.InputError("plot needs matplotlib: install it with apt-get install python3-matplotlib "
                                 "(or run tools/deps.sh as root)") from None


def _fmt(v):
    a = abs(v)
    return f"{v:.0f}" if a >= 1000 else f"{v:.1f}" if a >= 100 else f"{v:.2f}" if a >= 1 else f"{v:.3f}"


def umask():
    """The process's umask, read without changing it (os.umask sets it, which a threaded collector drawing
    plots must not do even for an instant): /proc/self/status on Linux, else set and put back."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    m = os.umask(0o022)
    os.umask(m)
    return m


def write_picture(fig, path, fmt):
    """Draw into a temporary file beside path, then put it in place: a failure leaves no half picture.
    The temporary name is ours, not the user's: an error names path.  The picture gets the mode any new
    file gets (0666 less the umask), not the temporary file's private 0600."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".pmucap-plot-", suffix="." + fmt, dir=directory)
        os.close(fd)
        fig.savefig(tmp, format=fmt)
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, path)
    except OSError as e:
        raise capture.InputError(f"{path}: cannot write the picture: {e.strerror or e}") from None
    finally:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def output_format(path):
    if os.path.isdir(path):
        raise capture.InputError(f"{path}: is a directory; give the picture's file name")
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise capture.InputError(f"{path}: the picture's name must end in " + ", ".join("." + f for f in FORMATS)
                                 + " (it chooses the format)")
    return ext


# What marks a figure that is no plain measurement (unstable), and a variant the image did not run.
UNSTABLE_COLOUR = "#b07aa1"
SKIP_COLOUR = "#888888"
# The word drawn across every axis of an emulated run's picture.
EMULATED_MARK = "EMULATED: times are the emulator's, not any silicon's"


class Bar:
    """One run's figure for one row: the figure, its penalty against the control, or None; unstable:
    why the figure is not a plain measurement (the bench record's `unstable`), or None."""

    def __init__(self, fig, penalty, unstable=None):
        self.fig, self.penalty, self.unstable = fig, penalty, unstable


class Row:
    def __init__(self, key, label, is_control, bars, skipped=None):
        self.key, self.label, self.is_control, self.bars = key, label, is_control, bars
        self.flag = ""
        self.skipped = skipped   # why the image did not run this variant (its check record), or None


class Panel:
    def __init__(self, title, unit, rows):
        self.title, self.unit, self.rows = title, unit, rows


def _cpu_prefix(key):
    """The "N:" a key of a run measured on several processors starts with (capture.variant_key), or ""."""
    head, sep, _ = key.partition(":")
    return head + sep if sep and head.isdigit() else ""


def _control_key(key, rec):
    """The key of rec's control: same kernel, arena and processor."""
    ctl = get(rec, "control", STR)
    return _cpu_prefix(key) + capture.variant_key(rec, variant=ctl) if ctl else None


def _ordered(keys, recs):
    """Variant keys with each control first, followed by the variants measured against it."""
    controls = {k: _control_key(k, recs[k]) for k in keys}
    out = []
    for k in keys:
        ctl = controls[k]
        if ctl in recs and ctl != k:
            continue   # placed after its control below
        if k in out:
            continue
        out.append(k)
        out += [v for v in keys if v not in out and controls[v] == k and v != k]
    return out + [k for k in keys if k not in out]


def mark_emulated(ax):
    """The EMULATED mark across an axis, inside it, so no figure of the picture is read as silicon's."""
    ax.text(0.5, 0.5, "EMULATED", transform=ax.transAxes, ha="center", va="center", fontsize=40,
            color=FLAG_COLOUR, alpha=0.12, fontweight="bold", zorder=0)


def run_emulated(run):
    """True when the run was emulated: its cpu record says so, or a bench record does."""
    cpu = capture.first_record(run, "cpu") or {}
    if get(cpu, "execution", STR) == "emulated":
        return True
    return any(get(r, "emulated", capture.BOOL) is True for r in capture.run_records(run, "bench"))


def skipped_variants(run):
    """{variant key: why} of the variants the image did not run (a `check` record `runs` skipped, no bench)."""
    multi = capture.per_cpu(run)
    benches = capture.bench_table(run)
    out = {}
    for c in capture.run_records(run, "check"):
        key = capture.variant_key(c, multi)
        if get(c, "what", STR) == "runs" and get(c, "status", STR) == "skip" and key not in benches:
            out[key] = get(c, "reason", STR, "not run")
    return out


def variants_drawn(panels):
    return len({r.key for p in panels for r in p.rows})
