"""pmucap junit - a capture's verdicts as JUnit XML, for CI servers.

One <testsuite> per run in the capture.  Test cases:
  capture.integrity     fails when the run is truncated or damaged (count, CRC, bad lines);
  run.error.N           one per `error` record (a bad option, a stage that failed), failed;
  run.fault.N           one per `fault` record (an unexpected exception), failed;
  audit.<check>         one per `audit` record (each processor's): pass, fail (with the counter and
                        the counts) or skipped (absent: the hardware cannot do it here, and why);
  <kernel>.<variant>[@arena] <what>
                        one per `check` record: pass, fail (with its figures) or skip.
  run.verdict           the run's verdict as `table` shows it (verdict.py): passes when a PASS rests
                        on checks that passed, is skipped when nothing could be verified ("PASS
                        (nothing verified: emulated, no PMU counting; 0 of 21 checks ran)": a CI page
                        must not show such a run green), fails for FAIL, INCOMPLETE or INVALID.
Properties carry the build, the CPU, the machine and the verdict, so a CI page says what ran where.
A damaged capture still gives its XML (the integrity case fails, so the CI page shows it),
and the command exits 2 unless --allow-incomplete.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

from . import capture
from . import verdict as _verdict
from .capture import BOOL, INT, STR, get

# Fields of a check record shown in a failure's text, in this order when present.
CHECK_DETAIL_FIELDS = ("what", "role", "event", "value", "control_value", "penalty", "expected",
                       "expected_min", "expected_max", "reason")
# Characters XML 1.0 cannot hold at all (ElementTree would write them and make the file unreadable).
XML_BAD_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def add_parser(sub):
    p = sub.add_parser("junit", help="check records and run integrity as JUnit XML",
                       description=__doc__, formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("capture")
    p.add_argument("-o", "--output", help="write the XML here (default: standard output)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="exit 0 even when a run is damaged (its integrity test case still fails)")
    p.set_defaults(func=run)


def xml_text(v):
    """Any value as text XML can hold: odd characters become \\xNN."""
    s = v if isinstance(v, str) else json.dumps(v)
    return XML_BAD_RE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                          else f"\\u{ord(m.group()):04x}", s)


def _detail(rec):
    return "\n".join(f"{k}: {xml_text(rec[k])}" for k in CHECK_DETAIL_FIELDS if rec.get(k) is not None)


def _case(suite, classname, name, status, message="", text=""):
    tc = ET.SubElement(suite, "testcase", classname=xml_text(classname), name=xml_text(name), time="0")
    if status == "fail":
        f = ET.SubElement(tc, "failure", message=xml_text(message or "failed"), type="failure")
        f.text = xml_text(text)
    elif status == "skip":
        ET.SubElement(tc, "skipped", message=xml_text(message or "skipped"))
    elif status != "pass":
        # A status this tool does not know is not a pass: say so rather than guess.
        e = ET.SubElement(tc, "error", message=xml_text(f"unknown check status {status!r}"), type="error")
        e.text = xml_text(text)
    return tc


def run_suite(root, run, capture_name):
    suite = ET.SubElement(root, "testsuite", name=xml_text(f"pmuboot {capture_name} run {run.number}"))
    props = ET.SubElement(suite, "properties")
    begin = capture.first_record(run, "begin") or {}
    cpu = capture.first_record(run, "cpu") or {}
    plat = capture.first_record(run, "platform") or {}
    machine = " ".join(x for x in (get(plat, ("smbios", "system_manufacturer"), STR),
                                   get(plat, ("smbios", "system_product"), STR)) if x)
    for name, value in (("version", get(begin, "version", STR)), ("build", get(begin, "build", STR)),
                        ("program", get(begin, "program", STR)), ("cpu", get(cpu, "brand", STR)),
                        ("cpu_signature", get(cpu, "signature", STR)), ("machine", machine or None),
                        ("bios", get(plat, ("smbios", "bios_version"), STR)),
                        ("start_line", run.start_line)):
        if value is not None:
            ET.SubElement(props, "property", name=name, value=xml_text(str(value)))

    v, reasons, words = _verdict.shown(run)
    ET.SubElement(props, "property", name="verdict", value=xml_text(words))
    if v == _verdict.PASS:
        _case(suite, "pmuboot.run", "verdict", "pass" if run.tally.verified() else "skip", words)
    else:
        _case(suite, "pmuboot.run", "verdict", "fail", words, "\n".join(reasons))
    if run.problems:
        _case(suite, "pmuboot.capture", "integrity", "fail", "the capture is truncated or damaged",
              "\n".join(run.problems + run.contradictions))
    elif run.contradictions:
        _case(suite, "pmuboot.capture", "integrity", "fail", "the end record contradicts the records",
              "\n".join(run.contradictions))
    else:
        _case(suite, "pmuboot.capture", "integrity", "pass")
    for n, rec in enumerate(capture.run_records(run, "error"), 1):
        _case(suite, "pmuboot.run", f"error.{n} {get(rec, 'source', STR, '?')} {get(rec, 'what', STR, '?')}",
              "fail", get(rec, "message", STR, ""), json.dumps(rec))
    for n, rec in enumerate(capture.run_records(run, "fault"), 1):
        if get(rec, "expected", BOOL):   # a self-test asked for it: not a run error
            _case(suite, "pmuboot.run", f"fault.{n}", "pass")
        else:
            _case(suite, "pmuboot.run", f"fault.{n}", "fail", "unexpected exception", json.dumps(rec))
    multi = capture.per_cpu(run)
    for rec in capture.run_records(run, "audit"):
        status = get(rec, "status", STR)
        n = get(rec, ("cpu", "n"), INT) if multi else None
        name = (f"{n}:" if n is not None else "") + get(rec, "check", STR, "?")
        text = "\n".join(f"{k}: {xml_text(rec[k])}" for k in ("counter", "expected", "got", "why", "measured")
                         if rec.get(k) is not None)
        _case(suite, "pmuboot.audit", name, {"absent": "skip"}.get(status, status),
              get(rec, "why", STR, ""), text)
    for rec in capture.run_records(run, "check"):
        status = get(rec, "status", STR)
        name = f"{capture.variant_key(rec, multi)} {get(rec, 'what', STR, 'check')}"
        role = get(rec, "role", STR)
        if role:
            name += f" {role}"
        _case(suite, f"pmuboot.{get(rec, 'kernel', STR, 'check')}", name, status,
              get(rec, "reason", STR, ""), _detail(rec))

    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    suite.set("time", "0")
    return suite


COUNTS = ("tests", "failures", "errors", "skipped")
# The records the suites read (the end record is always kept); each run's go once its suite is made.
# Of the bench records only the processor is read (per_cpu), of the check records what a case shows.
JUNIT_TYPES = ("begin", "cpu", "platform", "bench", "error", "fault", "audit", "check")
JUNIT_FIELDS = {"bench": capture.KEY_FIELDS,
                "check": capture.KEY_FIELDS + ("status", "what", "role") + CHECK_DETAIL_FIELDS}


def _suite_text(suite):
    """A suite as XML text, indented to sit under <testsuites> (so its elements can go)."""
    ET.indent(suite, space="  ", level=1)
    return "  " + ET.tostring(suite, encoding="unicode").rstrip("\n")


def _assemble(suites, stray, any_runs, capture_name):
    """The XML document from suite texts and their counts: [(text, {count: n})]."""
    if stray or not any_runs:
        # Text outside every run that looked like records: damage too.
        suite = ET.Element("testsuite", name=xml_text(f"pmuboot {capture_name} outside runs"),
                           tests="1", failures="1", errors="0", skipped="0", time="0")
        _case(suite, "pmuboot.capture", "records outside a run", "fail",
              "no pmuboot run found" if not any_runs else "damaged or stray records",
              "\n".join(stray) or "the capture holds no begin record")
        suites.append((_suite_text(suite), {k: int(suite.get(k)) for k in COUNTS}))
    root = ET.Element("testsuites", name="pmuboot")
    for attr in COUNTS:
        root.set(attr, str(sum(c[attr] for _, c in suites)))
    head = ET.tostring(root, encoding="unicode")
    if not suites:
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + head + "\n"
    open_tag = head[:-2] + ">" if head.endswith(" />") else head[:head.index(">") + 1]
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + open_tag.replace(" >", ">") + "\n"
            + "\n".join(t for t, _ in suites) + "\n</testsuites>\n")


def _one_suite(run, capture_name):
    root = ET.Element("testsuites")
    suite = run_suite(root, run, capture_name)
    return _suite_text(suite), {k: int(suite.get(k)) for k in COUNTS}


def to_junit(runs, stray, capture_name):
    return _assemble([_one_suite(r, capture_name) for r in runs], stray, bool(runs), capture_name)


def run(args):
    # Each run's suite is made as the run closes, and its records let go: memory follows one run.
    suites = []
    cap = capture.Capture(args.capture, keep=JUNIT_TYPES, keep_texts=False, fields=JUNIT_FIELDS,
                          on_run=lambda r: suites.append(_one_suite(r, args.capture)))
    xml = _assemble(suites, cap.stray, bool(cap.runs), args.capture)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(xml)
    else:
        sys.stdout.write(xml)
    sys.stdout.flush()
    # The XML is out either way; now the verdict on the capture itself.
    cap.check_found()
    for w in cap.verify(cap.runs, args.allow_incomplete):
        capture.warn(w)
    return 0
