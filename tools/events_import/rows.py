"""One imported event, and writing the vendor CSV files (events/vendor/KEY.csv) that hold them
in the format tools/events_import/vendor_csv.py defines."""

from . import vendor_csv
from .vendor_csv import mask_text  # noqa: F401  (the importers spell counter lists with it)


class ImportError_(Exception):
    """Input the importer cannot check; the message names the file and the event."""


class Row:
    """An event as the importers build it; vendor_csv.encode writes it (a flag of vendor_csv.FLAGS is
    an attribute of the same name)."""

    def __init__(self, name):
        self.name = name
        self.event = self.umask = self.umask_ext = self.cmask = 0
        self.inv = self.edge = self.any = self.precise = self.pebs2 = False
        self.fixed_only = self.taken_alone = self.pair = self.deprecated = False
        self.counters = 0           # bit n = general counter n; 0 = any
        self.counters_htoff = None  # the list with SMT off, where it differs
        self.fixed = -1
        self.msr = []               # extra MSRs: [index] or [index form 1, index form 2]
        self.msr_value = 0
        self.alt = None             # (event, umask) of the second offcore form
        self.errata = ""

    def encoding(self):
        return (self.event, self.umask, self.cmask, self.inv, self.edge, self.any)


def write_csv(path_label, header_lines, rows):
    """The vendor CSV text: comment lines, the header, one line per row (input order)."""
    try:
        return vendor_csv.write(path_label, header_lines, rows)
    except vendor_csv.FormatError as e:
        raise ImportError_(str(e)) from None
