"""The collector (`pmucap serve`) under hostile uploads and requests (issue 32): strings that are not
text, the image's own trailer and live uploads, odd queries, plots of odd names and figures, strict
JSON, errors as JSON, the log, cross-site requests, damaged re-uploads, slow clients, large runs,
deleting runs and the read token.  Each test starts its own collector on 127.0.0.1 and a free port
(tests/testlib/collector.py); every load is bounded in count and time."""
import base64
import concurrent.futures as cf
import json
import os
import resource
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

import testlib.collector as cl
from testlib.collector import TOKEN, TRAILER, Collector, live_stages, upload_text, with_cpu

mk = cl.make_uploads
ADMIN = "admin-token-0123456789abcdef"
READER = "read-token-0123456789abcdef"


def strict(raw):
    """JSON as a strict parser reads it: NaN and Infinity are no JSON."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(raw, parse_constant=refuse)


def tmpdb(d):
    return os.path.join(d, "runs.sqlite")


def test_strings_that_are_not_text_are_refused_and_pages_stay_up(ctx):
    """1, 8, 12: a lone surrogate or NUL (a JSON escape) in any string makes its record damaged: the
    upload is answered 400 naming the record and key (never a 500), kept as INVALID evidence; the
    pages then answer 200; an ESC in a stored name never reaches the log raw."""
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d)) as c:
        base = mk.machine_run("LAB-TEXT")
        err = {"type": "error", "source": "bench", "message": "lone \udc00 here"}
        cases = [
            ("error message", base + [err], "error record: field 'message' holds U+DC00"),
            ("brand", with_cpu(base, brand="CPU \udc00"), "cpu record: field 'brand' holds U+DC00"),
            ("serial NUL", [dict(r, smbios=dict(r["smbios"], system_serial="LAB\x00X")) if r["type"] == "platform"
                            else r for r in base], "platform record: field 'smbios.system_serial' holds U+0000"),
            ("key", with_cpu(base, **{"k\ud800": 1}), "cpu record: key 'k\\ud800' holds U+D800"),
        ]
        ids = []
        for what, recs, words in cases:
            status, body = c.post(mk.frame(recs))
            assert status == 400 and body["verdict"] == "INVALID", (what, status, body)
            assert any(words in r for r in body["reasons"]), (what, body["reasons"])
            ids.append(body["id"])
        for path in ["/", "/api/runs"] + [f"/runs/{i}" for i in ids] + [f"/api/runs/{i}" for i in ids]:
            status, body, hdrs = c.request("GET", path)
            assert status == 200, (path, status, body)
        # Control characters are text: stored, shown escaped in pages, and escaped in the log.
        status, body = c.post(mk.frame(with_cpu(mk.machine_run("LAB-ESC"), brand="\x1b[2J\x1b]0;pwn\x07 \x85CPU")))
        assert status == 201, (status, body)
        assert c.request("GET", f"/runs/{body['id']}")[0] == 200
        c.stop()
        log = "\n".join(c.lines)
        assert "LAB-ESC" in log and "\x1b" not in log and "\x07" not in log and "\x85" not in log, log[-600:]
        assert "\\u001b[2J" in log, log[-600:]


def test_the_images_own_uploads_are_whole_runs(ctx):
    """3, 4: the results file and the serial capture with the `upload` trailer after `end` are the
    run (PASS); live uploads answer 202 and are one row per run, completed by the final upload; a run
    that never finishes stays one INCOMPLETE row."""
    live = {"X-Pmuboot-Upload": "live"}
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d)) as c:
        text = mk.frame(mk.machine_run("LAB-TRAIL"))
        status, body = c.post(text + TRAILER)
        assert status == 201 and body["verdict"] == "PASS", (status, body)
        serial = "".join(f"noise\r\n@pmuboot {line}\r\n" for line in (text + TRAILER).splitlines())
        status, again = c.post(serial)
        assert status == 200 and again["id"] == body["id"], (status, again)
        # Live: each stage 202, one row, then the final upload completes that row.
        bodies, final = live_stages("LAB-LIVE")
        ids = set()
        for b in bodies:
            status, ans, _ = c.request("POST", "/api/runs", b, headers=live)
            assert status == 202 and ans["verdict"] == "INCOMPLETE", (status, ans)
            ids.add(ans["id"])
        assert len(ids) == 1, ids
        status, ans, _ = c.request("POST", "/api/runs", bodies[-1], headers=live)
        assert status == 202 and ans["stored"] == "already", (status, ans)
        status, ans, _ = c.request("POST", "/api/runs", final, headers={"X-Pmuboot-Upload": "final"})
        assert status == 201 and ans["verdict"] == "PASS" and ans["id"] in ids, (status, ans)
        mine = c.get("/api/runs?machine=LAB-LIVE")[1]["runs"]
        assert [(r["id"], r["verdict"]) for r in mine] == [(ans["id"], "PASS")], mine
        # A run that never finishes: its stages are one INCOMPLETE row.
        bodies, _ = live_stages("LAB-HANG")
        for b in bodies:
            assert c.request("POST", "/api/runs", b, headers=live)[0] == 202
        mine = c.get("/api/runs?machine=LAB-HANG")[1]["runs"]
        assert [r["verdict"] for r in mine] == ["INCOMPLETE"], mine
        # A live upload that is damaged besides is refused (the image then stops its live uploads).
        status, ans, _ = c.request("POST", "/api/runs", bodies[0].replace('"platform"', '"platform",'), headers=live)
        assert status == 400, (status, ans)


def test_a_different_damaged_upload_is_other_evidence(ctx):
    """14: the same damaged run with other records outside it is stored anew, not "already"."""
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d)) as c:
        text = upload_text("crc-damaged.jsonl")
        status, a = c.post(text)
        assert status == 400 and a["stored"] == "new", a
        status, b = c.post('{"type":"note","x":1}\n' + text)
        assert status == 400 and b["stored"] == "new" and b["id"] != a["id"], (a, b)
        status, again = c.post(text)
        assert again["stored"] == "already" and again["id"] == a["id"], again


def test_odd_queries_and_errors_answer_json(ctx):
    """6, 9, 10, 11: a far date, 405 with Allow, an internal error and waitress's own 413 as JSON
    lines, and /api/sku with a median of almost 0 in strict JSON."""
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d)) as c:
        for q in ("until=9999-12-31", "since=9999-12-31", "until=0001-01-01"):
            status, body = c.get("/api/runs?" + q)
            assert status == 200, (q, status, body)
        status, body, hdrs = c.request("PUT", "/api/runs", "x")
        assert status == 405 and "POST" in hdrs.get("Allow", "") and body["error"], (status, body, dict(hdrs))
        # Figures whose share of the median overflows: null, never Infinity.
        tiny = []
        for i, v in enumerate((1e-300, 1e-300, 1e10)):
            recs = [dict(r, cycles=dict(r["cycles"], median=v, min=v, max=v)) if r["type"] == "bench" and r.get("cycles")
                    else r for r in mk.machine_run(f"LAB-TINY{i}", brand="Tiny CPU")]
            status, body = c.post(mk.frame(recs))
            assert status == 201, body
            tiny.append(body["id"])
        with urllib_get(c, f"/api/compare?a={tiny[0]}&b={tiny[2]}") as text:
            assert strict(text)["rows"], text[:200]
        with urllib_get(c, "/api/sku?cpu=Tiny%20CPU") as text:
            got = strict(text)
        assert got["rows"] and all(c_["pct"] is None or abs(c_["pct"]) < 1e300 for r in got["rows"]
                                   for c_ in r["cells"].values()), got["rows"][:2]
        # Waitress's own 413 (far over the limit): JSON too, and the client still sending its body is
        # not reset (the connection lingers, dropping what comes, until the client has read the answer).
        with socket.create_connection(("127.0.0.1", c.port), timeout=30) as s:
            s.sendall(f"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
                      f"Content-Length: {1 << 30}\r\n\r\n".encode())
            for _ in range(64):
                s.sendall(b"x" * 65536)
            head = recv_all(s)
        assert head.split()[1] == "413" and "application/json" in head, head[:300]
        json.loads(head.split("\r\n\r\n", 1)[1])
        # An internal failure (a table gone): a JSON 500, not Flask's HTML page.
        with sqlite3.connect(tmpdb(d)) as db:
            db.execute("DROP TABLE figures")
        status, body, hdrs = c.request("GET", "/api/sku?cpu=Tiny%20CPU")
        assert status == 500 and hdrs.get("Content-Type", "").startswith("application/json") and body["error"], \
            (status, body)


def urllib_get(c, path):
    import contextlib
    import urllib.request

    @contextlib.contextmanager
    def get():
        with urllib.request.urlopen(c.url + path, timeout=30) as r:
            yield r.read().decode("utf-8")
    return get()


def recv_all(s, limit=1 << 16):
    out = b""
    try:
        while len(out) < limit:
            b = s.recv(4096)
            if not b:
                break
            out += b
    except OSError:
        pass
    return out.decode("latin-1")


def test_a_full_disk_answers_503_with_retry_after(ctx):
    """10: SQLite cannot write (here the file size limit, as a full disk): 503, Retry-After, JSON."""
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (400 << 10, 400 << 10))
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d), preexec=small_files) as c:
        seen = None
        for i in range(40):
            status, body, hdrs = c.request("POST", "/api/runs", mk.frame(mk.machine_run(f"LAB-FULL{i}")))
            if status != 201:
                seen = (status, body, dict(hdrs))
                break
        assert seen is not None, "the file size limit was never reached"
        status, body, hdrs = seen
        assert status == 503 and hdrs.get("Retry-After") and isinstance(body, dict) and body["error"], seen
        assert c.get("/")[0] == 200


def test_plots_of_odd_names_and_figures(ctx):
    """7: a brand with $...$ is drawn as written; a figure of 1e308 is left out, said so, no 500."""
    py = cl.server_python(("matplotlib",))
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d), python=py) as c:
        status, a = c.post(mk.frame(mk.machine_run("LAB-MATH", brand=r"CPU $\foo$ $x^2$")))
        assert status == 201, a
        recs = mk.machine_run("LAB-HUGE")
        k = next(i for i, r in enumerate(recs) if r["type"] == "bench" and r.get("cycles"))
        recs[k] = dict(recs[k], cycles=dict(recs[k]["cycles"], median=1e308, max=1e308))
        status, b = c.post(mk.frame(recs))
        assert status == 201, b
        for run_id in (a["id"], b["id"]):
            status, png, hdrs = c.request("GET", f"/runs/{run_id}/plot.png?metric=cycles")
            assert status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n", (run_id, status, png[:200])


def test_loopback_mode_is_not_an_open_door(ctx):
    """13: an upload needs an ndjson or JSON type; Host and Origin must name the collector; every
    answer carries the security headers."""
    text = mk.frame(mk.machine_run("LAB-XSITE"))
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d), "--public-name", "collector.lab") as c:
        for headers, want in (({"Content-Type": "text/plain"}, 415),
                              ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
                              ({"Host": "rebind.evil.example"}, 403),
                              ({"Origin": "http://evil.example"}, 403),
                              ({"Host": f"rebind.evil.example:{0}", "Origin": "http://rebind.evil.example"}, 403)):
            status, body, _ = c.request("POST", "/api/runs", text, headers=headers)
            assert status == want and body["error"], (headers, status, body)
        assert c.get("/api/runs")[1]["runs"] == []
        assert c.request("GET", "/", headers={"Host": "rebind.evil.example"})[0] == 403
        for headers in ({"Host": f"collector.lab:{c.port}", "Origin": f"http://collector.lab:{c.port}"},
                        {"Host": f"localhost:{c.port}"}, {}):
            status, body, _ = c.request("POST", "/api/runs", text, headers=headers)
            assert status in (200, 201), (headers, status, body)
        for path in ("/", "/api/runs", "/api/runs/1", "/nowhere"):
            status, _, hdrs = c.request("GET", path)
            assert hdrs.get("X-Content-Type-Options") == "nosniff" and hdrs.get("X-Frame-Options") == "DENY" \
                and "default-src 'none'" in hdrs.get("Content-Security-Policy", ""), (path, dict(hdrs))


def test_slow_clients_do_not_lock_others_out(ctx):
    """2: 120 clients trickling their headers (a line every 0.3 s) hold no slot for ever: an ordinary
    GET is answered at once meanwhile, and they are cut off at the header deadline."""
    n, deadline = 120, 2.0
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d), "--header-timeout", str(deadline)) as c:
        socks = []
        try:
            for _ in range(n):
                s = socket.create_connection(("127.0.0.1", c.port), timeout=5)
                s.sendall(b"GET / HTTP/1.1\r\n")
                socks.append(s)
            t0 = time.monotonic()
            status, _, _ = c.request("GET", "/api/runs", timeout=5)
            took = time.monotonic() - t0
            assert status == 200 and took < 3, (status, took)
            closed = set()
            end = time.monotonic() + deadline + 4
            i = 0
            while time.monotonic() < end and len(closed) < n:
                for k, s in enumerate(socks):
                    if k in closed:
                        continue
                    try:
                        s.sendall(f"X-Slow-{i}: 1\r\n".encode())
                        r, _, _ = select.select([s], [], [], 0)
                        if r and not s.recv(4096):
                            closed.add(k)
                    except OSError:
                        closed.add(k)
                i += 1
                time.sleep(0.3)
            assert len(closed) == n, f"{n - len(closed)} of {n} slow clients still connected after " \
                                     f"{deadline + 4} s"
        finally:
            for s in socks:
                s.close()


def big_run(target_bytes):
    """A run of about target_bytes: the real run and records of ~500 bytes (within upload.MAX_RUN_RECORDS;
    of a type no reader looks into, so that storing it is quick and the test measures memory)."""
    recs = mk.machine_run("LAB-BIG")
    pad = {"type": "note", "n": 0, "text": "x" * 480}
    one = len(mk.dumps(pad)) + 6
    return mk.frame(recs + [dict(pad, n=i) for i in range(target_bytes // one)])


def test_memory_and_time_stay_in_proportion(ctx):
    """5: more records than upload.MAX_RUN_RECORDS: 413 naming the cap, at once; a 16 MiB run within
    it grows the collector's peak RSS by at most 8x its size, stored and then read by four at once,
    each read within 20 s."""
    with tempfile.TemporaryDirectory() as d, Collector(tmpdb(d), "--max-upload-mib", "17") as c:
        assert c.post(mk.frame(mk.machine_run("LAB-WARM")))[0] == 201
        assert c.get("/api/runs/1")[0] == 200
        tiny = '{"type":"begin"}\n' + '{"type":"x"}\n' * ((16 << 20) // 13)
        t0 = time.monotonic()
        status, body = c.post(tiny)
        assert status == 413 and "records per run" in body["error"] and time.monotonic() - t0 < 20, (status, body)
        text = big_run(16 << 20)
        size = len(text)
        before = c.peak_rss()
        status, body = c.post(text)
        assert status == 201, (status, body)
        run_id = body["id"]

        def read(_):
            t = time.monotonic()
            status, got, _ = c.request("GET", f"/api/runs/{run_id}", timeout=60)
            return status, len(got["records"]), time.monotonic() - t
        with cf.ThreadPoolExecutor(4) as ex:
            got = list(ex.map(read, range(4)))
        assert all(s == 200 and n == text.count("\n") and t <= 20 for s, n, t in got), got
        grown = c.peak_rss() - before
        assert grown <= 8 * size, f"peak RSS grew {grown >> 20} MiB for a {size >> 20} MiB run"


def test_operators_delete_runs_and_reading_can_need_a_token(ctx):
    """DELETE /api/runs/ID with the admin token (the run's text kept in deleted_runs) and `pmucap
    delete-run`; with --read-token-file nothing is read without that token."""
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for name, tok in (("upload", TOKEN), ("admin", ADMIN), ("read", READER)):
            files[name] = os.path.join(d, name)
            with open(files[name], "w") as f:
                f.write(tok + "\n")
        with Collector(tmpdb(d), "--token-file", files["upload"], "--admin-token-file", files["admin"],
                       "--read-token-file", files["read"]) as c:
            ids = [c.post(mk.frame(mk.machine_run(f"LAB-DEL{i}")), token=TOKEN)[1]["id"] for i in range(2)]
            # Reading: the read token (bearer, or Basic's password) or the admin token; nothing else.
            for headers, want in (({}, 401), ({"Authorization": f"Bearer {TOKEN}"}, 401),
                                  ({"Authorization": f"Bearer {READER}"}, 200),
                                  ({"Authorization": "Basic " + base64.b64encode(f"me:{READER}".encode()).decode()},
                                   200), ({"Authorization": f"Bearer {ADMIN}"}, 200)):
                for path in ("/", "/api/runs", f"/api/runs/{ids[0]}", f"/runs/{ids[0]}"):
                    status, body, hdrs = c.request("GET", path, headers=headers)
                    assert status == want, (path, headers, status)
            rd = {"Authorization": f"Bearer {READER}"}
            # Deleting: only the admin token.
            for tok in (None, TOKEN, READER):
                status, body, _ = c.request("DELETE", f"/api/runs/{ids[0]}", token=tok)
                assert status == 401, (tok, status, body)
            status, body, _ = c.request("DELETE", f"/api/runs/{ids[0]}?reason=test%20run", token=ADMIN)
            assert status == 200 and body["deleted"] == ids[0], (status, body)
            assert c.request("GET", f"/api/runs/{ids[0]}", headers=rd)[0] == 404
            assert c.request("DELETE", f"/api/runs/{ids[0]}", token=ADMIN)[0] == 404
            # The pmucap command.
            p = subprocess.run([sys.executable, cl.PMUCAP, "delete-run", c.url, str(ids[1]), "--token-file",
                                files["admin"], "--reason", "by the command"], capture_output=True, text=True,
                               timeout=60)
            assert p.returncode == 0 and f"run {ids[1]} deleted" in p.stdout, (p.returncode, p.stdout, p.stderr)
            p = subprocess.run([sys.executable, cl.PMUCAP, "delete-run", c.url, str(ids[1]), "--token-file",
                                files["admin"]], capture_output=True, text=True, timeout=60)
            assert p.returncode == 1 and "no run" in p.stderr, (p.returncode, p.stdout, p.stderr)
            status, log, _ = c.request("GET", "/api/deleted", token=ADMIN)
            assert [r["run_id"] for r in log["deleted"]] == ids[::-1], log
            assert c.request("GET", "/api/runs", headers=rd)[1]["runs"] == []
        with sqlite3.connect(tmpdb(d)) as db:
            rows = db.execute("SELECT run_id, reason, body FROM deleted_runs ORDER BY id").fetchall()
        assert [(r[0], r[1]) for r in rows] == [(ids[0], "test run"), (ids[1], "by the command")], rows
        assert all("LAB-DEL" in r[2] for r in rows)


def test_a_schema_1_database_is_migrated(ctx):
    """A database of before issue 32 (schema 1): migrated at start, its runs read as before."""
    from pmucap import store
    with tempfile.TemporaryDirectory() as d:
        text = upload_text("machine-a.jsonl")
        with sqlite3.connect(tmpdb(d)) as db:
            db.execute("CREATE TABLE schema_info (version INTEGER NOT NULL)")
            db.execute("INSERT INTO schema_info VALUES (1)")
            for stmt in store.MIGRATIONS[1]:
                db.execute(stmt.format(**store.SqliteStore.dialect))
            db.execute("INSERT INTO runs (run_key, digest, received_at, verdict, reasons, records, crc32, bytes, "
                       "machine, cpu) VALUES ('k', 'd', '2026-01-01T00:00:00Z', 'PASS', '[\"old \\udc00\"]', 41, "
                       "'0', 1, 'm', 'c')")
            db.execute("INSERT INTO run_texts VALUES (1, ?)", (text,))
        with Collector(tmpdb(d)) as c:
            assert "migrated from 1" in c.lines[0], c.lines[0]
            status, body = c.get("/api/runs/1")
            assert status == 200 and len(body["records"]) == 41, (status, body if status != 200 else "")
            assert body["run"]["reasons"] == ["old \\udc00"], body["run"]
            assert c.get("/")[0] == 200 and c.get("/runs/1")[0] == 200
