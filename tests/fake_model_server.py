"""A real HTTP server on 127.0.0.1 speaking /v1/embeddings and /v1/rerank, for tests.

Embeddings are hashed bags of words (texts sharing words get similar vectors), so the
OpenAI-compatible code is exercised over real sockets, without patching any client.
`behaviour` switches the server into the failure modes the clients must survive.
"""

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

WORD = re.compile(r"\w+")


def bag_of_words(text: str, dim: int) -> list[float]:
    vector = np.zeros(dim)
    for word in WORD.findall(text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    if not vector.any():
        vector[0] = 1.0
    return vector.tolist()


class FakeModelServer:
    def __init__(self, dim: int = 16) -> None:
        self.dim = dim
        self.behaviour = "ok"  # ok | wrong_dim | nan | wrong_count | http_500 | not_json | trickle
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.rerank_scores: dict[str, float] = {}  # document text -> score (default: word overlap)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, **body})
                server.headers.append(dict(self.headers))
                if server.behaviour == "http_500":
                    return self._send(500, b'{"error": "boom"}')
                if server.behaviour == "not_json":
                    return self._send(200, b"<html>surprise</html>")
                if server.behaviour == "trickle":
                    self.send_response(200)
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    for _ in range(50):
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return
                        time.sleep(0.2)
                    return
                if self.path.endswith("/embeddings"):
                    return self._send(200, json.dumps(server.embeddings(body)).encode())
                if self.path.endswith("/rerank"):
                    return self._send(200, json.dumps(server.rerank(body)).encode())
                return self._send(404, b"{}")

            def _send(self, status: int, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def embeddings(self, body: dict) -> dict:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dim = self.dim + 1 if self.behaviour == "wrong_dim" else self.dim
        data = [
            {"object": "embedding", "index": i, "embedding": bag_of_words(t, dim)}
            for i, t in enumerate(texts)
        ]
        if self.behaviour == "nan":
            data[0]["embedding"][0] = float("nan")
        if self.behaviour == "wrong_count":
            data = data[:-1]
        data.reverse()  # servers may answer out of order; "index" says where each goes
        return {"object": "list", "data": data, "model": body.get("model")}

    def rerank(self, body: dict) -> dict:
        query = set(WORD.findall(body["query"].lower()))
        results = []
        for index, document in enumerate(body["documents"]):
            default = len(query & set(WORD.findall(document.lower())))
            results.append(
                {"index": index, "relevance_score": self.rerank_scores.get(document, default)}
            )
        results.sort(key=lambda r: -r["relevance_score"])
        return {"results": results}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
