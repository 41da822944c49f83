"""pmucap junit - a capture's verdicts as JUnit XML, for CI servers.

One <testsuite> per run in the capture.  Test cases:
  capture.integrity     fails when the run is truncated or damaged (count, CRC, bad lines);
  run.error.N           one per `error` record (a bad option, a stage that failed), failed;
  run.fault.N           one per `fault` record (an unexpected exception), failed;
  <kernel>.<variant>[@arena] <what>
                        one per `check` record: pass, fail (with its figures) or skip.
Properties carry the build, the CPU and the machine, so a CI page says what ran where.
"""
import sys
import xml.etree.ElementTree as ET

import pmucap

# Fields of a check record shown in a failure's text, in this order when present.
CHECK_DETAIL_FIELDS = ("what", "role", "event", "value", "control_value", "penalty", "expected",
                       "expected_min", "expected_max", "reason")


def add_parser(sub):
    p = sub.add_parser("junit", help="check records and run integrity as JUnit XML")
    p.add_argument("capture")
    p.add_argument("-o", "--output", help="write the XML here (default: standard output)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="exit 0 even when a run is damaged (its integrity test case still fails)")
    p.set_defaults(func=cmd_junit)


def _detail(rec):
    return "\n".join(f"{k}: {rec[k]}" for k in CHECK_DETAIL_FIELDS if k in rec and rec[k] is not None)


def _case(suite, classname, name, status, message="", text=""):
    tc = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")
    if status == "fail":
        f = ET.SubElement(tc, "failure", message=message or "failed", type="failure")
        f.text = text
    elif status == "skip":
        ET.SubElement(tc, "skipped", message=message or "skipped")
    elif status != "pass":
        # A status this tool does not know is not a pass: say so rather than guess.
        e = ET.SubElement(tc, "error", message=f"unknown check status {status!r}", type="error")
        e.text = text
    return tc


def run_suite(root, run, index, capture_name):
    suite = ET.SubElement(root, "testsuite", name=f"pmuboot {capture_name} run {index}")
    props = ET.SubElement(suite, "properties")
    begin = pmucap.first_record(run, "begin") or {}
    cpu = pmucap.first_record(run, "cpu") or {}
    plat = pmucap.first_record(run, "platform") or {}
    smb = plat.get("smbios") or {}
    for name, value in (("version", begin.get("version")), ("build", begin.get("build")),
                        ("program", begin.get("program")), ("cpu", cpu.get("brand")),
                        ("cpu_signature", cpu.get("signature")),
                        ("machine", " ".join(x for x in (smb.get("system_manufacturer"),
                                                         smb.get("system_product")) if x) or None),
                        ("bios", smb.get("bios_version")), ("start_line", run.start_line)):
        if value is not None:
            ET.SubElement(props, "property", name=name, value=str(value))

    if run.problems:
        _case(suite, "pmuboot.capture", "integrity", "fail", "the capture is truncated or damaged",
              "\n".join(run.problems))
    else:
        _case(suite, "pmuboot.capture", "integrity", "pass")
    for n, rec in enumerate(pmucap.run_records(run, "error"), 1):
        _case(suite, "pmuboot.run", f"error.{n} {rec.get('source', '?')} {rec.get('what', '?')}", "fail",
              rec.get("message", ""), pmucap.json.dumps(rec))
    for n, rec in enumerate(pmucap.run_records(run, "fault"), 1):
        _case(suite, "pmuboot.run", f"fault.{n}", "fail", "unexpected exception", pmucap.json.dumps(rec))
    for rec in pmucap.run_records(run, "check"):
        status = rec.get("status")
        name = f"{pmucap.variant_key(rec)} {rec.get('what', 'check')}"
        if rec.get("role"):
            name += f" {rec['role']}"
        _case(suite, f"pmuboot.{rec.get('kernel', 'check')}", name, status, rec.get("reason") or "", _detail(rec))

    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    suite.set("time", "0")
    return suite


def to_junit(runs, stray, capture_name):
    root = ET.Element("testsuites", name="pmuboot")
    for i, run in enumerate(runs, 1):
        run_suite(root, run, i, capture_name)
    if stray or not runs:
        # Text outside every run that looked like records: damage too.
        suite = ET.SubElement(root, "testsuite", name=f"pmuboot {capture_name} outside runs",
                              tests="1", failures="1", errors="0", skipped="0", time="0")
        _case(suite, "pmuboot.capture", "records outside a run", "fail",
              "no pmuboot run found" if not runs else "damaged or stray records",
              "\n".join(stray) or "the capture holds no begin record")
    for attr in ("tests", "failures", "errors", "skipped"):
        root.set(attr, str(sum(int(s.get(attr, "0")) for s in root.findall("testsuite"))))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def cmd_junit(args):
    runs, stray = pmucap.parse(pmucap.read_capture(args.capture))
    xml = to_junit(runs, stray, args.capture)
    if args.output:
        with open(args.output, "w") as f:
            f.write(xml)
    else:
        sys.stdout.write(xml)
    problems = list(stray) + [p for r in runs for p in r.problems]
    if not runs:
        problems.append("no pmuboot run found in the capture")
    for p in problems:
        print(f"pmucap: {args.capture}: {p}", file=sys.stderr)
    return 2 if problems and not args.allow_incomplete else 0
