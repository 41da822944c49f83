"""pmuboot-host for people: --help on every command, this CPU by default, quiet when piped into head."""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# `run --help` is tested with the benchmarks (test_bench.py).
COMMANDS = ["identify", "events", "program", "ibs-report", "options"]


def test_every_command_has_help(ctx):
    for cmd in COMMANDS:
        for flag in ("-h", "--help"):
            t = time.monotonic()
            p = ctx.run_host(cmd, flag)
            took = time.monotonic() - t
            assert p.returncode == 0, (cmd, flag, p.returncode, p.stderr)
            assert p.stdout.startswith(f"usage: pmuboot-host {cmd}"), (cmd, flag, p.stdout[:200])
            assert "-h, --help" in p.stdout and p.stderr == "", (cmd, flag, p.stdout, p.stderr)
            assert "@pmuboot" not in p.stdout and took < 1.0, (cmd, flag, took)   # nothing was run
    # --help wins wherever it stands, even after arguments that would otherwise be run or refused.
    p = ctx.run_host("identify", "--cpu", "0", "--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: pmuboot-host identify") and "@pmuboot" not in p.stdout
    p = ctx.run_host("program", "event=0x3c", "-h")
    assert p.returncode == 0 and p.stdout.startswith("usage: pmuboot-host program") and "wrmsr" not in p.stdout
    p = ctx.run_host("ibs-report", "/nonexistent.log", "--help")
    assert p.returncode == 0 and "LOGFILE" in p.stdout, p.stderr
    # Wrong arguments still go to stderr with the usage and status 2.
    p = ctx.run_host("options", "reps", "extra")
    assert p.returncode == 2 and "usage: pmuboot-host options" in p.stderr and p.stdout == "", p


def test_options_read_on_a_terminal(ctx):
    """The reference is for a terminal: no markup, no line a terminal would fold; one option alone."""
    text = ctx.run_host("options", check=True).stdout
    lines = text.splitlines()
    assert len(lines) > 40, text[:200]
    long = [l for l in lines if len(l) > 100]
    assert not long, long[:3]
    assert "<!--" not in text and "`" not in text and "| --- |" not in text, text[:300]
    one = ctx.run_host("options", "reps", check=True).stdout
    assert one.startswith("reps (default: ") and "iterations" not in one.splitlines()[0], one
    assert one.strip() in text, "an option alone is its entry in the whole reference"
    p = ctx.run_host("options", "repz")
    assert p.returncode == 2 and "no option 'repz'" in p.stderr and p.stdout == "", p


def test_main_usage(ctx):
    for flag in ("-h", "--help", "help"):
        p = ctx.run_host(flag)
        assert p.returncode == 0 and p.stdout.startswith("usage: pmuboot-host COMMAND"), (flag, p)
        for cmd in COMMANDS + ["run"]:
            assert f"\n  {cmd} " in p.stdout or f"\n  {cmd}\n" in p.stdout, (cmd, p.stdout)
        assert "COMMAND --help" in p.stdout, p.stdout
    p = ctx.run_host()
    assert p.returncode == 2 and "usage: pmuboot-host COMMAND" in p.stderr, p
    p = ctx.run_host("frobnicate")
    assert p.returncode == 2 and "unknown command 'frobnicate'" in p.stderr, p


def identify_this(ctx):
    p = ctx.run_host("identify", "--cpu", "0", check=True)
    recs = {}
    for line in p.stdout.splitlines():
        if line.startswith("@pmuboot "):
            r = json.loads(line[len("@pmuboot "):])
            recs[r["type"]] = r
    return recs["cpu"], recs["pmu"]


def test_program_defaults_to_this_cpu(ctx):
    cpu, pmu = identify_this(ctx)
    amd = cpu["vendor"] in ("amd", "hygon")
    spec = "event=0x76,umask=0" if amd else "event=0x3c,umask=0"
    p = ctx.run_host("program", "--cpu", "0", spec)
    head = f"# cpu: {cpu['vendor_string']} family {cpu['family']} model {cpu['model']} stepping {cpu['stepping']}: "
    assert p.stdout.startswith(head), (head, p.stdout[:300], p.stderr)
    assert "# from: this CPU (CPU 0)" in p.stdout, p.stdout[:500]
    if pmu["present"]:
        assert p.returncode == 0, (p.returncode, p.stderr)
        assert "\nwrmsr 0x" in p.stdout and f"pass 0: {spec} -> " in p.stdout, p.stdout
    else:
        assert p.returncode == 1 and "no counters to program" in p.stderr, (p.returncode, p.stderr)


def test_events_spec_defaults_to_this_cpu(ctx):
    cpu, _ = identify_this(ctx)
    p = ctx.run_host("events", "--spec", "event=0x3c,umask=0x01")
    if not cpu["event_set"]:
        assert p.returncode == 2 and "has no event set" in p.stderr and "--uarch" in p.stderr, p
        return
    assert p.returncode == 0, p.stderr
    same = ctx.run_host("events", "--uarch", cpu["event_set"], "--spec", "event=0x3c,umask=0x01", check=True)
    assert p.stdout == same.stdout and "event=0x3c umask=0x01 " in p.stdout, (p.stdout, same.stdout)
    assert f"in event set {cpu['event_set']} (this CPU: {cpu['vendor_string']} family {cpu['family']}" in p.stderr, p.stderr
    # A named event of this CPU's own set resolves without --uarch, as with it.
    rows = ctx.run_host("events", "--uarch", cpu["event_set"], check=True).stdout.splitlines()
    name = rows[1].split(",")[1]
    a = ctx.run_host("events", "--spec", name)
    b = ctx.run_host("events", "--uarch", cpu["event_set"], "--spec", name)
    assert a.returncode == 0 and a.stdout == b.stdout and f"name={name} " in a.stdout, (a, b)


def test_piping_into_head_is_quiet(ctx):
    # `events --uarch all`, not this CPU's set: a CPU with none (a doubted model number) says so on stderr.
    for cmd in ([ctx.host, "events", "--uarch", "all"], [ctx.host, "options"],
                [sys.executable, os.path.join(ROOT, "tools", "cpuid_fixture.py")]
                + [os.path.join(ROOT, "tests", "fixtures", "cpuid", f) for f in
                   ("intel_core2_report.txt", "kvm_cascadelake.txt", "amd_future_model.txt")] * 40):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        assert p.returncode == 0, (cmd[:2], p.returncode)
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
            proc.stdout.readline()
            proc.stdout.close()          # what `| head -1` does
            err = proc.stderr.read().decode()
            rc = proc.wait(timeout=60)
        assert err == "", (cmd[:2], err)
        assert rc in (0, -13), (cmd[:2], rc)     # finished, or ended by SIGPIPE as `cat` is: never an error message


def test_events_listing_order_is_as_documented(ctx):
    """docs/events.md: IBS rows under key 'ibs', in key order (not at the end), by code."""
    import csv
    rows = list(csv.reader(ctx.run_host("events", "--uarch", "all", check=True).stdout.splitlines()))[1:]
    keys = [r[0] for r in rows]
    assert keys == sorted(keys), "rows sorted by key"
    ibs = [i for i, k in enumerate(keys) if k == "ibs"]
    assert ibs == list(range(ibs[0], ibs[-1] + 1)) and len(ibs) == 59, ibs
    assert keys[ibs[0] - 1] == "haswellx" and keys[ibs[-1] + 1] == "icelake", (keys[ibs[0] - 1], keys[ibs[-1] + 1])
    codes = [int(rows[i][2], 16) for i in ibs]
    assert codes == sorted(codes), codes
    with open(os.path.join(ROOT, "docs", "events.md"), encoding="utf-8") as f:
        assert "between `haswellx` and `icelake`" in f.read()
