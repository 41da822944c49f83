"""pmucap serve - the collector: where the fleet's runs are uploaded, judged, stored and shown.

    pmucap serve [--db FILE | --db postgresql://USER@HOST:PORT/DB] [--listen ADDR:PORT]
                 [--token-file FILE] [--read-token-file FILE] [--admin-token-file FILE]
                 [--public-name NAME]... [--max-upload-mib N] [--threads N] [--margin PCT] [--floor X]
                 [--header-timeout S] [--connection-limit N]

It listens on 127.0.0.1 only unless --listen names another address, and then uploads need a token
(--token-file, or the PMUCAP_TOKEN environment variable): POST /api/runs with "Authorization:
Bearer TOKEN".  Reading (the dashboard, GET /api/...) is open to whoever reaches the port unless
--read-token-file is given (PMUCAP_READ_TOKEN); deleting a run needs --admin-token-file
(PMUCAP_ADMIN_TOKEN).  A request must name the collector: by an IP address, localhost, or a
--public-name (a DNS name it is reached by).  The dashboard is at / (runs by machine with their
verdicts, a run's results and plots, a CPU model's machines against the fleet median); the API is
described in web_api.py and docs/lab.md ("The collector").

Built on Flask (routes, templates) served by waitress (a threaded WSGI server: each upload is
checked and stored in a thread of its own while others are read, which the standard library's
http.server does not do safely), both from Debian's packages (tools/deps.sh --for serve).  The
database is SQLite (--db FILE, the default runs.sqlite) or PostgreSQL (psycopg2); the server
creates and migrates the schema at start.
"""
import argparse
import os
import sys

from . import capture, fleet

DEFAULT_DB = "runs.sqlite"
DEFAULT_LISTEN = "127.0.0.1:8470"
# A full instruction table (instr=all) is the largest run a machine sends: 26.6 MB for the development
# host's Xeon (15,686 forms with AVX-512 and AMX).  At 16 MiB the collector refused it.
DEFAULT_MAX_UPLOAD_MIB = 64
DEFAULT_THREADS = 8
# A shorter token is guessable; 32 hex digits (openssl rand -hex 16) is the example given.
MIN_TOKEN_CHARS = 16
TOKEN_ENV, READ_TOKEN_ENV, ADMIN_TOKEN_ENV = "PMUCAP_TOKEN", "PMUCAP_READ_TOKEN", "PMUCAP_ADMIN_TOKEN"
# Seconds waitress gives a silent client before dropping its connection.
CHANNEL_TIMEOUT_S = 60
# Seconds a connection has to deliver a request's headers (serve_front.py): a client trickling them
# is cut off.  An ordinary client sends them at once.
DEFAULT_HEADER_TIMEOUT_S = 10
# Connections held at once.  Slow clients hold one each until the header deadline: the limit leaves
# room for hundreds of them and the machines' uploads besides (waitress's default, 100, does not).
DEFAULT_CONNECTION_LIMIT = 1000
# File descriptors kept for the database, logs and the listening socket, beyond one per connection.
SPARE_FDS = 64
# An answer held for a slow reader at most (the sending thread then waits for it): a large run read by
# several at once costs this much each, not the run's size each (waitress's default: 16 MiB).
OUTBUF_HIGH_BYTES = 2 << 20
# Seconds between waitress's checks of its connections (its default, 30, would let the header deadline slip).
CLEANUP_INTERVAL_S = 1
# Bodies up to this much over the limit reach the application, which answers 413 with the reason;
# waitress answers larger ones 413 itself, without reading them.
WAITRESS_SLACK_BYTES = 1 << 20
# Seconds a stop waits for the requests in flight (an upload being stored) to finish.
STOP_WAIT_S = 10


def add_parser(sub):
    p = sub.add_parser("serve", help="the collector: take uploads, judge and store runs, serve the dashboard",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", default=DEFAULT_DB,
                   help=f"a SQLite file (default {DEFAULT_DB}), or postgresql://USER[:PASSWORD]@HOST:PORT/DB")
    p.add_argument("--listen", default=DEFAULT_LISTEN, metavar="ADDR:PORT",
                   help=f"where to listen (default {DEFAULT_LISTEN}: this machine only); any other address "
                   "than a loopback one needs a token; port 0 takes a free one")
    p.add_argument("--token-file", metavar="FILE", help="the upload token: the file's first line "
                   f"(or the {TOKEN_ENV} environment variable); at least {MIN_TOKEN_CHARS} characters")
    p.add_argument("--read-token-file", metavar="FILE", help="reading (the dashboard, GET /api/...) needs this "
                   f"token (the file's first line, or {READ_TOKEN_ENV}): as a bearer token, or as the password a "
                   "browser asks for; without it anyone who reaches the port reads every run")
    p.add_argument("--admin-token-file", metavar="FILE", help="the token that deletes runs (DELETE /api/runs/ID, "
                   f"pmucap delete-run; the file's first line, or {ADMIN_TOKEN_ENV}); it reads too")
    p.add_argument("--public-name", action="append", default=[], metavar="NAME",
                   help="a DNS name the collector is reached by (repeatable); requests naming another are refused "
                   "(IP addresses and localhost are always taken)")
    p.add_argument("--header-timeout", type=float, default=DEFAULT_HEADER_TIMEOUT_S, metavar="S",
                   help=f"seconds a connection has to send a request's headers (default {DEFAULT_HEADER_TIMEOUT_S})")
    p.add_argument("--connection-limit", type=int, default=DEFAULT_CONNECTION_LIMIT, metavar="N",
                   help=f"connections held at once (default {DEFAULT_CONNECTION_LIMIT})")
    p.add_argument("--max-upload-mib", type=int, default=DEFAULT_MAX_UPLOAD_MIB, metavar="N",
                   help=f"the largest upload taken, MiB (default {DEFAULT_MAX_UPLOAD_MIB}; larger ones get 413)")
    p.add_argument("--threads", type=int, default=DEFAULT_THREADS, metavar="N",
                   help=f"requests handled at once (default {DEFAULT_THREADS})")
    p.add_argument("--margin", type=float, default=fleet.DEFAULT_MARGIN_PCT, metavar="PCT",
                   help=f"the SKU page flags a machine whose figure is further than PCT%% from the fleet median "
                   f"(default {fleet.DEFAULT_MARGIN_PCT})")
    p.add_argument("--floor", type=float, default=fleet.DEFAULT_FLOOR, metavar="X",
                   help=f"... and further than X cycles per iteration (default {fleet.DEFAULT_FLOOR})")
    p.set_defaults(func=run)


def parse_listen(text):
    """(host, port) of ADDR:PORT ([ADDR]:PORT for IPv6), or InputError."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise capture.InputError(f"--listen {text!r}: give ADDR:PORT, e.g. 127.0.0.1:8470 or 0.0.0.0:8470")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not host:
        raise capture.InputError(f"--listen {text!r}: the address is missing (0.0.0.0 listens on every one)")
    return host, int(port)


def is_loopback(host):
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False   # a host name: it may resolve to anything


def read_token(args, attr="token_file", env=TOKEN_ENV, option="--token-file"):
    """A token (the upload token by default), or None; InputError for one that is unusable."""
    path = getattr(args, attr, None)
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                token = f.readline().strip()
        except (OSError, UnicodeDecodeError) as e:
            raise capture.InputError(f"{option} {path}: cannot read it: "
                                     f"{getattr(e, 'strerror', None) or e}") from None
        where = path
    else:
        token, where = os.environ.get(env), env
        if token is None:
            return None
        token = token.strip()
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise capture.InputError(f"{where}: the token must be at least {MIN_TOKEN_CHARS} characters without "
                                 "spaces (e.g. openssl rand -hex 16)")
    return token


def fit_connection_limit(limit):
    """The connection limit the open-file limit allows (raising the soft limit toward the hard one)."""
    try:
        import resource
    except ImportError:
        return limit
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = limit + SPARE_FDS
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < want:
        return max(1, soft - SPARE_FDS)
    return limit


def import_server():
    """flask and waitress, or InputError saying how to get them."""
    try:
        import flask  # noqa: F401
        import waitress
        return waitress
    except ImportError as e:
        debian = "/usr/lib/python3/dist-packages/flask"
        if os.path.isdir(debian) and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            raise capture.InputError(f"serve needs Flask and waitress, which are installed for /usr/bin/python3 but "
                                     f"not for this Python ({sys.executable}): run /usr/bin/python3 tools/pmucap "
                                     "serve ...") from None
        raise capture.InputError(f"serve needs Flask and waitress ({e.name} is missing): apt-get install "
                                 "python3-flask python3-waitress (or tools/deps.sh --for serve as root)") from None


def _stop(signum, frame):
    raise KeyboardInterrupt


def run(args):
    host, port = parse_listen(args.listen)
    token = read_token(args)
    if not is_loopback(host) and token is None:
        raise capture.InputError(f"--listen {args.listen} opens the collector to the network: uploads then need a "
                                 f"token (--token-file FILE or {TOKEN_ENV})")
    read_tok = read_token(args, "read_token_file", READ_TOKEN_ENV, "--read-token-file")
    admin_tok = read_token(args, "admin_token_file", ADMIN_TOKEN_ENV, "--admin-token-file")
    for name, v, lo in (("--max-upload-mib", args.max_upload_mib, 1), ("--threads", args.threads, 1),
                        ("--connection-limit", args.connection_limit, 1)):
        if v < lo:
            raise capture.InputError(f"{name} {v}: at least {lo}")
    if not 0 < args.header_timeout <= 3600:
        raise capture.InputError(f"--header-timeout {args.header_timeout}: more than 0 and at most 3600 seconds")
    for name, v in (("--margin", args.margin), ("--floor", args.floor)):
        if not v >= 0 or v == float("inf"):
            raise capture.InputError(f"{name} {v}: a finite number, 0 or more")
    waitress = import_server()
    import logging
    import signal

    from . import serve_front, store as store_mod, web

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(serve_front.SafeFormatter("pmucap: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    # A queue of uploads waiting for a thread is normal under load, not a warning.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)

    try:
        st = store_mod.open_store(args.db, args.threads)
        before = st.migrate()
    except store_mod.StoreError as e:
        raise capture.InputError(str(e)) from None
    max_bytes = args.max_upload_mib << 20
    app = web.create_app(web.Settings(st, token, max_bytes, args.margin, args.floor, read_token=read_tok,
                                      admin_token=admin_tok, public_names=args.public_name))
    limit = fit_connection_limit(args.connection_limit)
    try:
        server = waitress.create_server(app, host=host, port=port, threads=args.threads,
                                        max_request_body_size=max_bytes + WAITRESS_SLACK_BYTES,
                                        channel_timeout=CHANNEL_TIMEOUT_S, cleanup_interval=CLEANUP_INTERVAL_S,
                                        connection_limit=limit, asyncore_use_poll=True,
                                        outbuf_high_watermark=OUTBUF_HIGH_BYTES,
                                        ident="pmucap", clear_untrusted_proxy_headers=True)
        serve_front.install(server, args.header_timeout, web.SECURITY_HEADERS)
    except OSError as e:
        st.close()
        raise capture.InputError(f"--listen {args.listen}: {e.strerror or e}") from None
    shown = f"[{server.effective_host}]" if ":" in str(server.effective_host) else server.effective_host
    schema = f"schema {store_mod.SCHEMA_VERSION}" + (" (created)" if before == 0 else
                                                     f" (migrated from {before})" if before != store_mod.SCHEMA_VERSION
                                                     else "")
    try:
        # SIGTERM stops it as Ctrl-C does; a transaction in flight is rolled back by the database either way.
        signal.signal(signal.SIGTERM, _stop)
        print(f"pmucap: serving on http://{shown}:{server.effective_port}/ (database {st.name}, {schema}; "
              f"uploads {'need the token' if token else 'need no token'}; reading "
              f"{'needs the read token' if read_tok else 'is open'}; {st.count()} run(s) stored; "
              f"{limit} connections, headers within {args.header_timeout:g} s)",
              file=sys.stderr, flush=True)
        server.run()   # returns on SIGINT or SIGTERM (waitress catches the KeyboardInterrupt)
    except KeyboardInterrupt:
        pass
    finally:
        # A second signal does not cut the clean-up short: the requests in flight finish (or are
        # given up) before the sockets and the database close.
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        server.task_dispatcher.shutdown(timeout=STOP_WAIT_S)
        server.close()
        st.close()
    print("pmucap: collector stopped", file=sys.stderr)
    return 0
