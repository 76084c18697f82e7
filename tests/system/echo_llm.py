"""An OpenAI-compatible server that turns each extraction request into one memory:
"User enjoys <marker>" for the marker word of the latest user message (optionally after
a delay, to keep a worker busy mid-task). Answers are built from fake_llm.completion.
"""

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.learning.fake_llm import completion

MARKER = re.compile(r"\bmk[0-9a-z]+\b")


class EchoLLM:
    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.markers: list[str] = []  # one entry per request, in arrival order
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                prompt = body["messages"][-1]["content"]
                latest = prompt.rsplit("Latest user message:", 1)[-1]
                found = MARKER.search(latest)
                marker = found.group(0) if found else ""
                owner.markers.append(marker)
                time.sleep(owner.delay)
                ops = [{"op": "add", "content": f"User enjoys {marker}"}] if marker else []
                answer = completion(json.dumps({"operations": ops}))
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
