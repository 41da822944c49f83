"""The collector's web application (Flask): the upload API, the read API and the dashboard.

Routes are registered by web_api.py (JSON under /api/) and web_pages.py (HTML pages and plots).
This module holds what they share: the store, the upload token, the size limit, the SKU margin,
and the answers every route gives the same way (errors as one JSON line, 401, 413, 503).
"""
import hmac

from . import capture, fleet, store as store_mod


class Settings:
    """What `pmucap serve` was told: shared by every request."""

    def __init__(self, store, token=None, max_upload_bytes=16 << 20, margin_pct=fleet.DEFAULT_MARGIN_PCT,
                 floor=fleet.DEFAULT_FLOOR):
        self.store = store
        self.token = token
        self.max_upload_bytes = max_upload_bytes
        self.margin_pct = margin_pct
        self.floor = floor


def token_ok(settings, header):
    """True when no token is configured, or the Authorization header carries it (Bearer)."""
    if settings.token is None:
        return True
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8", "replace"), settings.token.encode("utf-8"))


def load_run(row):
    """(capture.Run, stray problems) of a stored run: its upload read again by the capture reader."""
    runs, stray = capture.parse(row["body"])
    return runs[0], stray


def create_app(settings):
    from flask import Flask, jsonify

    from . import web_api, web_pages

    app = Flask("pmucap", template_folder="templates")
    app.json.sort_keys = False
    # Werkzeug answers 413 itself past this (the route checks Content-Length first, with a reason).
    app.config["MAX_CONTENT_LENGTH"] = settings.max_upload_bytes
    app.config["pmucap"] = settings

    @app.errorhandler(store_mod.Busy)
    def busy(e):
        resp = jsonify(error=f"{e}: try again later")
        resp.status_code = 503
        resp.headers["Retry-After"] = "5"
        return resp

    @app.errorhandler(capture.CaptureError)
    def unreadable(e):
        # A stored run the readers refuse (the upload check should have kept it out): say which, never a 500.
        return jsonify(error=f"the run cannot be read: {e}"), 400

    @app.errorhandler(413)
    def too_large(e):
        return jsonify(error=f"the upload is larger than the collector takes ({settings.max_upload_bytes} bytes; "
                             "pmucap serve --max-upload-mib)"), 413

    @app.errorhandler(404)
    def not_found(e):
        return jsonify(error="no such page or run"), 404

    @app.errorhandler(405)
    def not_allowed(e):
        return jsonify(error="method not allowed here"), 405

    web_api.register(app, settings)
    web_pages.register(app, settings)
    return app
