"""The collector's JSON API.

    POST /api/runs                 upload one run (its saved results file); Authorization: Bearer TOKEN;
                                   Content-Type application/x-ndjson (or application/json, jsonl)
    DELETE /api/runs/ID            remove a run (kept in the audit log): Authorization: Bearer ADMIN-TOKEN;
                                   ?reason=WHY
    GET  /api/deleted              the audit log of removed runs (admin token)
    GET  /api/runs                 runs stored, newest first: ?machine=&cpu=&since=&until=&verdict=&limit=&offset=
    GET  /api/runs/ID              one run: what is known of it, its verdict and its records
    GET  /api/runs/ID/capture      the upload as received (a capture every pmucap command reads)
    GET  /api/compare?a=ID&b=ID    two runs side by side (pmucap compare): &min_change=PCT&floor=X (and "instr",
                                   the instruction forms that differ beyond noise, when the runs have instr records)
    GET  /api/sku?cpu=MODEL        every machine of one CPU model against the fleet median: &bios=&microcode=&margin=&floor=
                                   (and, when their runs have instr records, the instruction forms whose figures
                                   differ between the machines beyond their noise: "instr")

Answers are JSON; an error is {"error": "why"}.  Status codes: 201 a run stored (or its stored
partial state completed), 200 the same run was already stored (an upload is idempotent), 202 a live
upload (X-Pmuboot-Upload: live) of a run not yet finished, kept as its latest partial state (one row
per run, replaced by its next upload), 400 the upload is no intact run (the reason; a run that is
INCOMPLETE or INVALID is kept as evidence with that verdict, never with figures), 401 no token or the
wrong one, 403 a request that does not name the collector, 404 no such run, 405 (Allow), 409 a
different run with the same build, CRC and count, 413 over the size limit or upload.MAX_RUN_RECORDS,
415 not an ndjson or JSON body, 503 the database is busy, full or unreachable (Retry-After).
"""
import datetime
import json
import logging
import math

from flask import Response, jsonify, request

from . import cmd_compare, fleet, instr, upload, web
from .store import DATE_RE, Conflict
from .verdict import INTACT, VERDICTS

MAX_LIST = 1000
# The body types an upload may have: the image sends application/x-ndjson.  A browser's page can
# send text/plain or a form to any address without asking first; these it cannot (CORS preflight).
UPLOAD_TYPES = ("application/x-ndjson", "application/ndjson", "application/jsonl", "application/json",
                "application/jsonlines", "application/x-jsonlines")
# The header the image's uploads carry (boot/upload.c): "live" after a stage, "final" after `end`.
KIND_HEADER = "X-Pmuboot-Upload"
log = logging.getLogger("pmucap.serve")


class BadQuery(Exception):
    """A query parameter that cannot be used: answered 400 with str()."""


# The largest run ID a route takes: a signed 64-bit integer, what SQLite and PostgreSQL's bigint hold (a
# larger one is no run, and the databases would refuse it with an error of their own).
RUN_ID_MAX = (1 << 63) - 1


def _arg_int(name, default, lo, hi):
    v = request.args.get(name)
    if v is None:
        return default
    try:
        n = int(v)
    except ValueError:
        raise BadQuery(f"{name}={v[:40]!r} is not an integer") from None
    if not lo <= n <= hi:
        raise BadQuery(f"{name}={n} is out of range ({lo}..{hi})")
    return n


def _arg_float(name, default):
    v = request.args.get(name)
    if v is None:
        return default
    try:
        x = float(v)
    except ValueError:
        raise BadQuery(f"{name}={v[:40]!r} is not a number") from None
    if not math.isfinite(x) or x < 0:
        raise BadQuery(f"{name}={v[:40]!r}: a finite number, 0 or more, is needed")
    return x


def arg_run_id(name):
    """A run ID from the query (None when absent); BadQuery for anything but 1..RUN_ID_MAX."""
    return _arg_int(name, None, 1, RUN_ID_MAX)


def _arg_date(name):
    v = request.args.get(name)
    if v is None:
        return v
    try:
        if not DATE_RE.fullmatch(v):
            raise ValueError
        datetime.date.fromisoformat(v)   # 2024-02-30 has the shape but is no day
    except ValueError:
        raise BadQuery(f"{name}={v[:40]!r} is not a date (YYYY-MM-DD)") from None
    return v


def run_summary(row):
    """A stored run as the API shows it (without its records)."""
    return {
        "id": row["id"], "received_at": row["received_at"], "verdict": row["verdict"], "reasons": row["reasons"],
        "machine": row["machine"],
        "system": {"vendor": row["sys_vendor"], "product": row["sys_product"], "serial": row["sys_serial"],
                   "uuid": row["sys_uuid"]},
        "bios": {"vendor": row["bios_vendor"], "version": row["bios_version"], "date": row["bios_date"]},
        "cpu": {"model": row["cpu"], "vendor": row["cpu_vendor"], "brand": row["cpu_brand"],
                "signature": row["cpu_signature"], "microcode": row["microcode"]},
        "program": row["program"], "version": row["version"], "build": row["build"],
        "records": row["records"], "crc32": row["crc32"], "bytes": row["bytes"],
        "end": {"status": row["end_status"], "errors": row["end_errors"]}, "source": row["source"],
    }


def register(app, settings):
    st = settings.store

    @app.errorhandler(BadQuery)
    def bad_query(e):
        return jsonify(error=str(e)), 400

    @app.post("/api/runs")
    def post_run():
        if not web.token_ok(settings, request.headers.get("Authorization")):
            return web.json_error("a valid bearer token is needed to upload (Authorization: Bearer TOKEN)", 401,
                                  {"WWW-Authenticate": 'Bearer realm="pmucap"'})
        ctype = (request.mimetype or "").lower()
        if ctype not in UPLOAD_TYPES:
            return web.json_error(f"an upload is sent as application/x-ndjson (the run's JSON lines), not "
                                  f"{(request.content_type or 'no Content-Type')[:60]!r}", 415)
        if request.content_length is not None and request.content_length > settings.max_upload_bytes:
            return web.json_error(f"the upload is {request.content_length} bytes, more than the "
                                  f"{settings.max_upload_bytes} the collector takes", 413)
        body = request.get_data(cache=False)
        if len(body) > settings.max_upload_bytes:   # a chunked body has no Content-Length to check first
            return web.json_error(f"the upload is more than the {settings.max_upload_bytes} bytes the collector "
                                  "takes", 413)
        live = request.headers.get(KIND_HEADER, "").strip().lower() == "live"
        text = body.decode("latin-1")
        del body   # the text is all that is needed: a large upload is not held twice
        try:
            up = upload.check(text, live=live)
        except upload.Refused as e:
            return web.json_error(str(e), e.status)
        del text
        try:
            run_id, how = st.add(up, request.remote_addr)
        except Conflict as e:
            return jsonify(error=f"run {e.run_id} has the same build, CRC and count but other records: "
                                 "a CRC collision or a forged upload; not stored", id=e.run_id), 409
        stored = {"new": "stored", "updated": "stored over its partial state", "already": "already stored"}[how]
        log.info("run %s %s from %s%s: %s, %s, %s", run_id, stored, request.remote_addr, " (live)" if live else "",
                 up.verdict, up.machine, up.cpu)
        answer = {"id": run_id, "verdict": up.verdict, "reasons": up.reasons, "stored": how,
                  "machine": up.machine, "cpu": up.cpu}
        if live and up.partial_only:
            # The image goes on sending its stages while it is answered 2xx (boot/upload.c).
            answer["live"] = True
            return jsonify(answer), 202
        if not up.stored_ok:
            answer["error"] = f"the run is {up.verdict}: " + "; ".join(up.reasons[:3]) + \
                              " (kept as evidence, without figures)"
            return jsonify(answer), 400
        return jsonify(answer), 200 if how == "already" else 201

    def delete_run(run_id):
        if settings.admin_token is None:
            return web.json_error("deleting runs needs an admin token (pmucap serve --admin-token-file FILE)", 403)
        if not web.admin_ok(settings, request.headers.get("Authorization")):
            return web.json_error("deleting a run needs the admin token (Authorization: Bearer TOKEN)", 401,
                                  {"WWW-Authenticate": 'Bearer realm="pmucap admin"'})
        reason = request.args.get("reason") or None
        row = st.delete(run_id, request.remote_addr, reason[:500] if reason else None)
        if row is None:
            return web.json_error(f"no run {run_id}", 404)
        log.info("run %s deleted by %s (%s): %s, %s, %s; its text is kept in deleted_runs", run_id,
                 request.remote_addr, reason or "no reason given", row["verdict"], row["machine"], row["cpu"])
        return jsonify(deleted=run_id, run=run_summary(row), reason=reason)

    @app.get("/api/deleted")
    def deleted_runs():
        if not web.admin_ok(settings, request.headers.get("Authorization")):
            return web.json_error("the audit log needs the admin token (Authorization: Bearer TOKEN)", 401,
                                  {"WWW-Authenticate": 'Bearer realm="pmucap admin"'})
        rows = st.deleted(_arg_int("limit", 100, 1, MAX_LIST))
        return jsonify(deleted=[dict(r, run=json.loads(r["run"])) for r in rows])

    @app.get("/api/runs")
    def list_runs():
        verdict = request.args.get("verdict")
        if verdict is not None and verdict.upper() not in VERDICTS:
            raise BadQuery(f"verdict={verdict[:40]!r}: one of {', '.join(VERDICTS)}")
        rows = st.runs(machine=request.args.get("machine"), cpu=request.args.get("cpu"),
                       since=_arg_date("since"), until=_arg_date("until"),
                       verdict=verdict.upper() if verdict else None,
                       limit=_arg_int("limit", 100, 1, MAX_LIST), offset=_arg_int("offset", 0, 0, 1 << 40))
        return jsonify(runs=[run_summary(r) for r in rows])

    # One rule for both methods: werkzeug answers 405 rather than 404 for an ID past RUN_ID_MAX when
    # the same path has two rules.
    @app.route(f"/api/runs/<int(max={RUN_ID_MAX}):run_id>", methods=["GET", "DELETE"])
    def get_run(run_id):
        if request.method == "DELETE":
            return delete_run(run_id)
        row = st.run(run_id, text=None)
        if row is None:
            return web.json_error(f"no run {run_id}", 404)
        head = '{"run":' + json.dumps(run_summary(row), allow_nan=False) + ',"records":'
        body = settings.bodies.get((run_id, row["digest"]), lambda: st.body(run_id), row["bytes"])
        if body is None:
            return web.json_error(f"no run {run_id}", 404)
        intact = row["verdict"] in INTACT

        def send():
            # The records as they were uploaded (strict JSON, read at upload), streamed from the body.
            yield head
            yield from upload.records_json(body, intact)
            yield "}\n"
        return Response(send(), mimetype="application/json")

    @app.get(f"/api/runs/<int(max={RUN_ID_MAX}):run_id>/capture")
    def get_capture(run_id):
        row = st.run(run_id)
        if row is None:
            return web.json_error(f"no run {run_id}", 404)
        return Response(row["body"].encode("latin-1", "replace"), mimetype="text/plain",
                        headers={"Content-Disposition": f'attachment; filename="pmuboot-run-{run_id}.jsonl"'})

    @app.get("/api/compare")
    def compare():
        a, b = arg_run_id("a"), arg_run_id("b")
        if a is None or b is None:
            raise BadQuery("compare needs two runs: ?a=ID&b=ID")
        out = compare_runs(st, a, b, _arg_float("min_change", cmd_compare.DEFAULT_MIN_CHANGE_PCT),
                           _arg_float("floor", cmd_compare.DEFAULT_FLOOR), settings)
        if isinstance(out, tuple):
            return jsonify(error=out[1]), out[0]
        return jsonify(out)

    @app.get("/api/sku")
    def sku():
        cpu = request.args.get("cpu")
        if not cpu:
            raise BadQuery("the SKU comparison needs a CPU model: ?cpu=MODEL (GET /api/runs shows each run's)")
        res = sku_comparison(st, cpu, request.args.get("bios"), request.args.get("microcode"),
                             _arg_float("margin", settings.margin_pct), _arg_float("floor", settings.floor),
                             settings)
        return jsonify(cpu=cpu, margin_pct=res["margin_pct"], floor=res["floor"],
                       min_machines=fleet.MIN_MACHINES,
                       machines=[{"machine": r["machine"], "run": r["id"], "verdict": r["verdict"],
                                  "bios": r["bios_version"], "microcode": r["microcode"]} for r in res["machines"]],
                       rows=res["rows"],
                       flagged=[{"machine": m, "variant": row["variant"], "metric": row["metric"],
                                 "value": c["value"], "median": row["median"], "delta": c["delta"], "pct": c["pct"]}
                                for m, row, c in res["flagged"]],
                       **({"instr": instr_json(res["instr"])} if res.get("instr") else {}))


def compare_runs(st, a, b, min_change, floor, settings=None):
    """The comparison of two stored runs, or (status, why) when it cannot be made."""
    rows = {}
    for which, run_id in (("a", a), ("b", b)):
        row = st.run(run_id)
        if row is None:
            return 404, f"no run {run_id}"
        if row["verdict"] not in INTACT:
            return 409, f"run {run_id} is {row['verdict']}: its figures are not measurements to compare"
        rows[which] = row
    ra, _ = web.load_run(rows["a"], settings)
    rb, _ = web.load_run(rows["b"], settings)
    cmp_rows, notes = cmd_compare.compare_runs(ra, rb, min_change, floor)
    out = {"a": run_summary(rows["a"]), "b": run_summary(rows["b"]), "differences": notes, "rows": cmp_rows,
           "changed": sum(1 for r in cmp_rows if r.get("flag"))}
    ires = cmd_compare.compare_instr(ra, rb)
    if ires is not None:
        out["instr"] = cmd_compare.instr_json(ires)   # as `pmucap compare --format json` gives it
    return out


def sku_comparison(st, cpu, bios, microcode, margin_pct, floor, settings=None):
    runs = fleet.latest_per_machine(st.intact_runs_of(cpu, bios or None, microcode or None))
    res = fleet.compare(runs, st.figures([r["id"] for r in runs]), margin_pct, floor)
    res.update(margin_pct=margin_pct, floor=floor, instr=sku_instr(st, runs, settings))
    return res


# The machines whose instruction tables the SKU page and API compare, at most (the newest first): each one's
# run is read again (web.load_run), as many as the collector keeps read.
SKU_INSTR_MACHINES = web.CACHED_RUNS


def sku_instr(st, runs, settings=None):
    """The instruction tables of the machines' runs compared (instr.compare_fleet), or None when none has
    instr records: {"rows", "counts", "machines": [machine], "problems": [text], "left_out": N}."""
    tables = []
    for r in runs[:SKU_INSTR_MACHINES]:
        row = st.run(r["id"])
        # Only a body that names the record type can hold one: the others are not read again.
        if row is None or f'"{instr.RECORD_TYPE}"' not in row["body"]:
            continue
        run, _ = web.load_run(row, settings)
        t = instr.read(run)
        if t.any:
            tables.append((r["machine"], t, r["id"]))
    if not tables:
        return None
    res = instr.compare_fleet([(m, t) for m, t, _ in tables])
    res["rows"].sort(key=lambda r: r["status"] != instr.DIFFERS)   # what differs first, as compare lists it
    res.update(machines=[m for m, _, _ in tables], runs={m: i for m, _, i in tables},
               problems=[f"{m} (run {i}): {p}" for m, t, i in tables for p in t.problems],
               left_out=max(0, len(runs) - SKU_INSTR_MACHINES), limit=SKU_INSTR_MACHINES)
    return res


def instr_json(res):
    """The SKU's instruction comparison as the API answers it."""
    return {"machines": res["machines"], "counts": res["counts"], "problems": res["problems"],
            "left_out": res["left_out"],
            "rows": [{"form": r["form"], "figure": r["what"], "status": r["status"],
                      "machines": {m: instr.fig_json(f) for m, f in r["cells"].items()}} for r in res["rows"]]}
