"""tests/upload_server.py - a small collector the upload tests start for themselves.

It listens on 127.0.0.1 only, on a free port the kernel picks; a guest under QEMU's user network
reaches it as 10.0.2.2:PORT (QEMU itself makes the connection, on the host's loopback), so nothing
leaves this machine.  It is not pmucap's collector: it keeps each POST exactly as it arrived, so a
test can hold the bytes against the serial capture.

    srv = Collector()             # 201 and a short JSON body for every POST
    srv = Collector("stall")      # reads the request, then never answers (until close())
    srv = Collector(status=503)   # answers every POST with that status
    ... srv.url("/api/runs") -> "http://10.0.2.2:PORT/api/runs"; srv.posts; srv.close()

free_port() gives a port nobody listens on (bound, then let go).
"""
import http.server
import json
import socket
import threading
import time

GUEST_HOST = "10.0.2.2"       # the host, seen from inside QEMU's user network
STALL_LIMIT_S = 300           # a stalled answer is given up by the server after this, whatever happens


class Post:
    def __init__(self, path, headers, body, at):
        self.path, self.headers, self.body, self.at = path, headers, body, at


class Collector:
    def __init__(self, mode="store", status=201):
        self.mode, self.status = mode, status
        self.posts = []
        self.connections = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                with owner._lock:
                    owner.connections += 1

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                with owner._lock:
                    owner.posts.append(Post(self.path, {k.lower(): v for k, v in self.headers.items()}, body,
                                            time.monotonic()))
                if owner.mode == "stall":
                    owner._stop.wait(STALL_LIMIT_S)
                    return
                out = json.dumps({"stored": owner.status < 300, "bytes": n}).encode()
                self.send_response(owner.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(out)
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path="/api/runs"):
        return f"http://{GUEST_HOST}:{self.port}{path}"

    def close(self):
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()


def free_port():
    """A port on 127.0.0.1 that nobody listens on: the kernel's pick, let go at once."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
