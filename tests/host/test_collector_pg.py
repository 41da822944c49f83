"""The collector on PostgreSQL (--db postgresql://...): the same schema, verdicts, idempotency, 20
uploads at once (distinct runs, and one run by 20 racing uploads), filters, the SKU flag, a restart
and a kill in the middle of an upload.  The test starts its own PostgreSQL in a temporary directory
(Debian's postgresql: initdb and pg_ctl, on 127.0.0.1 and a free port) and removes it after."""
import concurrent.futures as cf
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import testlib.collector as cl
from testlib.collector import Collector, upload_text
from testlib import Skip

mk = cl.make_uploads
PG_USER = "pmu"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throwaway PostgreSQL server: initdb in a temporary directory, pg_ctl start/stop.  As root it
    runs as the postgres user (initdb refuses root)."""

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not bins:
            raise Skip("PostgreSQL is not installed (tools/deps.sh --for test installs postgresql)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix="pmucap-pg-")
        self.as_user = []
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise Skip("running as root and there is no postgres user to run PostgreSQL as") from None
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.port = free_port()
        self.data = os.path.join(self.dir, "data")
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", PG_USER, "--no-sync", timeout=120)
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w", "-o",
                  f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off", "start", timeout=60)
        self.url = f"postgresql://{PG_USER}@127.0.0.1:{self.port}/postgres"

    def _run(self, tool, *args, timeout):
        p = subprocess.run(self.as_user + [os.path.join(self.bin, tool), *args], capture_output=True, text=True,
                           timeout=timeout)
        assert p.returncode == 0, f"{tool} failed: {p.stdout[-800:]}{p.stderr[-800:]}"

    def close(self):
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop", timeout=60)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def test_collector_on_postgresql(ctx):
    py = cl.server_python(("psycopg2",))
    pg = Postgres()
    c = None
    try:
        c = Collector(pg.url, python=py)
        assert "postgresql://pmu@127.0.0.1" in c.lines[0] and "schema 2 (created)" in c.lines[0], c.lines[0]
        ids = {}
        for name, want in (("machine-a.jsonl", 201), ("machine-b.jsonl", 201), ("machine-c.jsonl", 201),
                           ("other-cpu.jsonl", 201), ("fail-audit.jsonl", 201), ("truncated.jsonl", 400),
                           ("crc-damaged.jsonl", 400), ("forged-ok.jsonl", 400), ("two-runs.jsonl", 400)):
            status, body = c.post(upload_text(name))
            assert status == want, (name, status, body)
            ids[name] = body.get("id")
        status, again = c.post(upload_text("machine-a.jsonl"))
        assert status == 200 and again["id"] == ids["machine-a.jsonl"] and again["stored"] == "already", again
        verdicts = {r["id"]: r["verdict"] for r in c.get("/api/runs?limit=1000")[1]["runs"]}
        assert verdicts == {ids["machine-a.jsonl"]: "PASS", ids["machine-b.jsonl"]: "PASS",
                            ids["machine-c.jsonl"]: "PASS", ids["other-cpu.jsonl"]: "PASS",
                            ids["fail-audit.jsonl"]: "FAIL", ids["truncated.jsonl"]: "INCOMPLETE",
                            ids["crc-damaged.jsonl"]: "INVALID", ids["forged-ok.jsonl"]: "INVALID"}, verdicts
        assert sorted(r["id"] for r in c.get("/api/runs?machine=LAB-0002")[1]["runs"]) == \
            sorted([ids["machine-b.jsonl"], ids["crc-damaged.jsonl"]])
        sku = c.get("/api/sku?cpu=QEMU%20TCG%20CPU%20version%202.5%2B")[1]
        assert {(f["machine"].rsplit(" / ", 1)[1], f["metric"]) for f in sku["flagged"]} == \
            {("LAB-0003", "penalty"), ("LAB-0003", "cycles")}, sku["flagged"]
        # A serial capture with NUL bytes in its noise (a PostgreSQL text holds none): a new run's stored.
        serial = "".join(f"\x00BdsDxe\x00\r\n@pmuboot {line}\r\n"
                         for line in mk.frame(mk.machine_run("PG-NUL")).splitlines())
        status, nul = c.post(serial)
        assert status == 201 and nul["verdict"] == "PASS", (status, nul)
        raw = c.get(f"/api/runs/{nul['id']}/capture")[1]
        assert raw == serial.replace("\x00", "").encode("latin-1"), raw[:200]
        assert c.post(serial)[1]["stored"] == "already"
        # 20 distinct runs at once, then one run by 20 uploads racing each other.
        texts = [mk.frame(mk.machine_run(f"PG-{i:02d}", scale=1 + i / 1000)) for i in range(20)]
        with cf.ThreadPoolExecutor(20) as ex:
            answers = list(ex.map(c.post, texts))
        assert [s for s, _ in answers] == [201] * 20 and len({b["id"] for _, b in answers}) == 20, answers[:2]
        same = mk.frame(mk.machine_run("PG-SAME"))
        with cf.ThreadPoolExecutor(20) as ex:
            answers = list(ex.map(c.post, [same] * 20))
        assert sorted(s for s, _ in answers) == [200] * 19 + [201] and len({b["id"] for _, b in answers}) == 1
        total = len(c.get("/api/runs?limit=1000")[1]["runs"])
        assert total == 9 + 21, total
        before = {r["id"]: c.get(f"/api/runs/{r['id']}")[1] for r in c.get("/api/runs?limit=1000")[1]["runs"]}
        # Killed during a large upload; restarted, every run is served and the large one is whole or absent.
        big = mk.frame(mk.machine_run("PG-BIG", variants=6000))
        res = {}
        t = threading.Thread(target=lambda: res.update(r=_safe_post(c, big)))
        t.start()
        time.sleep(0.3)
        c.kill()
        t.join(60)
        c.start()
        assert "schema 2;" in c.lines[0] and "created" not in c.lines[0], c.lines[0]
        for i, want in before.items():
            assert c.get(f"/api/runs/{i}") == (200, want), i
        bigs = c.get("/api/runs?machine=PG-BIG")[1]["runs"]
        assert len(bigs) <= 1 and (not bigs or len(c.get(f"/api/runs/{bigs[0]['id']}")[1]["records"]) ==
                                   len(big.splitlines())), bigs
        assert len(c.get("/api/runs?limit=1000")[1]["runs"]) == total + len(bigs)
        # Issue 32, as on SQLite: strings that are not text are refused by the reader (never a 500 from
        # the database), the trailer is the run's, live uploads are one row, far dates and pages answer.
        base = mk.machine_run("PG-TEXT")
        for recs, words in ((cl.with_cpu(base, brand="CPU \udc00"), "field 'brand' holds U+DC00"),
                            (cl.with_cpu(base, brand="CPU \x00"), "field 'brand' holds U+0000")):
            status, body = c.post(mk.frame(recs))
            assert status == 400 and body["verdict"] == "INVALID" and words in " ".join(body["reasons"]), body
            assert c.get(f"/runs/{body['id']}")[0] == 200
        status, body = c.post(mk.frame(mk.machine_run("PG-TRAIL")) + cl.TRAILER)
        assert status == 201 and body["verdict"] == "PASS", (status, body)
        bodies, final = cl.live_stages("PG-LIVE")
        for b in bodies:
            assert c.request("POST", "/api/runs", b, headers={"X-Pmuboot-Upload": "live"})[0] == 202
        status, body = c.post(final)
        assert status == 201 and [r["id"] for r in c.get("/api/runs?machine=PG-LIVE")[1]["runs"]] == [body["id"]]
        assert c.get("/api/runs?until=9999-12-31")[0] == 200 and c.get("/")[0] == 200
    finally:
        if c is not None:
            c.kill()
        pg.close()


def _safe_post(c, text):
    try:
        return c.post(text)
    except OSError as e:
        return ("connection", str(e))
