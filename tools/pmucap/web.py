"""The collector's web application (Flask): the upload API, the read API and the dashboard.

Routes are registered by web_api.py (JSON under /api/) and web_pages.py (HTML pages and plots).
This module holds what they share: the store, the tokens, the size limit, the SKU margin, and the
answers every route gives the same way:

- every error, 4xx or 5xx, is one JSON line {"error": why} with its status (a 405 names the methods
  allowed in Allow; 503 has Retry-After: the database busy, unreachable, or its disk full);
- every answer carries the security headers (SECURITY_HEADERS: no sniffing, no framing, a content
  policy that lets a page load nothing but its own plots);
- a request must name the collector: its Host an IP address, localhost, or a --public-name (a web
  page whose name was rebound to this address names its own), and an Origin, when a browser sends
  one, the same; anything else is refused 403 (a cross-site request, DNS rebinding);
- with a read token, reading (GET) needs it, as a bearer token or as the password of HTTP Basic
  authentication (which a browser asks for); deleting needs the admin token.
"""
import base64
import collections
import hmac
import json
import logging
import re
import threading
import urllib.parse

from . import capture, fleet, store as store_mod
from .cmd_serve import DEFAULT_MAX_UPLOAD_MIB

SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    # The pages have one inline style sheet and load their plots from here; no script, no form.
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
}
# Seconds a client is asked to wait before trying again after a 503.
RETRY_AFTER_S = 5
# Runs kept read (RunCache), the most recently used, and their total size in body bytes.
CACHED_RUNS, CACHED_BYTES = 8, 64 << 20
HOST_RE = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(:\d{1,5})?")
log = logging.getLogger("pmucap.serve")


class Settings:
    """What `pmucap serve` was told: shared by every request."""

    def __init__(self, store, token=None, max_upload_bytes=DEFAULT_MAX_UPLOAD_MIB << 20, margin_pct=fleet.DEFAULT_MARGIN_PCT,
                 floor=fleet.DEFAULT_FLOOR, read_token=None, admin_token=None, public_names=()):
        self.store = store
        self.token = token
        self.max_upload_bytes = max_upload_bytes
        self.margin_pct = margin_pct
        self.floor = floor
        self.read_token = read_token
        self.admin_token = admin_token
        self.public_names = {n.lower().rstrip(".") for n in public_names}
        self.parsed = RunCache()    # (capture.Run, stray) of a run, for the run page and compare
        self.bodies = RunCache()    # a run's body, for GET /api/runs/ID (four readers at once hold one copy)


def _same(given, token):
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def given_token(header):
    """The token an Authorization header carries: Bearer TOKEN, or Basic with TOKEN as the password."""
    scheme, _, value = (header or "").partition(" ")
    if scheme.lower() == "bearer":
        return value.strip()
    if scheme.lower() == "basic":
        try:
            return base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")[2]
        except (ValueError, UnicodeDecodeError):
            return ""
    return ""


def token_ok(settings, header):
    """True when no upload token is configured, or the Authorization header carries it (Bearer)."""
    if settings.token is None:
        return True
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return _same(given.strip(), settings.token)


def read_ok(settings, header):
    """True when reading is open (no read token), or the header carries the read or the admin token."""
    if settings.read_token is None:
        return True
    given = given_token(header)
    return bool(given) and any(_same(given, t) for t in (settings.read_token, settings.admin_token) if t)


def admin_ok(settings, header):
    given = given_token(header)
    return settings.admin_token is not None and bool(given) and _same(given, settings.admin_token)


def host_ok(settings, host):
    """True when a Host (or an Origin's host:port) names the collector: an IP address (which no page
    can rebind), localhost, or a --public-name."""
    m = HOST_RE.fullmatch(host or "")
    if not m:
        return False
    name = m.group(1).lower().rstrip(".")
    if name.startswith("["):
        return True
    if name == "localhost" or name in settings.public_names:
        return True
    import ipaddress
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def origin_ok(settings, origin, host):
    """True when a browser's Origin is the collector's own page (the same host and port as Host)."""
    if origin is None:
        return True
    u = urllib.parse.urlsplit(origin)
    return u.scheme in ("http", "https") and u.netloc.lower() == (host or "").lower() and host_ok(settings, u.netloc)


class RunCache:
    """What is read of stored runs (a run read again by the capture reader for the run page and
    compare; a run's records as the read API sends them), kept by run id and digest, the most recently
    used, bounded in count and bytes; a run asked for by several at once is read once, and they share it."""

    def __init__(self, runs=CACHED_RUNS, max_bytes=CACHED_BYTES):
        self.max_runs, self.max_bytes = runs, max_bytes
        self.lock = threading.Lock()
        self.items = collections.OrderedDict()   # key -> (size, value)
        self.pending = {}                        # key -> Lock of the reading in progress

    def get(self, key, read, size):
        """The value for key, from read() when not kept; size: its cost in bytes (kept if it fits)."""
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key][1]
            wait = self.pending.setdefault(key, threading.Lock())
        with wait:
            with self.lock:
                if key in self.items:
                    return self.items[key][1]
            value = read()
            with self.lock:
                self.pending.pop(key, None)
                if size <= self.max_bytes:
                    self.items[key] = (size, value)
                    while len(self.items) > self.max_runs or sum(s for s, _ in self.items.values()) > self.max_bytes:
                        self.items.popitem(last=False)
            return value


def _page_records():
    """The record types (and their fields) the run page, its plots and compare read of a run."""
    from . import cmd_compare, cmd_plot, cmd_table

    types = tuple(dict.fromkeys(cmd_table.TABLE_TYPES + cmd_compare.COMPARE_TYPES + cmd_plot.PLOT_TYPES))
    fields = {}
    for f in (cmd_table.TABLE_FIELDS, cmd_compare.COMPARE_FIELDS, cmd_plot.PLOT_FIELDS):
        for t, names in f.items():
            fields[t] = tuple(dict.fromkeys(fields.get(t, ()) + tuple(names)))
    return types, fields


def load_run(row, settings=None):
    """(capture.Run, stray problems) of a stored run: its upload read again as the collector read it,
    keeping what the pages read of it (_page_records)."""
    from . import upload

    def read():
        keep, fields = _page_records()
        runs, stray, _ = upload.read(row["body"], keep=keep, fields=fields)
        runs[0].texts = None
        return runs[0], stray
    if settings is None:
        return read()
    return settings.parsed.get((row["id"], row["digest"]), read, len(row["body"]))


def json_error(why, status, headers=None):
    from flask import Response

    resp = Response(json.dumps({"error": why}) + "\n", status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def strict_json(app):
    """Flask's JSON provider, strict: a NaN or an infinity is an error here, never `NaN` on the wire."""
    from flask.json.provider import DefaultJSONProvider

    class Provider(DefaultJSONProvider):
        sort_keys = False

        def dumps(self, obj, **kw):
            kw.setdefault("allow_nan", False)
            return super().dumps(obj, **kw)
    return Provider(app)


def create_app(settings):
    from flask import Flask, request
    from werkzeug.exceptions import HTTPException

    from . import web_api, web_pages

    app = Flask("pmucap", template_folder="templates")
    app.json = strict_json(app)
    # Werkzeug answers 413 itself past this (the route checks Content-Length first, with a reason).
    app.config["MAX_CONTENT_LENGTH"] = settings.max_upload_bytes
    app.config["pmucap"] = settings

    @app.before_request
    def guard():
        host = request.headers.get("Host")
        if not host_ok(settings, host):
            return json_error(f"this collector is not {capture.one_line(host or '(no Host)')[:80]!r}: a request must "
                              "name it by address, localhost or a --public-name (DNS rebinding is refused)", 403)
        if not origin_ok(settings, request.headers.get("Origin"), host):
            return json_error("a request from another site's page is refused (Origin)", 403)
        if request.method in ("GET", "HEAD") and not read_ok(settings, request.headers.get("Authorization")):
            return json_error("reading needs the read token (Authorization: Bearer TOKEN, or it as the password "
                              "of Basic authentication)", 401, {"WWW-Authenticate": 'Basic realm="pmucap"'})
        return None

    @app.after_request
    def headers(resp):
        for k, v in SECURITY_HEADERS.items():
            resp.headers.setdefault(k, v)
        return resp

    @app.errorhandler(store_mod.Busy)
    def busy(e):
        log.warning("503: %s", e)
        return json_error(f"{e}: try again later", 503, {"Retry-After": str(RETRY_AFTER_S)})

    @app.errorhandler(capture.CaptureError)
    def unreadable(e):
        # A stored run the readers refuse (the upload check should have kept it out): say which, never a 500.
        return json_error(f"the run cannot be read: {e}", 400)

    @app.errorhandler(413)
    def too_large(e):
        return json_error(f"the upload is larger than the collector takes ({settings.max_upload_bytes} bytes; "
                          "pmucap serve --max-upload-mib)", 413)

    @app.errorhandler(404)
    def not_found(e):
        return json_error("no such page or run", 404)

    @app.errorhandler(HTTPException)
    def http_error(e):
        extra = {}
        if e.code == 405 and getattr(e, "valid_methods", None):
            extra["Allow"] = ", ".join(e.valid_methods)
        return json_error(f"{e.name}: {capture.one_line(e.description or '')}".rstrip(": "), e.code or 500, extra)

    @app.errorhandler(Exception)
    def crashed(e):
        log.exception("500 on %s %s", request.method, request.path)
        return json_error(f"the collector failed on this request ({type(e).__name__}); its log says more", 500)

    web_api.register(app, settings)
    web_pages.register(app, settings)
    return app
