"""Chunked request bodies (no Content-Length: `curl -T -`, streaming clients) reach the
views whole, through the WSGI application the server runs."""

import io
import json
from wsgiref.util import setup_testing_defaults

import pytest

from gaia_site.wsgi import application
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db(transaction=True)  # the real handler ends its connection


def _export(*contents: str) -> bytes:
    header = {"type": "header", "format": "gaia-memory-export", "version": 2}
    items = [{"type": "knowledge", "content": text} for text in contents]
    end = {"type": "end", "records": len(items)}
    return b"".join(json.dumps(r).encode() + b"\n" for r in [header, *items, end])


def _post_chunked(path: str, body: bytes, token: str, content_type: str) -> tuple[str, bytes]:
    """A request as gunicorn hands over a chunked one: the chunks decoded in wsgi.input,
    Transfer-Encoding kept, no CONTENT_LENGTH."""
    environ: dict = {}
    setup_testing_defaults(environ)
    environ.update(
        REQUEST_METHOD="POST",
        PATH_INFO=path,
        CONTENT_TYPE=content_type,
        HTTP_TRANSFER_ENCODING="chunked",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    environ.pop("CONTENT_LENGTH", None)
    environ["wsgi.input"] = io.BytesIO(body)
    status: list[str] = []
    answer = application(environ, lambda s, headers, exc=None: status.append(s))
    try:
        return status[0], b"".join(answer)
    finally:
        getattr(answer, "close", lambda: None)()


def test_a_restore_sent_chunked_is_imported(alice, alice_api):
    body = _export("User's dog is called Bruno", "User lives in Porto")
    status, answer = _post_chunked(
        "/api/v1/import/", body, alice_api.token_secret, "application/x-ndjson"
    )
    assert status.startswith("200"), answer
    assert json.loads(answer)["created"]["knowledge"] == 2
    assert set(KnowledgeItem.objects.for_user(alice).values_list("content", flat=True)) == {
        "User's dog is called Bruno",
        "User lives in Porto",
    }


def test_a_json_write_sent_chunked_is_read(alice, alice_api):
    body = json.dumps({"content": "User prefers tea to coffee"}).encode()
    status, answer = _post_chunked(
        "/api/v1/memories/", body, alice_api.token_secret, "application/json"
    )
    assert status.startswith("201"), answer
    assert KnowledgeItem.objects.for_user(alice).get().content == "User prefers tea to coffee"


def test_a_chunked_body_over_the_largest_accepted_is_refused(alice, alice_api, settings):
    settings.GAIA_MAX_IMPORT_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = _export(*(f"Fact number {n} about something" for n in range(100)))
    status, answer = _post_chunked(
        "/api/v1/import/", body, alice_api.token_secret, "application/x-ndjson"
    )
    assert status.startswith("413")
    assert json.loads(answer)["error"]["code"] == "too_large"
    assert not KnowledgeItem.objects.for_user(alice).exists()


def test_a_chunked_body_over_a_views_own_limit_is_refused_by_it(alice, alice_api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100  # the import keeps its larger limit
    body = json.dumps({"content": "User prefers tea " + "and more " * 50}).encode()
    status, _ = _post_chunked("/api/v1/memories/", body, alice_api.token_secret, "application/json")
    assert status.startswith("413")
