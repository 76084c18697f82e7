"""The smaller findings of the second round: session ids their URL cannot carry, a strict
Content-Security-Policy with no inline script or style on any page, and no memory text or
search words in task names or access log lines (public health: tests/api)."""

import logging
import re
from urllib.parse import quote

import pytest
from django.core.management import call_command
from django.test import Client
from gunicorn.config import Config
from gunicorn.glogging import Logger, SafeAtoms

from conversations.models import Session
from core import queue
from core.management.commands import serve
from discovery.models import Finding
from tests.support import assert_error
from tests.web.seed import seed_month

pytestmark = pytest.mark.django_db
SECRET = "mysecretword"


@pytest.mark.parametrize("session_id", ["a/b", "/", "a\\b", ".", "..", "tab\there", "bell\x07"])
def test_a_session_id_its_url_cannot_carry_is_refused(alice_api, session_id):
    turn = {"session_id": session_id, "role": "user", "content": "hello"}
    call = {"session_id": session_id, "tool_name": "search"}

    for url, body in (("/api/v1/conversations/turns/", turn), ("/api/v1/tool-calls/", call)):
        error = assert_error(alice_api.post(url, body, format="json"), 400)
        assert list(error["fields"]) == ["session_id"]
    assert not Session.objects.exists()


def test_any_other_session_id_is_reachable_at_its_url(alice_api):
    session_id = "chat #7 ?x=1 & 50% @host:8000 ~ café"
    turn = {"session_id": session_id, "role": "user", "content": "hello"}
    assert alice_api.post("/api/v1/conversations/turns/", turn, format="json").status_code == 201

    response = alice_api.get(f"/api/v1/conversations/sessions/{quote(session_id, safe='')}/")

    assert response.status_code == 200
    assert response.json()["session"]["session_id"] == session_id


@pytest.fixture
def every_page(alice, django_user_model) -> list[tuple[Client, str]]:
    rows = seed_month(alice)
    finding = Finding.objects.create(owner=alice, content="Uses vim", scanner="apps",
                                     fingerprint="f", confidence=0.4)  # fmt: skip
    user, staff, anonymous = Client(), Client(), Client()
    user.force_login(alice)
    staff.force_login(django_user_model.objects.create_superuser("root", "r@x.org", "pw"))
    item, session = rows["items"][0].pk, rows["turn"].session_id
    pages = ["/", "/memories/", "/memories/?q=tea", f"/memories/{item}/",
             f"/memories/{item}/edit/", "/memories/new/", f"/memories/{item}/erase/",
             "/conversations/", f"/conversations/{session}/", "/conversations/search/?q=plan",
             "/conversations/tools/", "/discovery/", "/tokens/", "/settings/", "/password/",
             "/settings/erase/"]  # fmt: skip
    admin = ["/admin/", "/admin/memory/knowledgeitem/", "/admin/conversations/turn/",
             f"/admin/memory/knowledgeitem/{item}/change/", "/admin/discovery/finding/",
             f"/admin/discovery/finding/{finding.pk}/change/"]  # fmt: skip
    public = ["/login/", "/api/v1/docs/", "/api/v1/health/", "/no-such-page/"]
    return (
        [(user, url) for url in pages]
        + [(staff, url) for url in admin]
        + [(anonymous, url) for url in public]
    )


def test_every_page_has_a_strict_content_security_policy(every_page):
    for client, url in every_page:
        response = client.get(url)
        assert response.status_code in (200, 404), url
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, url
        assert "unsafe" not in policy and "object-src 'none'" in policy, url


def test_our_pages_have_no_inline_script_style_or_handlers(every_page):
    for client, url in every_page:
        if url.startswith("/admin/"):
            continue  # Django's own templates (one cosmetic <style> the policy blocks)
        html = client.get(url).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), url
        assert not re.search(r"<style\b|\sstyle=", html), url
        assert not re.search(r"\son[a-z]+=", html), url
        assert "javascript:" not in html, url


def test_task_names_carry_ids_and_never_text(monkeypatch):
    names = []
    monkeypatch.setattr(
        "django_q.tasks.async_task", lambda func, *args, **kw: names.append(kw["task_name"])
    )

    queue.enqueue_now("learning.tasks.tool_errors_sync", (42, f"deploy {SECRET}"))
    queue.enqueue_now("learning.tasks.extract_turn", (7,))

    assert names == ["tool_errors_sync:42", "extract_turn:7"]


def test_no_memory_or_query_text_is_logged_at_info(
    alice, alice_api, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    monkeypatch.setattr("django_q.conf.Conf.SYNC", True)  # tasks run (and log) inline
    web = Client()
    web.force_login(alice)
    caplog.set_level(logging.INFO)

    with django_capture_on_commit_callbacks(execute=True):
        alice_api.post("/api/v1/memories/", {"content": f"Alice's {SECRET}"}, format="json")
        alice_api.post("/api/v1/memories/search/", {"query": SECRET}, format="json")
        failed = {"tool_name": f"deploy-{SECRET}", "success": False, "error": f"no {SECRET}"}
        assert alice_api.post("/api/v1/tool-calls/", failed, format="json").status_code == 201
        web.get("/memories/", {"q": SECRET})

    assert any("tool_errors_sync" in r.getMessage() for r in caplog.records)  # the task ran
    assert not [r.getMessage() for r in caplog.records if SECRET in r.getMessage()]


class _FakeProcess:
    pid = 2**22 + 12345  # beyond any pid: nothing real can be signalled by mistake
    returncode = 0

    def __init__(self, command: list[str], **options: object) -> None:
        _FakeProcess.commands.append(command)

    def poll(self) -> int:
        return 0

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def send_signal(self, signum: int) -> None:
        pass

    kill = terminate = lambda self: None


def test_the_access_log_of_serve_keeps_no_query_string_or_referrer(monkeypatch):
    _FakeProcess.commands = []
    monkeypatch.setattr(serve.subprocess, "Popen", _FakeProcess)
    monkeypatch.setattr(serve, "embedding_startup", lambda: "embedder ready")
    with pytest.raises(SystemExit):  # the fake web server "exits" at once
        call_command("serve", "--no-worker")
    (command,) = _FakeProcess.commands
    config = Config()
    if "--access-logformat" in command:
        config.set("access_log_format", command[command.index("--access-logformat") + 1])
    search = f"/memories/?q={SECRET}"
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": search, "PATH_INFO": "/memories/",
               "QUERY_STRING": f"q={SECRET}", "SERVER_PROTOCOL": "HTTP/1.1",
               "HTTP_REFERER": f"http://x{search}", "REMOTE_ADDR": "127.0.0.1"}  # fmt: skip
    response = type("Response", (), {"status": "200 OK", "sent": 10, "headers": []})()
    request_time = type("Elapsed", (), {"seconds": 0, "microseconds": 1500})()

    atoms = Logger(config).atoms(response, [], environ, request_time)
    line = config.access_log_format % SafeAtoms(atoms)  # as gunicorn formats it

    assert "GET /memories/" in line and " 200 " in line
    assert SECRET not in line
