"""The verdict on one run: PASS, FAIL, INCOMPLETE or INVALID (docs/results-format.md, "Verdicts").

- INCOMPLETE: no `end` record (a hang, a fault with no way back, a power cut, a capture cut short).
- INVALID: the `end` record does not hold: its count or CRC does not match the records, a record is
  damaged, a field has the wrong type, or its `status`/`errors` contradict the records it closes.
  The CRC covers the record texts but not what the `end` record says about them, so the claim is
  checked here against the records themselves: a run whose `end` says `ok` over error records is
  forged (or written by a broken rig), not a clean run.
- FAIL: intact, and a check, an audit check or a self-test failed, or the run recorded errors.
- PASS: intact, and nothing failed (a skipped or absent check is not a failure).

The image counts a run error in `end.errors` for exactly these records (lib/record.c: rec_error and
rec_stream_note_error, called by pmu/audit/audit.c, platform/selftest_common.c, platform/runtime.c):
every `error` record, an `audit` record with status `fail`, a `selftest` record with status `fail`,
and a `fault` record that ended the run or a processor's pass and was not asked for (`expected`
false; a user kernel's fault, which names its `kernel`, is not a run error).  A `check` record that
failed makes the run FAIL without counting in `errors`.

The counts are taken as the records go by (Tally.note), so the rule keeps the capture reader's
streaming design: nothing is held but a few descriptions.

What a PASS verified (shown): the stored verdict stays one of the four words (the collector's API
and its queries use them), but wherever a verdict is shown to a person (`table`'s last line, the
junit suite's `verdict` case, the collector's run page) a PASS says what it rests on: "PASS (15 of
19 checks passed; 2 skipped, 2 unstable)", or, when no check, audit check or self-test passed,
"PASS (nothing verified: emulated, no PMU counting; 0 of 21 checks ran)".  The check counts are
those of every `check` record of the run, the ones the image's own summary line counts
(bench/stage.c: "bench: checks P passed, F failed, S skipped, U unstable").
"""

PASS, FAIL, INCOMPLETE, INVALID = "PASS", "FAIL", "INCOMPLETE", "INVALID"
VERDICTS = (PASS, FAIL, INCOMPLETE, INVALID)
# The verdicts of a run whose records are whole and true to themselves: its figures may be used.
INTACT = (PASS, FAIL)
# The `end` record's statuses (lib/record.c rec_stream_end).
STATUS_OK, STATUS_ERROR = "ok", "error"
# Failures described one by one, at most (the rest are counted), and run errors named in a contradiction.
MAX_DESCRIBED, ERRORS_NAMED = 8, 3
# A quoted value is cut to this many characters.
QUOTE_CHARS = 80
# A check record's statuses (bench/check.c status_name), in the order the image's summary line names them,
# with its words for them.
CHECK_STATUSES = (("pass", "passed"), ("fail", "failed"), ("skip", "skipped"), ("unstable", "unstable"))
# The cpu record's `execution` of a run under an emulator (QEMU TCG): no timing check means anything there.
EXEC_EMULATED = "emulated"


def _text(v):
    """A record's string field for a message, or '?' when it is not a string."""
    if not isinstance(v, str):
        return "?"
    return v if len(v) <= QUOTE_CHARS else v[:QUOTE_CHARS] + "..."


def _at(rec):
    line = getattr(rec, "line", 0)
    return f"line {line}: " if line else ""


def run_error(rec):
    """Why rec is a run error the image counts in `end.errors`, or None."""
    t = rec.get("type")
    if t == "error":
        return f"{_at(rec)}error record ({_text(rec.get('source'))}: {_text(rec.get('message'))})"
    if t == "audit" and rec.get("status") == "fail":
        counter = rec.get("counter")
        return (f"{_at(rec)}audit {_text(rec.get('check'))} failed"
                + (f" on {_text(counter)}" if isinstance(counter, str) else "")
                + (f" ({_text(rec.get('why'))})" if isinstance(rec.get("why"), str) else ""))
    if t == "selftest" and rec.get("status") == "fail":
        return f"{_at(rec)}self-test {_text(rec.get('test'))} failed"
    if t == "fault" and "kernel" not in rec and rec.get("expected") is not True:
        return f"{_at(rec)}fault {_text(rec.get('name'))} during {_text(rec.get('activity'))}"
    return None


def failed_check(rec):
    """Why rec is a failed `check` record (a FAIL that is not a run error), or None."""
    if rec.get("type") != "check" or rec.get("status") != "fail":
        return None
    name = f"{_text(rec.get('kernel'))}.{_text(rec.get('variant'))}"
    if isinstance(rec.get("arena"), str):
        name += f"@{_text(rec['arena'])}"
    what = _text(rec.get("what"))
    if isinstance(rec.get("role"), str):
        what += f" {_text(rec['role'])}"
    reason = rec.get("reason")
    return f"{_at(rec)}check {name} {what} failed" + (f" ({_text(reason)})" if isinstance(reason, str) else "")


class Tally:
    """The run errors and failed checks of one run, counted as its records go by."""
    # one per run: there may be thousands
    __slots__ = ("errors", "failed_checks", "described", "error_words", "_checks", "audits_passed",
                 "selftests_passed", "emulated", "no_counting")

    def __init__(self):
        self.errors = 0          # records the image counts in end.errors
        self.failed_checks = 0
        self.described = []      # every failure in words: the first MAX_DESCRIBED, in record order
        self.error_words = []    # the run errors in words: the first ERRORS_NAMED
        # Check records by status (every one: the image's summary counts them all); made at the first, as
        # a capture may hold thousands of runs without one.
        self._checks = None
        self.audits_passed = 0
        self.selftests_passed = 0
        self.emulated = False    # the cpu record says the run was emulated
        self.no_counting = False  # the bench_setup record says no event could be counted

    def _count(self, rec):
        t = rec.get("type")
        if t == "check":
            status = rec.get("status")
            key = status if isinstance(status, str) else "?"
            if self._checks is None:
                self._checks = {}
            self._checks[key] = self._checks.get(key, 0) + 1
        elif t == "audit" and rec.get("status") == "pass":
            self.audits_passed += 1
        elif t == "selftest" and rec.get("status") == "pass":
            self.selftests_passed += 1
        elif t == "cpu" and rec.get("execution") == EXEC_EMULATED:
            self.emulated = True
        elif t == "bench_setup":
            counting = rec.get("counting")
            if isinstance(counting, dict) and counting.get("available") is False:
                self.no_counting = True

    @property
    def checks(self):
        """{status: check records} of the run."""
        return self._checks or {}

    def checks_in_words(self):
        """The check records counted as the image's summary line counts them: "15 passed, 0 failed, 2 skipped,
        2 unstable" (a status the image does not write is added by name)."""
        known = [s for s, _ in CHECK_STATUSES]
        return ", ".join([f"{self.checks.get(s, 0)} {w}" for s, w in CHECK_STATUSES]
                         + [f"{n} {s}" for s, n in sorted(self.checks.items()) if s not in known])

    def verified(self):
        """True when something was verified: a check, an audit check or a self-test passed."""
        return bool(self.checks.get("pass") or self.audits_passed or self.selftests_passed)

    def note(self, rec):
        self._count(rec)
        why = run_error(rec)
        if why is not None:
            self.errors += 1
            if len(self.error_words) < ERRORS_NAMED:
                self.error_words.append(why)
        else:
            why = failed_check(rec)
            if why is None:
                return
            self.failed_checks += 1
        if len(self.described) < MAX_DESCRIBED:
            self.described.append(why)

    def failures(self):
        """Every failure in words (the first MAX_DESCRIBED, then how many more)."""
        more = self.errors + self.failed_checks - len(self.described)
        return list(self.described) + ([f"and {more} more"] if more > 0 else [])

    def errors_in_words(self):
        """The run errors, the first few in words."""
        more = self.errors - len(self.error_words)
        return "; ".join(self.error_words) + (f"; and {more} more" if more > 0 else "")


def contradictions(end, tally):
    """How the `end` record's status and errors contradict the records it closes ([] when they agree).

    Only a string status and an integer (or absent) errors are judged: a field of the wrong type is
    already a problem of the run (capture.Run.check, capture.FIELD_TYPES)."""
    status, errors = end.get("status"), end.get("errors")
    if not isinstance(status, str) or (errors is not None and (not isinstance(errors, int) or isinstance(errors, bool))):
        return []
    out = []
    if status not in (STATUS_OK, STATUS_ERROR):
        out.append(f"end record status {_text(status)!r} is neither {STATUS_OK!r} nor {STATUS_ERROR!r}")
    elif errors is not None and (status == STATUS_ERROR) != (errors > 0):
        out.append(f"end record contradicts itself: status {status!r} with {errors} error(s)")
    found = tally.errors
    said = f"status {status!r}" + ("" if errors is None else f", {errors} error(s)")
    if status == STATUS_OK and found:
        out.append(f"end record says {said}, but the records hold {found} run error(s): {tally.errors_in_words()}")
    elif status == STATUS_ERROR and not found:
        out.append(f"end record says {said}, but no record holds a run error")
    elif errors is not None and errors != found:
        out.append(f"end record counts {errors} error(s), the records hold {found}: {tally.errors_in_words()}")
    return out


def what_passed(tally):
    """What a PASS rests on, in words for beside it: "15 of 19 checks passed; 2 skipped, 2 unstable", or
    "nothing verified: emulated, no PMU counting; 0 of 21 checks ran"."""
    total = sum(tally.checks.values())
    passed = tally.checks.get("pass", 0)
    others = ", ".join(f"{tally.checks[s]} {w}" for s, w in CHECK_STATUSES[1:] if tally.checks.get(s))
    if tally.verified():
        checks = f"{passed} of {total} checks passed" + (f"; {others}" if others else "") if total \
            else "no benchmark check ran"
        if passed:
            return checks
        # Only the audit or the self-tests verified something: they say so first.
        what = [f"{tally.audits_passed} audit check(s) passed" if tally.audits_passed else "",
                f"{tally.selftests_passed} self-test(s) passed" if tally.selftests_passed else ""]
        return "; ".join([w for w in what if w] + [checks])
    why = [w for w, on in (("emulated", tally.emulated), ("no PMU counting", tally.no_counting)) if on]
    ran = total - tally.checks.get("skip", 0)
    return "nothing verified" + (": " + ", ".join(why) if why else "") + f"; {ran} of {total} checks ran" \
        + (f" ({others})" if others and ran else "")


def shown(run, stray=()):
    """(VERDICT, [reasons], words): the verdict as a person reads it: a PASS followed by what it rests on
    ("PASS (nothing verified: ...)"), any other verdict as it is."""
    v, reasons = verdict(run, stray)
    return v, reasons, (f"{v} ({what_passed(run.tally)})" if v == PASS else v)


def verdict(run, stray=()):
    """(VERDICT, [reasons]) of a capture.Run; stray: problems outside every run that belong to it
    (an upload of one run: damage before its begin record)."""
    if run.end is None:
        return INCOMPLETE, ["no end record: the run did not finish (a hang, a fault, a power cut) or the "
                            "capture was cut short"] + [p for p in run.problems if not p.startswith("no end record")] \
            + list(stray)
    bad = list(run.problems) + list(run.contradictions) + ([run.field_error] if run.field_error else []) + list(stray)
    if bad:
        return INVALID, bad
    if run.tally.errors or run.tally.failed_checks:
        return FAIL, run.tally.failures()
    if run.end.get("status") != STATUS_OK:
        return FAIL, [f"end record status {_text(run.end.get('status'))!r}"]
    return PASS, []
