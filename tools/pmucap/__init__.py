"""pmucap - read pmuboot captures: parse, table, junit, compare, plot; and serve, the collector.

A capture is whatever a rig recorded from the serial line (firmware noise,
ANSI escapes, CR/LF mixes included) or a saved results-NNNN.jsonl file.
Records are the lines starting "@pmuboot {json}" (or bare JSON lines in a
.jsonl file).  A capture may hold several runs, numbered from 1 in the
order they appear; each starts with a `begin` record and is complete when
its `end` record counts the records before it and carries the CRC-32 of
their JSON texts (each followed by "\\n").

Run it as `python3 tools/pmucap COMMAND ...` (or `python3 -m pmucap` with
tools/ on the path).  Importing the package gives the capture reader
(pmucap.capture): the other tools and the tests use pmucap.parse() and friends.
"""
from .capture import (ANSI_RE, PREFIX, CaptureError, FieldError, InputError, Capture, Record, Run,  # noqa: F401
                      bench_table, describe_run, figure, figures, first_record, get, load_run, parse,
                      read_capture, run_records, variant_key)
