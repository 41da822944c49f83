"""What `pmucap serve` adds to waitress in front of the application: a deadline for request headers,
errors waitress answers itself as one JSON line, and a log that shows no control character raw.

- Header deadline: waitress drops a connection only when it has been silent for channel_timeout, so
  a client that trickles its headers a line at a time keeps its connection for ever, and enough of
  them fill the connection limit (issue 32).  Here a connection must deliver a request's headers
  within header_timeout_s of opening (or of its previous request): one that has not is closed.
  The check runs with waitress's own maintenance (every cleanup_interval).
- Waitress answers a body over its limit (413) or a malformed request (400) before the application
  sees it; its answer is plain text.  Here it is the collector's JSON line, with the security headers,
  and the connection lingers after it (its sending side shut, what the client still sends read and
  dropped, for LINGER_S at most): closed at once with the body unread, it would be reset, and the
  client would see the reset rather than the answer.
- The log escapes what an upload may put in a name: a control character (an ESC that would clear
  the screen of whoever tails the log) is written as \\uXXXX.
"""
import json
import logging
import re
import socket
import time

# Seconds a connection lingers after an error waitress answered itself (the client still sending).
LINGER_S = 5
# C0 and C1 control characters, DEL, and what is no text at all (a lone surrogate).
CONTROL_RE = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\ud800-\\udfff]")


def escape_controls(text):
    return CONTROL_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class SafeFormatter(logging.Formatter):
    """A log line with every control character escaped (tracebacks keep their line breaks)."""

    def format(self, record):
        return "\n".join(escape_controls(line) for line in super().format(record).split("\n"))


def install(server, header_timeout_s, security_headers):
    """Give a waitress server (waitress.create_server's) the header deadline and JSON errors."""
    from waitress.channel import HTTPChannel
    from waitress.task import ErrorTask

    class JSONErrorTask(ErrorTask):
        def execute(self):
            e = self.request.error
            body = (json.dumps({"error": f"{e.reason}: {' '.join(str(e.body).split())}"}) + "\n").encode("ascii")
            self.status = f"{e.code} {e.reason}"
            self.response_headers.append(("Content-Type", "application/json"))
            self.response_headers.extend(security_headers.items())
            self.response_headers.append(("Connection", "close"))
            self.close_on_finish = True
            self.content_length = len(body)
            self.write(body)
            self.channel.linger_after = True

    class Channel(HTTPChannel):
        error_task_class = JSONErrorTask

        linger_after = False    # set by JSONErrorTask: linger rather than close
        lingering_until = None  # lingering: its sending side is shut, what comes is dropped

        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.headers_since = time.time()   # when it began to wait for a request's headers

        def handle_close(self):
            if self.linger_after and self.lingering_until is None and self.connected:
                try:
                    self.socket.shutdown(socket.SHUT_WR)
                except OSError:
                    return super().handle_close()
                self.lingering_until = time.time() + LINGER_S
                self.will_close = self.close_when_flushed = False
                return None
            return super().handle_close()

        def readable(self):
            return True if self.lingering_until is not None else super().readable()

        def received(self, data):
            if self.lingering_until is not None:
                return True   # the rest of a body already answered: dropped
            before = self.request
            out = super().received(data)
            if self.request is None and before is not None:   # a request (or several) complete: wait anew
                self.headers_since = time.time()
            return out

        def waiting_for_headers(self):
            req = self.request
            return (not self.requests and not self.total_outbufs_len
                    and (req is None or not req.headers_finished))

    plain = server.maintenance

    def maintenance(now):
        plain(now)
        cutoff = now - header_timeout_s
        for ch in list(server.active_channels.values()):
            if not isinstance(ch, Channel) or ch.will_close:
                continue
            if ch.lingering_until is not None:
                if ch.lingering_until < now:
                    ch.will_close = True   # handle_close then closes it for good
            elif ch.headers_since < cutoff and ch.waiting_for_headers():
                ch.will_close = True
    server.channel_class = Channel
    server.maintenance = maintenance
    return server
