"""Every outgoing HTTP call goes through here: model servers (embeddings, rerank, the
LLM) and webhook deliveries (`post_bytes`).

httpx timeouts apply per network operation, so a server trickling one byte a second
would never time out; `post_json` enforces one overall deadline for the whole exchange
and a ceiling on the body size.
"""

import json
import threading
import time
from typing import Any

import httpx

MAX_BODY_BYTES = 64 * 1024 * 1024


class ModelServerError(RuntimeError):
    """The server was unreachable, too slow, or answered something unusable."""


_client: httpx.Client | None = None
_client_lock = threading.Lock()


def _shared_client() -> httpx.Client:
    global _client
    with _client_lock:
        if _client is None:
            _client = httpx.Client(follow_redirects=False)
        return _client


def post_json(
    url: str,
    payload: dict[str, Any],
    *,
    api_key: str = "",
    deadline_seconds: float,
    max_bytes: int = MAX_BODY_BYTES,
) -> Any:
    """POST `payload` as JSON and return the decoded JSON answer, all within the deadline."""
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    deadline = time.monotonic() + deadline_seconds
    timeout = httpx.Timeout(deadline_seconds)
    try:
        with _shared_client().stream(
            "POST", url, content=json.dumps(payload), headers=headers, timeout=timeout
        ) as response:
            body = bytearray()
            for chunk in response.iter_bytes():
                body.extend(chunk)
                if len(body) > max_bytes:
                    raise ModelServerError(f"{url}: answer larger than {max_bytes} bytes")
                if time.monotonic() > deadline:
                    raise ModelServerError(f"{url}: no complete answer within {deadline_seconds}s")
            status = response.status_code
    except httpx.HTTPError as error:
        raise ModelServerError(f"{url}: {type(error).__name__}: {error}") from error
    if status >= 400:
        raise ModelServerError(f"{url}: HTTP {status}: {bytes(body[:200])!r}")
    try:
        return json.loads(body)
    except ValueError as error:
        raise ModelServerError(f"{url}: answer is not JSON ({error})") from error


def post_bytes(
    url: str,
    body: bytes,
    *,
    headers: dict[str, str],
    deadline_seconds: float,
    max_bytes: int = 64 * 1024,
) -> tuple[int, bytes]:
    """POST `body` and return (status, the first `max_bytes` of the answer), whatever the
    status, all within the deadline; redirects are not followed (a 3xx is an answer).
    ModelServerError when the server is unreachable or too slow."""
    deadline = time.monotonic() + deadline_seconds
    try:
        with _shared_client().stream(
            "POST", url, content=body, headers=headers, timeout=httpx.Timeout(deadline_seconds)
        ) as response:
            answer = bytearray()
            for chunk in response.iter_bytes():
                if len(answer) < max_bytes:
                    answer.extend(chunk[: max_bytes - len(answer)])
                if time.monotonic() > deadline:
                    raise ModelServerError(f"no complete answer within {deadline_seconds:g}s")
            return response.status_code, bytes(answer)
    except (httpx.HTTPError, httpx.InvalidURL) as error:
        raise ModelServerError(f"{type(error).__name__}: {error}") from error


def endpoint(base_url: str, path: str) -> str:
    """`base_url` may or may not already end in /v1; `path` is like "/v1/embeddings"."""
    base = base_url.rstrip("/")
    if base.endswith("/v1") and path.startswith("/v1/"):
        path = path[3:]
    return base + path
