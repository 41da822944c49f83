"""The collector's database: one schema for SQLite (the default) and PostgreSQL, created and migrated
by the server at start.

- runs: one row per run stored, with its verdict, reasons and the facts the dashboard groups by;
  run_key is UNIQUE, so the same run uploaded twice (or by two uploads racing) is stored once;
- run_texts: the upload as received (a capture pmucap reads), for the run's records and plots;
- figures: the bench figures of intact runs (cycles, penalty, events), for fleet comparisons;
- deleted_runs: the audit log of runs an operator removed (who, when, why, and the run's row and text).

A run without its end (a live upload's state) is one row, which its next upload replaces: runs
with the same live_key whose stored records (texts_digest over `records` of them) begin the new
upload's are the same run, further on.

Every upload is one transaction: a collector stopped in the middle (killed, or the power cut)
leaves no half-stored run.  SQLite runs in WAL mode with synchronous=FULL (a committed run survives
a power cut, readers never wait for the writer), and a write transaction starts with BEGIN
IMMEDIATE so that concurrent uploads queue on the busy timeout instead of failing.  PostgreSQL is
reached through a pool of connections, one per server thread at most.
"""
import contextlib
import datetime
import json
import re
import sqlite3
import threading

SCHEMA_VERSION = 2

# Each migration: the statements that take the schema from the version before to this one.
# {id} is the dialect's auto-numbered key, the only difference between the two databases.
MIGRATIONS = {
    1: [
        """CREATE TABLE runs (
            id {id},
            run_key TEXT NOT NULL UNIQUE,
            digest TEXT NOT NULL,
            received_at TEXT NOT NULL,
            source TEXT,
            verdict TEXT NOT NULL,
            reasons TEXT NOT NULL,
            records INTEGER NOT NULL,
            crc32 TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            program TEXT, version TEXT, build TEXT,
            machine TEXT NOT NULL,
            sys_vendor TEXT, sys_product TEXT, sys_serial TEXT, sys_uuid TEXT,
            bios_vendor TEXT, bios_version TEXT, bios_date TEXT,
            cpu TEXT NOT NULL,
            cpu_vendor TEXT, cpu_brand TEXT, cpu_signature TEXT, microcode TEXT,
            end_status TEXT, end_errors INTEGER)""",
        "CREATE INDEX runs_machine ON runs (machine, received_at)",
        "CREATE INDEX runs_cpu ON runs (cpu, received_at)",
        "CREATE INDEX runs_received ON runs (received_at)",
        """CREATE TABLE run_texts (
            run_id BIGINT PRIMARY KEY REFERENCES runs (id),
            body TEXT NOT NULL)""",
        """CREATE TABLE figures (
            run_id BIGINT NOT NULL REFERENCES runs (id),
            variant TEXT NOT NULL,
            metric TEXT NOT NULL,
            median DOUBLE PRECISION NOT NULL,
            low DOUBLE PRECISION,
            high DOUBLE PRECISION,
            unstable TEXT,
            PRIMARY KEY (run_id, variant, metric))""",
    ],
    # Issue 32: live uploads replace their run's partial row (live_key, texts_digest); the audit log
    # of deleted runs.
    2: [
        "ALTER TABLE runs ADD COLUMN live_key TEXT",
        "ALTER TABLE runs ADD COLUMN texts_digest TEXT",
        "CREATE INDEX runs_live ON runs (live_key)",
        """CREATE TABLE deleted_runs (
            id {id},
            run_id BIGINT NOT NULL,
            deleted_at TEXT NOT NULL,
            deleted_by TEXT,
            reason TEXT,
            run TEXT NOT NULL,
            body TEXT NOT NULL)""",
    ],
}

# The columns of runs an Upload fills (upload.Upload's attributes of the same names).
UPLOAD_COLUMNS = ("run_key", "digest", "verdict", "records", "crc32", "program", "version", "build", "machine",
                  "sys_vendor", "sys_product", "sys_serial", "sys_uuid", "bios_vendor", "bios_version", "bios_date",
                  "cpu", "cpu_vendor", "cpu_brand", "cpu_signature", "microcode", "end_status", "end_errors")
# The columns a listing shows (everything but the body).
LIST_COLUMNS = ("id", "received_at", "source", "reasons", "bytes") + UPLOAD_COLUMNS
# SQLite gained RETURNING in 3.35 (the upsert the store relies on is older: 3.24).
SQLITE_MIN = (3, 35, 0)
# Seconds a writer waits for another (SQLite's busy timeout; PostgreSQL waits on its own).
BUSY_TIMEOUT_S = 60
DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
# SQLite's errors that pass (another writer's lock, a full disk, an I/O error): answered 503.
SQLITE_BUSY_WORDS = ("locked", "disk is full", "disk I/O error", "unable to open")


class StoreError(Exception):
    """The database cannot be opened or migrated: str() says which and why."""


class Busy(Exception):
    """The database did not answer in time (locked, the disk full, or the server unreachable): try
    again later (503 with Retry-After)."""


class Conflict(Exception):
    """Another run with the same build, CRC and count is stored: a CRC collision or a forgery."""

    def __init__(self, run_id):
        super().__init__(run_id)
        self.run_id = run_id


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Store:
    """The operations the server needs, over a DB-API connection per call (_tx)."""
    dialect = {}
    placeholder = "?"

    def _sql(self, sql):
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def _rows(self, cur):
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]

    def _run(self, cur, sql, args=()):
        cur.execute(self._sql(sql), tuple(args))
        return cur

    # --- schema ---

    def migrate(self):
        """Create or bring the schema up to SCHEMA_VERSION; returns the version found before."""
        with self._tx(write=True) as cur:
            self._run(cur, "CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL)")
            row = self._run(cur, "SELECT version FROM schema_info").fetchone()
            have = row[0] if row else 0
            if have > SCHEMA_VERSION:
                raise StoreError(f"{self.name}: the database has schema version {have}, newer than this pmucap's "
                                 f"{SCHEMA_VERSION}: run a newer pmucap serve")
            for v in range(have + 1, SCHEMA_VERSION + 1):
                for stmt in MIGRATIONS[v]:
                    self._run(cur, stmt.format(**self.dialect))
            if row is None:
                self._run(cur, "INSERT INTO schema_info (version) VALUES (?)", (SCHEMA_VERSION,))
            elif have != SCHEMA_VERSION:
                self._run(cur, "UPDATE schema_info SET version = ?", (SCHEMA_VERSION,))
        return have

    # --- writing ---

    def add(self, up, source):
        """Store an upload.Upload in one transaction.  Returns (id, how): how is "new" for a run not
        stored before, "updated" when it replaced the stored partial state of the same run (a live
        upload's, or a run cut short), "already" when the same run is already there; raises Conflict
        when a different one has its key."""
        cols = ("received_at", "source", "reasons", "bytes", "live_key", "texts_digest") + UPLOAD_COLUMNS
        vals = [utc_now(), source, json.dumps(up.reasons), up.received_bytes, up.live_key,
                up.texts_digest] + [getattr(up, c) for c in UPLOAD_COLUMNS]
        find = "SELECT id, digest FROM runs WHERE run_key = ?"
        with self._tx(write=True) as cur:
            # Looked up first (no number is spent on a run already there), and inserted only if absent:
            # an upload racing this one with the same run (PostgreSQL) is stopped by the UNIQUE key.
            old = self._run(cur, find, (up.run_key,)).fetchone()
            if old is not None:
                if old[1] != up.digest:
                    raise Conflict(old[0])
                return old[0], "already"
            partial = self._partial_of(cur, up)
            if partial is not None:
                self._run(cur, f"UPDATE runs SET {', '.join(c + ' = ?' for c in cols)} WHERE id = ?", vals + [partial])
                self._run(cur, "UPDATE run_texts SET body = ? WHERE run_id = ?", (up.body, partial))
                self._run(cur, "DELETE FROM figures WHERE run_id = ?", (partial,))
                run_id, how = partial, "updated"
            else:
                row = self._run(cur, f"INSERT INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                                     "ON CONFLICT (run_key) DO NOTHING RETURNING id", vals).fetchone()
                if row is None:
                    old = self._run(cur, find, (up.run_key,)).fetchone()
                    if old[1] != up.digest:
                        raise Conflict(old[0])
                    return old[0], "already"
                run_id, how = row[0], "new"
                self._run(cur, "INSERT INTO run_texts (run_id, body) VALUES (?, ?)", (run_id, up.body))
            if up.figures:
                cur.executemany(self._sql("INSERT INTO figures (run_id, variant, metric, median, low, high, unstable) "
                                          "VALUES (?, ?, ?, ?, ?, ?, ?)"), [(run_id, *f) for f in up.figures])
            return run_id, how

    def _partial_of(self, cur, up):
        """The id of the stored partial state (no end record) of up's run, or None: a row with its
        live key whose records are the first of up's (fewer of them, or as many and other stray lines)."""
        rows = self._run(cur, "SELECT id, records, texts_digest FROM runs WHERE live_key = ? AND end_status IS NULL "
                              "AND verdict = ? ORDER BY id DESC", (up.live_key, "INCOMPLETE")).fetchall()
        for run_id, count, digest in rows:
            if count <= up.run.count and digest is not None and up.prefix_digest(count) == digest:
                return run_id
        return None

    def delete(self, run_id, by, reason):
        """Remove a run (its row, text and figures) in one transaction, keeping its row and text in
        deleted_runs.  Returns the row as it was (list columns), or None when there is no such run."""
        with self._tx(write=True) as cur:
            rows = self._rows(self._run(cur, f"SELECT {', '.join('r.' + c for c in LIST_COLUMNS)}, t.body FROM runs r "
                                             "JOIN run_texts t ON t.run_id = r.id WHERE r.id = ?", (run_id,)))
            if not rows:
                return None
            row = rows[0]
            body = row.pop("body")
            self._run(cur, "INSERT INTO deleted_runs (run_id, deleted_at, deleted_by, reason, run, body) "
                           "VALUES (?, ?, ?, ?, ?, ?)", (run_id, utc_now(), by, reason, json.dumps(row), body))
            for table, col in (("figures", "run_id"), ("run_texts", "run_id"), ("runs", "id")):
                self._run(cur, f"DELETE FROM {table} WHERE {col} = ?", (run_id,))
        return _decoded(row)

    def deleted(self, limit=100):
        """The audit log of deleted runs, newest first (without their texts)."""
        with self._tx() as cur:
            return self._rows(self._run(cur, "SELECT id, run_id, deleted_at, deleted_by, reason, run FROM deleted_runs "
                                             "ORDER BY id DESC LIMIT ?", (limit,)))

    # --- reading ---

    def runs(self, machine=None, cpu=None, since=None, until=None, verdict=None, limit=100, offset=0):
        """Runs stored, newest first, filtered (each filter None: any).  since/until: YYYY-MM-DD
        (the day the run was received, UTC, both included)."""
        where, args = [], []
        if machine is not None:
            where.append("(machine = ? OR sys_serial = ? OR sys_product = ?)")
            args += [machine] * 3
        if cpu is not None:
            where.append("(cpu = ? OR cpu_signature = ? OR cpu_brand = ?)")
            args += [cpu] * 3
        if since is not None:
            where.append("received_at >= ?")
            args.append(since)
        if until is not None:
            # Every time of that day sorts before the day followed by "U" (after the "T" of the time):
            # no date arithmetic, so 9999-12-31 is a day like any other.
            where.append("received_at < ?")
            args.append(until + "U")
        if verdict is not None:
            where.append("verdict = ?")
            args.append(verdict)
        sql = (f"SELECT {', '.join(LIST_COLUMNS)} FROM runs" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?")
        with self._tx() as cur:
            return [_decoded(r) for r in self._rows(self._run(cur, sql, args + [limit, offset]))]

    def run(self, run_id, text="body"):
        """A run with its body (the upload as received; text=None: without it), or None."""
        extra = f", t.{text}" if text else ""
        with self._tx() as cur:
            rows = self._rows(self._run(cur, f"SELECT {', '.join('r.' + c for c in LIST_COLUMNS)}, r.digest{extra} "
                                             "FROM runs r JOIN run_texts t ON t.run_id = r.id WHERE r.id = ?", (run_id,)))
        return _decoded(rows[0]) if rows else None

    def body(self, run_id):
        """A run's body (the upload as received), or None."""
        with self._tx() as cur:
            row = self._run(cur, "SELECT body FROM run_texts WHERE run_id = ?", (run_id,)).fetchone()
        return row[0] if row else None

    def figures(self, run_ids):
        """{run id: [figure row]} for the given runs."""
        out = {i: [] for i in run_ids}
        if not run_ids:
            return out
        with self._tx() as cur:
            rows = self._rows(self._run(cur, "SELECT run_id, variant, metric, median, low, high, unstable FROM figures "
                                             f"WHERE run_id IN ({', '.join('?' for _ in run_ids)}) "
                                             "ORDER BY run_id, variant, metric", list(run_ids)))
        for r in rows:
            out[r["run_id"]].append(r)
        return out

    def skus(self):
        """[(cpu, machines, runs)] for every CPU model a run was stored for."""
        with self._tx() as cur:
            return [tuple(r) for r in self._run(cur, "SELECT cpu, COUNT(DISTINCT machine), COUNT(*) FROM runs "
                                                     "GROUP BY cpu ORDER BY cpu").fetchall()]

    def intact_runs_of(self, cpu, bios=None, microcode=None):
        """The intact runs (PASS, FAIL) of one CPU model, newest first."""
        where, args = ["cpu = ?", "verdict IN ('PASS', 'FAIL')"], [cpu]
        if bios is not None:
            where.append("bios_version = ?")
            args.append(bios)
        if microcode is not None:
            where.append("microcode = ?")
            args.append(microcode)
        with self._tx() as cur:
            return [_decoded(r) for r in self._rows(self._run(
                cur, f"SELECT {', '.join(LIST_COLUMNS)} FROM runs WHERE {' AND '.join(where)} "
                     "ORDER BY received_at DESC, id DESC", args))]

    def count(self):
        with self._tx() as cur:
            return self._run(cur, "SELECT COUNT(*) FROM runs").fetchone()[0]


# What a reason stored before issue 32 may hold that no page can encode (a lone surrogate), or show (NUL).
NOT_TEXT_RE = re.compile("[\x00\ud800-\udfff]")


def _decoded(row):
    row["reasons"] = [NOT_TEXT_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", r) if isinstance(r, str) else str(r)
                      for r in json.loads(row["reasons"])]
    return row


class SqliteStore(Store):
    dialect = {"id": "INTEGER PRIMARY KEY AUTOINCREMENT"}

    def __init__(self, path):
        if sqlite3.sqlite_version_info < SQLITE_MIN:
            raise StoreError(f"SQLite {sqlite3.sqlite_version} is too old for the collector (it needs "
                             f"{'.'.join(map(str, SQLITE_MIN))} or later)")
        self.path = self.name = path
        self._local = threading.local()
        self._all = []
        self._lock = threading.Lock()
        try:
            c = self._connection()
            mode = c.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.Error as e:
            raise StoreError(f"{path}: cannot open the database: {e}") from None
        if mode.lower() != "wal":
            raise StoreError(f"{path}: cannot switch the database to WAL mode (it is in {mode} mode)")

    def _connection(self):
        c = getattr(self._local, "conn", None)
        if c is None:
            # Autocommit: transactions are begun and ended here, explicitly (_tx).
            c = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            c.execute("PRAGMA synchronous=FULL")
            c.execute("PRAGMA foreign_keys=ON")
            self._local.conn = c
            with self._lock:
                self._all.append(c)
        return c

    @contextlib.contextmanager
    def _tx(self, write=False):
        c = self._connection()
        cur = c.cursor()
        try:
            # IMMEDIATE takes the write lock up front: a writer waits its turn (busy timeout)
            # rather than failing when it tries to write after reading.
            cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as e:
            raise Busy(f"the database is busy: {e}") from None
        try:
            yield cur
            cur.execute("COMMIT")
        except BaseException as e:
            if c.in_transaction:
                try:
                    cur.execute("ROLLBACK")
                except sqlite3.Error:
                    pass   # a full disk can fail the rollback too; the transaction is gone either way
            if isinstance(e, sqlite3.OperationalError) and any(w in str(e) for w in SQLITE_BUSY_WORDS):
                raise Busy(f"the database cannot take it now: {e}") from None
            raise
        finally:
            cur.close()

    def close(self):
        with self._lock:
            for c in self._all:
                c.close()
            self._all.clear()


class PostgresStore(Store):
    dialect = {"id": "BIGSERIAL PRIMARY KEY"}
    placeholder = "%s"

    def __init__(self, url, max_connections):
        try:
            import psycopg2
            import psycopg2.pool
        except ImportError:
            raise StoreError("--db postgresql://... needs psycopg2: apt-get install python3-psycopg2 "
                             "(tools/deps.sh --for serve), and run pmucap with /usr/bin/python3") from None
        self._pg = psycopg2
        self.name = _without_password(url)
        try:
            self._pool = psycopg2.pool.ThreadedConnectionPool(1, max_connections, dsn=url)
        except psycopg2.Error as e:
            raise StoreError(f"{self.name}: cannot connect: {' '.join(str(e).split())}") from None
        # getconn() raises rather than waits when every connection is out: callers queue here.
        self._slots = threading.BoundedSemaphore(max_connections)

    @contextlib.contextmanager
    def _tx(self, write=False):
        pg = self._pg
        if not self._slots.acquire(timeout=BUSY_TIMEOUT_S):
            raise Busy("every database connection is in use")
        conn, broken = None, False
        try:
            try:
                conn = self._pool.getconn()
            except pg.Error as e:
                raise Busy(f"cannot reach the database: {' '.join(str(e).split())}") from None
            try:
                with conn:   # commits, or rolls back on an exception
                    with conn.cursor() as cur:
                        yield cur
            except pg.OperationalError as e:
                broken = True
                raise Busy(f"the database failed: {' '.join(str(e).split())}") from None
        finally:
            if conn is not None:
                self._pool.putconn(conn, close=broken or bool(conn.closed))
            self._slots.release()

    def close(self):
        self._pool.closeall()


def _without_password(url):
    return re.sub(r"(//[^:/@]+):[^@/]*@", r"\1:***@", url)


def open_store(db, threads):
    """The Store for --db: a postgresql:// URL, else a SQLite file."""
    if db.startswith(("postgresql://", "postgres://")):
        return PostgresStore(db, threads + 2)
    return SqliteStore(db)
