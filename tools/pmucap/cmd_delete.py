"""pmucap delete-run - remove a run from a collector (DELETE /api/runs/ID with the admin token).

    pmucap delete-run URL ID [--token-file FILE] [--reason TEXT]

URL is the collector (http://HOST:PORT); the token is the collector's admin token (its
--admin-token-file), from --token-file or the PMUCAP_ADMIN_TOKEN environment variable.  The
collector keeps the run's row and text in its audit log (deleted_runs, GET /api/deleted) and says so
in its log.  Exit status 0 when the run was deleted, 1 when it could not be (the collector's reason).
"""
import argparse
import json
import os
import urllib.error
import urllib.parse
import urllib.request

from . import capture

TOKEN_ENV = "PMUCAP_ADMIN_TOKEN"
TIMEOUT_S = 30


def add_parser(sub):
    p = sub.add_parser("delete-run", help="remove a run from a collector (its admin token; kept in its audit log)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url", help="the collector, e.g. http://127.0.0.1:8470")
    p.add_argument("run_id", type=int, metavar="ID", help="the run to remove (GET /api/runs lists them)")
    p.add_argument("--token-file", metavar="FILE", help=f"the admin token: the file's first line (or {TOKEN_ENV})")
    p.add_argument("--reason", help="why, for the audit log")
    p.set_defaults(func=run)


def run(args):
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as f:
                token = f.readline().strip()
        except (OSError, UnicodeDecodeError) as e:
            raise capture.InputError(f"--token-file {args.token_file}: cannot read it: "
                                     f"{getattr(e, 'strerror', None) or e}") from None
    else:
        token = (os.environ.get(TOKEN_ENV) or "").strip()
    if not token:
        raise capture.InputError(f"delete-run needs the collector's admin token (--token-file FILE or {TOKEN_ENV})")
    u = urllib.parse.urlsplit(args.url)
    if u.scheme not in ("http", "https") or not u.netloc:
        raise capture.InputError(f"{args.url!r} is no collector URL: give http://HOST:PORT")
    if args.run_id < 1:
        raise capture.InputError(f"run {args.run_id}: run IDs start at 1")
    query = "?" + urllib.parse.urlencode({"reason": args.reason}) if args.reason else ""
    req = urllib.request.Request(f"{args.url.rstrip('/')}/api/runs/{args.run_id}{query}", method="DELETE",
                                 headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
            answer = json.loads(r.read())
    except urllib.error.HTTPError as e:
        try:
            why = json.loads(e.read()).get("error")
        except (ValueError, AttributeError):
            why = None
        raise capture.InputError(f"{args.url}: run {args.run_id} not deleted: HTTP {e.code}"
                                 + (f": {capture.one_line(why)}" if why else "")) from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise capture.InputError(f"{args.url}: cannot reach the collector: {getattr(e, 'reason', None) or e}") from None
    s = answer.get("run") or {}
    print(f"run {args.run_id} deleted ({s.get('verdict')}, {s.get('machine')}, {s.get('cpu')}); the collector "
          "keeps its text in its audit log (GET /api/deleted)")
    return 0
