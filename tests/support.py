"""Helpers any test may import: the API's one error shape, and embeddings as stored."""

from typing import Any

import numpy as np


def assert_error(response: Any, status: int, code: str | None = None) -> dict:
    """The response has `status` and the one error shape; returns the error object."""
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    # mem0's API (/mem0/) adds `detail`, the text mem0's SDK puts in its exceptions.
    mem0 = response.wsgi_request.path.startswith("/mem0/")
    assert set(body) == ({"error", "detail"} if mem0 else {"error"})
    assert {"code", "message"} <= set(body["error"]) <= {"code", "message", "fields"}
    if code is not None:
        assert body["error"]["code"] == code
    return body["error"]


def vector(*values: float) -> bytes:
    """A float32 embedding, as the recall code stores it."""
    return np.array(values, dtype=np.float32).tobytes()
