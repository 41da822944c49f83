"""pmucap - read pmuboot captures (serial logs or saved .jsonl files).

    pmucap parse CAPTURE [--format json|csv] [--type TYPE] [--run N] [--allow-incomplete]
    pmucap table CAPTURE [--run N] [--allow-incomplete]
    pmucap junit CAPTURE [-o FILE.xml] [--allow-incomplete]
    pmucap compare A B [--format text|json|csv] [--run-a N] [--run-b N]
                   [--min-change PCT] [--floor X] [--fail-on-change] [--allow-incomplete]
    pmucap export --instr CAPTURE [-o FILE.csv] [--run N] [--allow-incomplete]
    pmucap plot CAPTURE [CAPTURE_B] -o FILE.png|.svg [--metric cycles|events|all|topdown|latency] [--allow-incomplete]
    pmucap serve [--db FILE|postgresql://...] [--listen ADDR:PORT] [--token-file FILE]
    pmucap delete-run URL ID [--token-file FILE] [--reason TEXT]

Runs are numbered from 1 in capture order by every command (parse's "_run" field,
--run, --run-a, --run-b); the default is the last run.
"""
# The command line: one subcommand per module, and one place (main) that turns every
# failure into a single line on stderr and an exit status.
import argparse
import functools
import os
import sys

from . import capture, cmd_compare, cmd_delete, cmd_export, cmd_junit, cmd_parse, cmd_plot, cmd_serve, cmd_table
from .capture import one_line

EXIT_STATUS_HELP = """exit status:
  0    done; every run read is complete and intact (or --allow-incomplete)
  1    a file that cannot be read (missing, not a regular file, too large), or
       nothing to show (no bench records, no event counts, no instr records
       to export, no matplotlib)
  2    a run is truncated or damaged, or its end record's status or errors
       contradict its records (refused unless --allow-incomplete), no run
       in the capture, a record field of the wrong type; or bad usage
  3    compare --fail-on-change: a figure moved beyond its spread
  141  the reader of the output went away (e.g. | head): stopped quietly
docs/lab.md shows each command at work; docs/results-format.md describes the records."""

# 128 + SIGPIPE, as a shell reports a writer whose reader went away (`pmucap parse X | head`).
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130
EXIT_BUG = 70   # EX_SOFTWARE: an exception nobody planned for


@functools.lru_cache(maxsize=1)
def build_parser():
    ap = argparse.ArgumentParser(prog="pmucap", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=EXIT_STATUS_HELP)
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    for mod in (cmd_parse, cmd_table, cmd_junit, cmd_compare, cmd_export, cmd_plot, cmd_serve, cmd_delete):
        mod.add_parser(sub)
    return ap


def also_damaged():
    """The warnings of a command that then failed, folded into its one error line."""
    ws = capture.take_warnings()
    if not ws:
        return ""
    return f" (also: {ws[0][:200]}" + (f"; and {len(ws) - 1} more warning(s)" if len(ws) > 1 else "") + ")"


def main(argv=None):
    # Variant names come from the capture: never let an odd character stop the output.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    ap = build_parser()
    args = ap.parse_args(argv)
    capture.take_warnings()
    try:
        status = args.func(args)
        sys.stdout.flush()
        for w in capture.take_warnings():
            print(f"pmucap: warning: {w}", file=sys.stderr)
        return status
    except capture.CaptureError as e:
        print(f"pmucap: {one_line(e)}{also_damaged()}", file=sys.stderr)
        return e.exit_status
    except BrokenPipeError:
        # The reader (head, less) went away: stop quietly, and keep the interpreter's
        # final flush of stdout from complaining too.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return EXIT_BROKEN_PIPE
    except OSError as e:
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"pmucap: {where}{e.strerror or e}{also_damaged()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pmucap: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        print("pmucap: out of memory reading the capture", file=sys.stderr)
        return 1
    except Exception as e:   # noqa: BLE001 - the last line of defence against a traceback
        print(f"pmucap: internal error (a bug in pmucap, please report it): {type(e).__name__}: "
              f"{one_line(e)[:300]}", file=sys.stderr)
        return EXIT_BUG
