"""The vendor CSV format (events/vendor/KEY.csv) has one definition, tools/events_import/vendor_csv.py:
the importer writes through it and the event generator reads through it.  Every committed file read
back with decode and written again with write is the same file byte for byte, so the two directions
cannot drift apart; and what the format cannot hold is refused naming the place."""
import glob
import os

import gen_events
from events_import import rows, vendor_csv


def read_back(path, vendor):
    """The file's comment lines and its rows, as rows.Row objects built from vendor_csv.decode."""
    with open(path, encoding="utf-8") as f:
        header = [l[2:] if l.startswith("# ") else "" for l in f.read().splitlines() if l.startswith("#")]
    out = []
    for n, fields in gen_events.read_csv(path, vendor_csv.COLUMNS):
        v = vendor_csv.decode(fields, f"{path}:{n}", vendor)
        r = rows.Row(v["name"])
        for k in ("event", "umask", "umask_ext", "cmask", "counters", "fixed", "msr_value", "alt", "errata"):
            setattr(r, k, v[k])
        for fl in v["flags"]:
            setattr(r, fl, True)
        r.counters_htoff = v["htoff"] if v["htoff"] else None
        r.msr = [m for m in v["msr"] if m]
        out.append(r)
    return header, out


def test_every_committed_file_round_trips(ctx):
    vendors = {key: vendor for key, vendor, _ in gen_events_sets(ctx)}
    files = sorted(glob.glob(os.path.join(ctx.root, "events", "vendor", "*.csv")))
    assert len(files) > 60, files
    nrows = 0
    for path in files:
        key = os.path.basename(path)[:-4]
        header, rs = read_back(path, vendors[key])
        with open(path, encoding="utf-8") as f:
            want = f.read()
        assert vendor_csv.write(path, header, rs) == want, f"{path} does not round-trip through vendor_csv"
        nrows += len(rs)
    assert nrows > 10000, nrows


def gen_events_sets(ctx):
    return [(r["key"], r["vendor"], r["data"]) for _, r in
            gen_events.read_csv(os.path.join(ctx.root, "events", "sets.csv"), gen_events.SET_COLUMNS)]


def test_the_generator_compiles_every_flag_of_the_format(ctx):
    """gen_events maps each flag word to its C bit; the words are the format's, all of them."""
    assert set(gen_events.FLAGS) == set(vendor_csv.FLAGS)
    assert set(gen_events.ENCODING_FLAGS) <= set(vendor_csv.FLAGS)


def line(**over):
    r = {c: "" for c in vendor_csv.COLUMNS}
    r.update(name="X.Y", event="0x10", umask="0x01")
    r.update(over)
    return r


def test_decode_refuses_by_place(ctx):
    bad = [
        (line(flags="inv sticky"), "unknown flag 'sticky'"),
        (line(msr="0x1a6+0x1a7+0x1a8"), "more than two extra MSRs"),
        (line(counters="3-1"), "counter range '3-1' runs backwards"),
        (line(counters="0-16"), "counter 16 is out of range"),
        (line(event="0x100"), "event 0x100 is out of range 0..0xff"),
        (line(name="BAD NAME"), "event name 'BAD NAME' must be"),
        (line(alt="0xb7"), "alt umask '' is not a number"),
    ]
    for fields, want in bad:
        try:
            vendor_csv.decode(fields, "f.csv:9", "intel")
        except vendor_csv.FormatError as e:
            assert str(e).startswith("f.csv:9: ") and want in str(e), (fields, str(e))
        else:
            raise AssertionError(f"accepted {fields}")
    # AMD's event select is 12 bits.
    assert vendor_csv.decode(line(event="0x1c0"), "f.csv:1", "amd")["event"] == 0x1C0
    # The writer refuses what the reader would: a name twice, ignoring case.
    a, b = rows.Row("A.B"), rows.Row("a.b")
    try:
        rows.write_csv("v.csv", [], [a, b])
    except rows.ImportError_ as e:
        assert "v.csv: event a.b appears twice" in str(e), str(e)
    else:
        raise AssertionError("a name twice was written")
