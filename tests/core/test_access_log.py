"""Logs keep no session id a client chose, nor an app's person's external id: they
outlive an account erase."""

import io
import logging
from datetime import timedelta
from wsgiref.util import setup_testing_defaults

import pytest
from gunicorn.config import Config
from gunicorn.glogging import Logger, SafeAtoms

from accounts.people import app_create, app_token_create, person_create
from conversations.services.recording import turn_append
from core.management.commands.serve import ACCESS_LOG_FORMAT
from gaia_site.wsgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # the real handler ends its connection
SESSION = "chat-with-ottoline-pembry"


def _get(path: str, token: str, query: str = "") -> tuple[dict, str, bytes]:
    """A GET through the WSGI application the server runs; the environ it leaves."""
    environ: dict = {}
    setup_testing_defaults(environ)
    environ.update(
        REQUEST_METHOD="GET",
        PATH_INFO=path,
        RAW_URI=f"{path}?{query}" if query else path,
        QUERY_STRING=query,
        HTTP_AUTHORIZATION=f"Bearer {token}",
        REMOTE_ADDR="127.0.0.1",
        SERVER_PROTOCOL="HTTP/1.1",
    )
    environ["wsgi.input"] = io.BytesIO(b"")
    status: list[str] = []
    answer = application(environ, lambda s, headers, exc=None: status.append(s))
    body = b"".join(answer)
    getattr(answer, "close", lambda: None)()
    return environ, status[0], body


def _access_line(environ: dict, status: str) -> str:
    """The line gunicorn writes for this request with `serve`'s access log format."""
    config = Config()
    config.set("access_log_format", ACCESS_LOG_FORMAT)
    response = type("Response", (), {"status": status, "sent": 10, "headers": []})()
    atoms = Logger(config).atoms(response, [], environ, timedelta(milliseconds=2))
    return config.access_log_format % SafeAtoms(atoms)  # as gunicorn formats it


def test_the_access_log_shows_a_sessions_route_not_its_id(alice, alice_api):
    turn_append(user=alice, session_id=SESSION, role="user", content="Hello there")
    path = f"/api/v1/conversations/sessions/{SESSION}/"

    environ, status, body = _get(path, alice_api.token_secret)

    assert status.startswith("200") and SESSION.encode() in body  # answered for the real id
    line = _access_line(environ, status)
    assert "GET /api/v1/conversations/sessions/{session_id}/ " in line
    assert SESSION not in line


def test_djangos_request_log_shows_no_session_id_either(alice_api):
    """After an erase the session is gone: its URL is a 404, which Django logs."""
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Not Found: %s",
        (f"/api/v1/conversations/sessions/{SESSION}/consolidate/",), None,
    )  # fmt: skip
    # the settings' console handler (pytest adds its own capturing ones beside it)
    (handler,) = [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]
    assert handler.filter(record)
    line = handler.format(record)
    assert "Not Found: /api/v1/conversations/sessions/{session_id}/consolidate/" in line
    assert SESSION not in line


def test_the_access_log_shows_a_persons_route_not_their_external_id(db):
    app = app_create(name="acme-support")
    _, secret = app_token_create(app=app, name="prod")
    person_create(app=app, external_id="ana@example.com")
    for path, route in [
        ("/api/v1/people/ana@example.com/", "/api/v1/people/{user_id}/"),
        ("/api/v1/people/ana@example.com/tokens/", "/api/v1/people/{user_id}/tokens/"),
        ("/mem0/v2/entities/user/ana@example.com/", "/mem0/v2/entities/user/{name}/"),
    ]:
        environ, status, _ = _get(path, secret)
        line = _access_line(environ, status)
        assert f" {route} " in line and "ana@" not in line, line
    environ, _, _ = _get("/api/v1/memories/", secret, query="user_id=ana%40example.com&page=1")
    assert environ["QUERY_STRING"] == "user_id={id}&page=1"
    assert "ana" not in environ["RAW_URI"]


@pytest.mark.parametrize(
    "path",
    ["/api/v1/people/ana@example.com/", "/mem0/v2/entities/user/ana@example.com/",
     "/api/v1/people/ana%40example.com/tokens/7/"],
)  # fmt: skip
def test_djangos_request_log_shows_no_external_id_either(path):
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Not Found: %s", (path,), None
    )
    (handler,) = [h for h in logging.getLogger().handlers if type(h) is logging.StreamHandler]
    assert handler.filter(record)
    line = handler.format(record)
    assert "Not Found: /" in line and "ana" not in line, line
