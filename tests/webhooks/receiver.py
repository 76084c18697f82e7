"""A real webhook receiver for the tests: an HTTP server on 127.0.0.1 in a thread that
records every request (headers and body) and answers what the test tells it to; it can
be stopped (connection refused) and started again on the same port. The port is held
(tests/ports.py) until `close()`: while the receiver is down, no other process is given
it, so deliveries meant for it never reach another test's server."""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook

from tests.ports import HeldPort


class Receiver:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 200
        self.statuses: list[int] = []  # answered first, one per request, then `status`
        self.answer = b"ok"
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._held = HeldPort()
        self.port = self._held.number
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                status = receiver.statuses.pop(0) if receiver.statuses else receiver.status
                self.send_response(status)
                self.send_header("Content-Length", str(len(receiver.answer)))
                self.end_headers()
                self.wfile.write(receiver.answer)

            def log_message(self, *args: Any) -> None:
                pass

        # binds with SO_REUSEADDR (allow_reuse_address), beside the socket holding the port
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Down: the port refuses connections until `start()`."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def close(self) -> None:
        """Stopped, and the port given back."""
        self.stop()
        self._held.release()

    def events(self) -> list[dict[str, Any]]:
        """The bodies received, decoded, in arrival order (only 2xx-answered ones count
        as delivered; this lists every request)."""
        return [json.loads(r["body"]) for r in self.requests]

    def verified(self, secret: str) -> list[dict[str, Any]]:
        """The bodies whose signature verifies with `secret` (all of them, or it fails)."""
        out = []
        for request in self.requests:
            headers = request["headers"]
            # As docs/webhooks.md tells a receiver to check it, not through our own code.
            message = headers["X-Gaia-Timestamp"].encode() + b"." + request["body"]
            digest = hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
            assert hmac.compare_digest(headers["X-Gaia-Signature"], f"v1={digest}")
            out.append(json.loads(request["body"]))
        return out

    def standard_verified(self, secret: str) -> list[Any]:
        """The bodies as the Standard Webhooks project's own verifier reads them (it
        raises on a missing, stale or wrong signature)."""
        verifier = Webhook(secret)
        return [verifier.verify(r["body"], r["headers"]) for r in self.requests]
