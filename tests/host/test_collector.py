"""The collector (`pmucap serve`) with SQLite: where it listens, every status code of the upload API,
idempotency, the read API's filters, compare and the SKU comparison, 20 uploads at once, and a
collector killed in the middle of an upload.  Each test starts its own collector on 127.0.0.1 and a
free port (tests/testlib/collector.py); nothing is sent anywhere else."""
import concurrent.futures as cf
import datetime
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

import testlib.collector as cl
from testlib.collector import TOKEN, Collector, upload_text

mk = cl.make_uploads


def listening(port):
    """The local addresses (hex, as /proc/net/tcp and tcp6 show them) listening on port."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            addr, p = local.rsplit(":", 1)
            if state == "0A" and int(p, 16) == port:   # 0A: TCP_LISTEN
                out.append(addr)
    return out


LOOPBACK_HEX = "0100007F"   # 127.0.0.1 as /proc/net/tcp writes it (little-endian)


def test_serve_listens_on_loopback_only(ctx):
    py = cl.server_python()
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "runs.sqlite")
        with Collector(db) as c:
            assert listening(c.port) == [LOOPBACK_HEX], listening(c.port)
        # Without --listen: the default address and port, 127.0.0.1 only (when that port is free here).
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", 8470))
            free = True
        except OSError:
            free = False
        finally:
            s.close()
        if free:
            p = subprocess.Popen([py, cl.PMUCAP, "serve", "--db", db], stderr=subprocess.PIPE, text=True,
                                 stdout=subprocess.DEVNULL)
            try:
                line = p.stderr.readline()
                assert "serving on http://127.0.0.1:8470/" in line, line
                assert listening(8470) == [LOOPBACK_HEX], listening(8470)
            finally:
                p.kill()
                p.wait()
        # Any other address needs a token; with one, uploads without it are refused.
        env = {k: v for k, v in os.environ.items() if k != "PMUCAP_TOKEN"}
        p = subprocess.run([py, cl.PMUCAP, "serve", "--db", db, "--listen", "0.0.0.0:0"], capture_output=True,
                           text=True, timeout=30, env=env)
        assert p.returncode == 1 and "uploads then need a token" in p.stderr, (p.returncode, p.stderr)
        assert len(p.stderr.splitlines()) == 1, p.stderr
        tok = os.path.join(d, "token")
        with open(tok, "w") as f:
            f.write("short\n")
        p = subprocess.run([py, cl.PMUCAP, "serve", "--db", db, "--listen", "0.0.0.0:0", "--token-file", tok],
                           capture_output=True, text=True, timeout=30, env=env)
        assert p.returncode == 1 and "at least 16 characters" in p.stderr, p.stderr
        with open(tok, "w") as f:
            f.write(TOKEN + "\n")
        with Collector(db, "--token-file", tok, listen="0.0.0.0:0", env=env) as c:
            assert c.host == "0.0.0.0" and listening(c.port) == ["00000000"], (c.host, listening(c.port))
            status, body = c.post(upload_text("machine-a.jsonl"))
            assert status == 401, (status, body)
            status, body = c.post(upload_text("machine-a.jsonl"), token=TOKEN)
            assert status == 201, (status, body)
        # The token from the environment works as well as from a file.
        with Collector(db, env=dict(env, PMUCAP_TOKEN=TOKEN)) as c:
            assert c.post(upload_text("machine-b.jsonl"))[0] == 401
            assert c.post(upload_text("machine-b.jsonl"), token=TOKEN)[0] == 201


def test_upload_status_codes(ctx):
    with tempfile.TemporaryDirectory() as d:
        tok = os.path.join(d, "token")
        with open(tok, "w") as f:
            f.write(TOKEN + "\n")
        with Collector(os.path.join(d, "runs.sqlite"), "--token-file", tok, "--max-upload-mib", "1") as c:
            def count():
                return len(c.get("/api/runs?limit=1000")[1]["runs"])

            # A wrong token, or none: 401, nothing stored.
            for token in (None, "wrong-token-0123456789", TOKEN + "x"):
                status, body = c.post(upload_text("machine-a.jsonl"), token=token)
                assert status == 401 and "token" in body["error"], (token, status, body)
            st, body, hdrs = c.request("POST", "/api/runs", upload_text("machine-a.jsonl"),
                                       headers={"Authorization": "Basic " + TOKEN})
            assert st == 401 and hdrs.get("WWW-Authenticate", "").startswith("Bearer"), (st, dict(hdrs))
            assert count() == 0
            # A good run: 201, PASS; the same run again: 200, the same id (also as a serial capture).
            status, a = c.post(upload_text("machine-a.jsonl"), token=TOKEN)
            assert status == 201 and a["verdict"] == "PASS" and a["stored"] == "new", (status, a)
            assert a["machine"] == "QEMU / Standard PC (Q35 + ICH9, 2009) / LAB-0001", a
            status, again = c.post(upload_text("machine-a.jsonl"), token=TOKEN)
            assert status == 200 and again["id"] == a["id"] and again["stored"] == "already", (status, again)
            serial = "".join(f"BdsDxe: noise\r\n\x1b[0m@pmuboot {line}\r\n"
                             for line in upload_text("machine-a.jsonl").splitlines())
            status, again = c.post(serial, token=TOKEN)
            assert status == 200 and again["id"] == a["id"], (status, again)
            assert count() == 1
            # Damaged or forged: 400 with the reason, kept as evidence with that verdict.
            for name, verdict, words in (("truncated.jsonl", "INCOMPLETE", "no end record"),
                                         ("crc-damaged.jsonl", "INVALID", "CRC mismatch"),
                                         ("forged-ok.jsonl", "INVALID", "status 'ok', 0 error(s), but the records hold 2")):
                status, body = c.post(upload_text(name), token=TOKEN)
                assert status == 400 and body["verdict"] == verdict and words in body["error"], (name, status, body)
                assert body["stored"] == "new", body
                status, again = c.post(upload_text(name), token=TOKEN)
                assert status == 400 and again["id"] == body["id"] and again["stored"] == "already", again
            forged = c.get(f"/api/runs/{body['id']}")[1]["run"]
            assert any("audit instructions failed on pmc2" in r for r in forged["reasons"]), forged["reasons"]
            assert any("error record (bench: a variant faulted)" in r for r in forged["reasons"]), forged["reasons"]
            # Runs that fail: stored (201) as FAIL, naming what failed.
            status, body = c.post(upload_text("fail-audit.jsonl"), token=TOKEN)
            assert status == 201 and body["verdict"] == "FAIL", (status, body)
            assert body["reasons"] == ["line 4: audit instructions failed on pmc2 (pmc2 counted 39712 instructions, "
                                       "40000 expected)"], body["reasons"]
            status, body = c.post(upload_text("fail-check.jsonl"), token=TOKEN)
            assert status == 201 and body["verdict"] == "FAIL" and "check store_forward.size_mismatch timing failed" \
                in body["reasons"][0], (status, body)
            n = count()
            assert n == 6, n
            # Not one run: 400, nothing stored.
            for text, words in ((upload_text("two-runs.jsonl"), "2 runs in one upload"), ("", "empty upload"),
                                ("\n\n", "empty upload"), ("hello\n", "no pmuboot run"),
                                (bytes(range(256)).decode("latin-1") * 8, "no pmuboot run")):
                status, body = c.post(text, token=TOKEN)
                assert status == 400 and words in body["error"], (words, status, body)
            assert count() == n
            # Over the size limit: 413 (said by Content-Length, and by a chunked body that has none).
            big = upload_text("machine-a.jsonl") + "\n" * ((1 << 20) + 100)
            status, body = c.post(big, token=TOKEN)
            assert status == 413 and "more than" in body["error"], (status, body)
            status = chunked_post(c, big.encode("latin-1"), TOKEN)
            assert status == 413, status
            # Far over it: refused by the HTTP server before the body is read (Content-Length says so).
            with socket.create_connection(("127.0.0.1", c.port), timeout=30) as s:
                s.sendall(f"POST /api/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                          f"Content-Length: {1 << 30}\r\n\r\n".encode())
                head = s.recv(4096).decode("latin-1")
            assert head.split()[1] == "413", head[:200]
            assert count() == n
            # A different run under the same build, CRC and count: 409.
            text = upload_text("machine-a.jsonl")
            end = json.loads(text.splitlines()[-1])
            odd = "".join(line + "\n" for line in text.splitlines()[:-1]) + json.dumps(dict(end, extra=1)) + "\n"
            status, body = c.post(odd, token=TOKEN)
            assert status == 409 and body["id"] == a["id"], (status, body)
            assert count() == n
            # Reads: no such run 404; bad filters 400.
            assert c.get("/api/runs/999999")[0] == 404
            # A run ID past what the database holds is no run either (not a 500 from the database).
            for path in ("/api/runs/99999999999999999999", "/api/runs/99999999999999999999/capture",
                         "/runs/99999999999999999999", "/compare?a=99999999999999999999&b=1"):
                assert c.get(path)[0] == 404, path
            for q in ("verdict=MAYBE", "since=yesterday", "until=2026-13", "limit=0", "limit=x", "offset=-1",
                      "until=2024-02-30", "since=2023-02-29"):
                status, body = c.get("/api/runs?" + q)
                assert status == 400 and body["error"], (q, status, body)
            assert c.get("/api/compare?a=1")[0] == 400
            assert c.get("/api/compare?a=1&b=99999999999999999999")[0] == 400
            assert c.get("/api/sku")[0] == 400
            # An intact run (its CRC right) whose bench record has a field of the wrong kind: refused as
            # INVALID and kept as evidence, never a 500.
            recs = mk.machine_run("LAB-0042")
            k = next(i for i, r in enumerate(recs) if r["type"] == "bench")
            for cpu in ("x", {"n": "1"}):
                recs[k] = dict(recs[k], cpu=cpu)
                status, body = c.post(mk.frame(recs), token=TOKEN)
                assert status == 400 and body["verdict"] == "INVALID" and "cpu" in " ".join(body["reasons"]), \
                    (status, body)


def chunked_post(c, data, token):
    """POST with Transfer-Encoding: chunked (no Content-Length); returns the status."""
    with socket.create_connection(("127.0.0.1", c.port), timeout=30) as s:
        s.sendall(f"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                  "Content-Type: application/x-ndjson\r\n"
                  "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode())
        try:
            for i in range(0, len(data), 65536):
                part = data[i:i + 65536]
                s.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            s.sendall(b"0\r\n\r\n")
        except OSError:
            pass   # the collector may answer and close before the whole body is sent
        head = s.recv(4096).decode("latin-1")
    return int(head.split()[1])


def upload_fleet(c, token=None):
    ids = {}
    for name in ("machine-a.jsonl", "machine-b.jsonl", "machine-c.jsonl", "other-cpu.jsonl", "fail-audit.jsonl",
                 "truncated.jsonl", "forged-ok.jsonl"):
        status, body = c.post(upload_text(name), token=token)
        assert status in (201, 400), (name, status, body)
        ids[name] = body["id"]
    return ids


def test_read_api_filters_records_compare_sku(ctx):
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite")) as c:
        ids = upload_fleet(c)
        runs = c.get("/api/runs")[1]["runs"]
        assert [r["id"] for r in runs] == sorted(ids.values(), reverse=True), "newest first"

        def listed(q):
            status, body = c.get("/api/runs?" + q)
            assert status == 200, (q, status, body)
            return sorted(r["id"] for r in body["runs"])

        by_machine = listed("machine=LAB-0001")
        assert by_machine == sorted([ids["machine-a.jsonl"], ids["fail-audit.jsonl"], ids["truncated.jsonl"],
                                     ids["forged-ok.jsonl"]]), by_machine
        assert listed("machine=" + "QEMU%20/%20Standard%20PC%20(Q35%20%2B%20ICH9,%202009)%20/%20LAB-0002") == \
            [ids["machine-b.jsonl"]]
        assert listed("cpu=Other%20Vendor%20CPU%209000") == [ids["other-cpu.jsonl"]]
        assert listed("cpu=0x90671") == [ids["other-cpu.jsonl"]]
        assert listed("verdict=invalid") == [ids["forged-ok.jsonl"]]
        assert listed("verdict=INCOMPLETE") == [ids["truncated.jsonl"]]
        assert listed("verdict=FAIL") == [ids["fail-audit.jsonl"]]
        assert len(listed("verdict=PASS")) == 4
        today = datetime.datetime.now(datetime.timezone.utc).date()
        assert len(listed(f"since={today}&until={today}")) == 7
        assert listed(f"since={today + datetime.timedelta(days=1)}") == []
        assert listed(f"until={today - datetime.timedelta(days=1)}") == []
        assert len(listed("limit=2")) == 2 and len(listed("limit=2&offset=6")) == 1
        assert listed("machine=LAB-0001&verdict=PASS") == [ids["machine-a.jsonl"]]
        # A run's records: exactly the upload's, end included; its capture: the upload's bytes.
        status, body = c.get(f"/api/runs/{ids['machine-c.jsonl']}")
        want = [json.loads(line) for line in upload_text("machine-c.jsonl").splitlines()]
        assert status == 200 and body["records"] == want, status
        assert body["run"]["verdict"] == "PASS" and body["run"]["system"]["serial"] == "LAB-0003"
        assert body["run"]["records"] == len(want) and body["run"]["cpu"]["brand"] == mk.CPU_BRAND
        status, raw = c.get(f"/api/runs/{ids['machine-c.jsonl']}/capture")
        assert status == 200 and raw == upload_text("machine-c.jsonl").encode("latin-1")
        # The SKU: machines A, B, C (not the other CPU's, not the runs that are no measurement), C flagged.
        status, sku = c.get("/api/sku?cpu=" + mk.CPU_BRAND.replace(" ", "%20").replace("+", "%2B"))
        assert status == 200, sku
        machines = {m["machine"].rsplit(" / ", 1)[1]: m for m in sku["machines"]}
        assert sorted(machines) == ["LAB-0001", "LAB-0002", "LAB-0003"], machines
        # Machine A's newest intact run is the failing one (an audit failed: still a measurement).
        assert machines["LAB-0001"]["run"] == ids["fail-audit.jsonl"], machines
        odd = {(f["machine"].rsplit(" / ", 1)[1], f["variant"], f["metric"]) for f in sku["flagged"]}
        assert odd == {("LAB-0003", "store_forward.size_mismatch", "penalty"),
                       ("LAB-0003", "store_forward.size_mismatch", "cycles")}, odd
        pen = next(f for f in sku["flagged"] if f["metric"] == "penalty")
        assert abs(pen["median"] - 10.2) < 0.01 and pen["value"] > pen["median"] + 7, pen
        # A wider margin flags nothing; a narrower one more.
        assert c.get("/api/sku?cpu=QEMU%20TCG%20CPU%20version%202.5%2B&margin=100&floor=9")[1]["flagged"] == []
        assert len(c.get("/api/sku?cpu=QEMU%20TCG%20CPU%20version%202.5%2B&margin=0.1&floor=0")[1]["flagged"]) > 2
        # Compare: A against C: C's store-forward block 8 cycles slower, within the emulator's wide
        # spread (A's slowest sample is 51 cycles), so not flagged; against a run 50 cycles slower, flagged.
        status, cmp_ = c.get(f"/api/compare?a={ids['machine-a.jsonl']}&b={ids['machine-c.jsonl']}")
        assert status == 200 and cmp_["differences"] == [], cmp_
        row = next(r for r in cmp_["rows"] if r["variant"] == "store_forward.size_mismatch" and r["metric"] == "cycles")
        assert abs(row["delta"] - (mk.C_STLF_EXTRA - 0.005 * 14.155)) < 0.01 and row["flag"] == "", row
        status, slow = c.post(mk.frame(mk.machine_run("LAB-0009", stlf_extra=50.0)))
        assert status == 201, slow
        status, cmp_ = c.get(f"/api/compare?a={ids['machine-a.jsonl']}&b={slow['id']}&min_change=1&floor=0.01")
        flagged = {(r["variant"], r["metric"], r["flag"]) for r in cmp_["rows"] if r.get("flag")}
        assert flagged == {("store_forward.size_mismatch", "cycles", "higher")} and cmp_["changed"] == 1, flagged
        assert c.get("/api/compare?a=1&b=2&floor=-1")[0] == 400
        status, body = c.get(f"/api/compare?a={ids['machine-a.jsonl']}&b={ids['forged-ok.jsonl']}")
        assert status == 409 and "INVALID" in body["error"], (status, body)
        assert c.get(f"/api/compare?a={ids['machine-a.jsonl']}&b=999999")[0] == 404


def test_twenty_concurrent_uploads_all_stored(ctx):
    with tempfile.TemporaryDirectory() as d, Collector(os.path.join(d, "runs.sqlite"), "--threads", "4") as c:
        texts = [mk.frame(mk.machine_run(f"CONC-{i:02d}", scale=1 + i / 1000)) for i in range(20)]
        start = threading.Barrier(20)

        def up(text):
            start.wait()
            return c.post(text)
        with cf.ThreadPoolExecutor(20) as ex:
            answers = list(ex.map(up, texts))
        assert all(s == 201 for s, _ in answers), [(s, b) for s, b in answers if s != 201][:3]
        ids = [b["id"] for _, b in answers]
        assert len(set(ids)) == 20, ids
        runs = c.get("/api/runs?limit=1000")[1]["runs"]
        assert sorted(r["system"]["serial"] for r in runs) == [f"CONC-{i:02d}" for i in range(20)]
        for (_, b), text in zip(answers, texts):
            recs = c.get(f"/api/runs/{b['id']}")[1]["records"]
            assert recs == [json.loads(line) for line in text.splitlines()], b["id"]
        # The same run by 20 uploads at once: stored once, every answer naming it.
        same = mk.frame(mk.machine_run("CONC-SAME"))
        start = threading.Barrier(20)
        with cf.ThreadPoolExecutor(20) as ex:
            answers = list(ex.map(up, [same] * 20))
        statuses = sorted(s for s, _ in answers)
        assert statuses == [200] * 19 + [201], statuses
        assert len({b["id"] for _, b in answers}) == 1
        assert len(c.get("/api/runs?limit=1000")[1]["runs"]) == 21


def db_consistent(db):
    """Every run row has its upload and, when intact with bench records, its figures; the file is sound."""
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        orphans = con.execute("SELECT COUNT(*) FROM runs r LEFT JOIN run_texts t ON t.run_id = r.id "
                              "WHERE t.run_id IS NULL").fetchone()[0]
        assert orphans == 0, f"{orphans} run(s) without their upload"
        bare = con.execute("SELECT COUNT(*) FROM runs r WHERE r.verdict IN ('PASS', 'FAIL') AND NOT EXISTS "
                           "(SELECT 1 FROM figures f WHERE f.run_id = r.id)").fetchone()[0]
        assert bare == 0, f"{bare} intact run(s) without figures"
        stray = con.execute("SELECT COUNT(*) FROM figures f LEFT JOIN runs r ON r.id = f.run_id "
                            "WHERE r.id IS NULL").fetchone()[0]
        assert stray == 0
        return {row[0]: row[1] for row in con.execute("SELECT id, records FROM runs")}
    finally:
        con.close()


def test_stop_in_the_middle_of_an_upload_loses_no_run(ctx):
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "runs.sqlite")
        big = mk.frame(mk.machine_run("BIG-0001", variants=9000))
        assert 5 << 20 < len(big) < 16 << 20, len(big)
        big_records = len(big.splitlines())
        # How long a whole big upload takes here (on a collector of its own).
        with Collector(os.path.join(d, "measure.sqlite")) as m:
            t0 = time.monotonic()
            status, body = m.post(big)
            whole = time.monotonic() - t0
            assert status == 201, (status, body)
            assert len(m.get(f"/api/runs/{body['id']}")[1]["records"]) == big_records
        c = Collector(db)
        try:
            earlier = upload_fleet(c)
            before = {i: c.get(f"/api/runs/{i}")[1] for i in earlier.values()}
            outcomes = []
            # Killed (SIGKILL: no clean-up at all) at points through the upload: while the body is sent,
            # read, checked, and written; then restarted, it serves every earlier run unchanged, and
            # the big run either whole or not at all.
            for frac in (0.1, 0.5, 0.75, 0.9, 0.97):
                res = {}
                t = threading.Thread(target=lambda: res.update(r=safe_post(c, big)))
                t.start()
                time.sleep(whole * frac)
                c.kill()
                t.join(60)
                rows = db_consistent(db)
                c.start()
                for i, want in before.items():
                    got = c.get(f"/api/runs/{i}")
                    assert got == (200, want), (frac, i, got[0])
                bigs = [r for r in c.get("/api/runs?machine=BIG-0001")[1]["runs"]]
                assert len(bigs) <= 1, bigs
                if bigs:
                    assert rows[bigs[0]["id"]] == big_records
                    recs = c.get(f"/api/runs/{bigs[0]['id']}")[1]["records"]
                    assert len(recs) == big_records and bigs[0]["verdict"] == "PASS"
                    outcomes.append("stored")
                    c.kill()   # start the next attempt without it
                    remove_run(db, bigs[0]["id"])
                    c.start()
                else:
                    outcomes.append("absent")
            assert "absent" in outcomes, outcomes
            # Killed while the run is being written: the database's log has grown by megabytes (the
            # upload's pages) and no answer has come.  Restarted, the run is not there, half or whole
            # only if the commit beat the kill.
            wal = db + "-wal"
            caught = 0
            for _ in range(3):
                base = os.path.getsize(wal) if os.path.exists(wal) else 0
                res = {}
                t = threading.Thread(target=lambda: res.update(r=safe_post(c, big)))
                t.start()
                while t.is_alive() and (os.path.getsize(wal) if os.path.exists(wal) else 0) < base + (2 << 20):
                    time.sleep(0.001)
                alive = t.is_alive()
                c.kill()
                t.join(60)
                caught += alive
                rows = db_consistent(db)
                c.start()
                bigs = c.get("/api/runs?machine=BIG-0001")[1]["runs"]
                assert not bigs or rows[bigs[0]["id"]] == big_records, bigs
                for i, want in before.items():
                    assert c.get(f"/api/runs/{i}") == (200, want), i
                if bigs:
                    c.kill()
                    remove_run(db, bigs[0]["id"])
                    c.start()
            assert caught, "the collector answered before its database log grew: no kill landed mid-write"
            # A stop by SIGTERM finishes what is in flight and says so.
            assert c.stop(signal.SIGTERM) == 0 and "collector stopped" in c.lines[-1], c.lines[-3:]
            c.start()
            assert len(c.get("/api/runs")[1]["runs"]) == len(before)
        finally:
            c.kill()


def remove_run(db, run_id):
    con = sqlite3.connect(db)
    with con:
        for table in ("figures", "run_texts"):
            con.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
        con.execute("DELETE FROM runs WHERE id = ?", (run_id,))
    con.close()


def safe_post(c, text):
    try:
        return c.post(text)
    except OSError as e:   # the collector was killed under it
        return ("connection", str(e))


def test_serve_refuses_what_it_cannot_use(ctx):
    py = cl.server_python()
    with tempfile.TemporaryDirectory() as d:
        def serve(*args, python=py):
            return subprocess.run([python, cl.PMUCAP, "serve", *args], capture_output=True, text=True, timeout=30)
        for args, words in ((["--listen", "8470"], "give ADDR:PORT"), (["--listen", ":8470"], "address is missing"),
                            (["--listen", "127.0.0.1:99999"], "give ADDR:PORT"),
                            (["--max-upload-mib", "0"], "--max-upload-mib 0: at least 1"),
                            (["--threads", "0"], "--threads 0: at least 1"), (["--margin", "nan"], "--margin nan"),
                            (["--db", os.path.join(d, "no", "such", "dir", "runs.sqlite")], "cannot open the database"),
                            (["--token-file", os.path.join(d, "missing")], "cannot read it")):
            p = serve("--db", os.path.join(d, "x.sqlite"), *args) if "--db" not in args else serve(*args)
            assert p.returncode == 1 and words in p.stderr and len(p.stderr.splitlines()) == 1, (args, p.stderr)
        # A database of a newer schema than this pmucap knows is left alone.
        newer = os.path.join(d, "newer.sqlite")
        con = sqlite3.connect(newer)
        con.execute("CREATE TABLE schema_info (version INTEGER NOT NULL)")
        con.execute("INSERT INTO schema_info VALUES (99)")
        con.commit()
        con.close()
        p = serve("--db", newer, "--listen", "127.0.0.1:0")
        assert p.returncode == 1 and "schema version 99, newer than" in p.stderr, p.stderr
        # A Python without Flask (pyenv's, say) is told which one has it.
        if subprocess.run([sys.executable, "-c", "import flask, waitress"], capture_output=True).returncode != 0:
            p = serve("--db", os.path.join(d, "y.sqlite"), python=sys.executable)
            assert p.returncode == 1 and ("/usr/bin/python3 tools/pmucap serve" in p.stderr
                                          or "apt-get install python3-flask" in p.stderr), p.stderr
        # A restart finds its schema and its runs.
        db = os.path.join(d, "runs.sqlite")
        with Collector(db) as c:
            assert "schema 2 (created)" in c.lines[0] and "0 run(s) stored" in c.lines[0], c.lines[0]
            assert c.post(upload_text("machine-a.jsonl"))[0] == 201
        with Collector(db) as c:
            assert "schema 2;" in c.lines[0] and "1 run(s) stored" in c.lines[0], c.lines[0]


def test_deps_installs_the_collector_for_serve(ctx):
    p = subprocess.run([os.path.join(ctx.root, "tools", "deps.sh"), "--list", "--for", "serve"], capture_output=True,
                       text=True, timeout=30)
    pkgs = {line.split()[0] for line in p.stdout.splitlines()}
    assert p.returncode == 0 and {"python3-flask", "python3-waitress", "python3-psycopg2", "python3-matplotlib"} <= pkgs
    assert not pkgs & {"chromium", "chromium-driver", "postgresql", "qemu-system-x86", "gnu-efi"}, pkgs
    p = subprocess.run([os.path.join(ctx.root, "tools", "deps.sh"), "--list", "--for", "test"], capture_output=True,
                       text=True, timeout=30)
    assert {"chromium", "chromium-driver", "postgresql", "python3-flask"} <= {l.split()[0] for l in p.stdout.splitlines()}


def test_sku_flags_only_the_odd_machine_of_three_or_more(ctx):
    from pmucap import fleet

    def run(i, machine):
        return {"id": i, "machine": machine}

    def fig(median, metric="penalty", variant="store_forward.size_mismatch"):
        return {"variant": variant, "metric": metric, "median": median, "unstable": None}
    runs = [run(1, "a"), run(2, "b"), run(3, "c")]
    figs = {1: [fig(10.0), fig(0.1, variant="v2")], 2: [fig(10.4), fig(0.4, variant="v2")],
            3: [fig(18.0), fig(-0.2, variant="v2")]}
    res = fleet.compare(runs, figs, margin_pct=10, floor=0.5)
    assert [(m, row["variant"]) for m, row, _ in res["flagged"]] == [("c", "store_forward.size_mismatch")]
    row = res["rows"][0]
    assert row["median"] == 10.4 and row["cells"]["c"]["delta"] == 7.6 and round(row["cells"]["c"]["pct"]) == 73
    # Figures near zero: 0.3 from a median of 0.1 is 300% of it, but within the floor (unless it is 0).
    assert all(not c["flag"] for c in res["rows"][1]["cells"].values())
    assert fleet.compare(runs, figs, margin_pct=10, floor=0.0)["flagged"][-1][0] in ("a", "b", "c")
    # Two machines: far apart, but which is odd cannot be told.
    assert fleet.compare(runs[:2], {1: [fig(10.0)], 2: [fig(30.0)]})["flagged"] == []
    # The newest run of each machine is the one compared.
    newest = fleet.latest_per_machine([run(9, "a"), run(8, "b"), run(7, "a")])
    assert [r["id"] for r in newest] == [9, 8]
