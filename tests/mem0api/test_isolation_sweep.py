"""Every mem0 URL, every method, with the shop's app token next to the tutor's data.

The tutoring site's people and the shop's have the same kind of memory (and one external
id in common, "maria"); the tutor's rows carry the word "tutormark", the shop's do not.
With the shop's token, every mem0 endpoint: never shows a tutor's row (no "tutormark", no
tutor id), answers a tutor's memory id exactly like a missing one, and changes nothing of
the tutor's (all their rows are compared before and after). A mem0 URL added without an
entry here fails `test_the_sweep_covers_every_mem0_url`.
"""

from typing import Any

import pytest

from accounts.models import AppPerson
from conversations.models import Session, Turn
from memory.models import KnowledgeItem
from tests.mem0api.conftest import add
from tests.test_architecture import api_patterns

MARK = "tutormark"
METHODS = ("get", "post", "put", "patch", "delete")
OBJECT_URLS = {"api-mem0-memory", "api-mem0-history"}
TUTOR_ONLY = {"user": "ana", "agent": "violin-tutor", "run": "lesson-9"}
# (url, method, body or query): the shop's requests naming the tutor's people and scopes.
EVERY_USER = {"filters": {"user_id": "*"}}
REQUESTS: list[tuple[str, str, Any]] = [
    ("api-mem0-ping", "get", None),
    ("api-mem0-list", "post", EVERY_USER),
    ("api-mem0-list", "post", {"filters": {"OR": [{"user_id": "maria"}, {"user_id": "ana"}]}}),
    ("api-mem0-list", "post", {"filters": {"agent_id": "violin-tutor"}}),
    ("api-mem0-list", "post", {"filters": {"run_id": "lesson-9"}}),
    ("api-mem0-list", "post", {"filters": {"AND": [{"user_id": "*"}, {"NOT": {"metadata": {
        "course": "none"}}}, {"created_at": {"gte": "2000-01-01"}}]}}),
    ("api-mem0-list-v2", "post", EVERY_USER),
    ("api-mem0-search", "post", {"query": f"{MARK} cello violin", "threshold": 0, **EVERY_USER}),
    ("api-mem0-search", "post", {"query": MARK, "threshold": 0, "filters": {"user_id": "ana"}}),
    ("api-mem0-search-v2", "post", {"query": MARK, "threshold": 0, **EVERY_USER}),
    ("api-mem0-entities", "get", None),
    ("api-mem0-unsupported", "post", None),
    ("api-mem0-add", "post", {"messages": [{"role": "user", "content": "Ana likes tea"}],
                              "user_id": "ana", "infer": False}),
    ("api-mem0-delete-all", "delete", {"user_id": "ana"}),
    ("api-mem0-delete-all", "delete", {"agent_id": "violin-tutor"}),
    ("api-mem0-delete-all", "delete", {"run_id": "lesson-9"}),
    ("api-mem0-entity", "delete", None),
    ("api-mem0-entity-v1", "delete", None),
    ("api-mem0-batch", "put", None),
    ("api-mem0-batch", "delete", None),
    ("api-mem0-export", "post", {"filters": {"user_id": "ana"}}),
    ("api-mem0-export", "post", {"filters": {"user_id": "maria"}}),
    ("api-mem0-export-create", "post", {"schema": "{}", "user_id": "ana"}),
]  # fmt: skip


def snapshot(app: Any) -> dict[str, Any]:
    owners = AppPerson.objects.filter(app=app).values_list("user_id", flat=True)
    return {
        "people": sorted(AppPerson.objects.filter(app=app).values_list("external_id", "user_id")),
        "items": sorted(
            KnowledgeItem.objects.filter(owner_id__in=owners).values_list(
                "pk", "content", "metadata", "updated_at", "forgotten_at"
            )
        ),
        "turns": sorted(Turn.objects.filter(owner_id__in=owners).values_list("pk", "content")),
        "sessions": sorted(Session.objects.filter(owner_id__in=owners).values_list("pk")),
    }


def test_the_sweep_covers_every_mem0_url():
    names = {name for name, _ in api_patterns(("api-mem0-",))}
    assert names == OBJECT_URLS | {r[0] for r in REQUESTS}


@pytest.mark.cross_user("api-mem0-memory")
def test_the_shop_never_reaches_the_tutors_rows_through_any_mem0_url(tutor, shop):
    theirs = add(tutor, "maria", f"Maria plays the cello {MARK}", run_id="lesson-1")
    theirs += add(tutor, "ana", f"Ana learns the violin {MARK}", agent_id="violin-tutor",
                  run_id="lesson-9")  # fmt: skip
    add(shop, "maria", "Maria ordered a cello stand", run_id="lesson-1")
    before = snapshot(tutor.app)
    missing = "999999999"

    for name in sorted(OBJECT_URLS):
        suffix = "history/" if name == "api-mem0-history" else ""
        for method in METHODS:
            body = {"text": "changed by the shop"}
            for memory in theirs:
                answer = getattr(shop, method)(
                    f"/mem0/v1/memories/{memory['id']}/{suffix}", body, format="json"
                )
                absent = getattr(shop, method)(
                    f"/mem0/v1/memories/{missing}/{suffix}", body, format="json"
                )
                assert (answer.status_code, answer.json()) == (
                    absent.status_code, absent.json()), (name, method)  # fmt: skip
                assert MARK not in answer.content.decode()

    for name, method, given in REQUESTS:
        for url, body in _calls(name, given, theirs):
            answer = getattr(shop, method)(url, body, format="json")
            assert answer.status_code < 500 or answer.status_code == 501, (name, answer.content)
            text = _body(answer).decode()
            assert MARK not in text, (name, text)
            assert not any(f'"id":"{m["id"]}"' in text.replace(" ", "") for m in theirs), name

    assert snapshot(tutor.app) == before


def _body(answer: Any) -> bytes:
    return b"".join(answer.streaming_content) if answer.streaming else answer.content


def _calls(name: str, given: Any, theirs: list[dict]) -> list[tuple[str, Any]]:
    if name in ("api-mem0-entity", "api-mem0-entity-v1"):
        version = "v1" if name.endswith("v1") else "v2"
        return [(f"/mem0/{version}/entities/{kind}/{value}/", None)
                for kind, value in TUTOR_ONLY.items()]  # fmt: skip
    if name == "api-mem0-batch":
        return [("/mem0/v1/batch/", {"memories": [{"memory_id": m["id"], "text": "x"}]})
                for m in theirs]  # fmt: skip
    if name == "api-mem0-delete-all":
        return [("/mem0/v1/memories/?" + "&".join(f"{k}={v}" for k, v in given.items()), None)]
    paths = {
        "api-mem0-ping": "/mem0/v1/ping/",
        "api-mem0-list": "/mem0/v3/memories/",
        "api-mem0-list-v2": "/mem0/v2/memories/",
        "api-mem0-search": "/mem0/v3/memories/search/",
        "api-mem0-search-v2": "/mem0/v2/memories/search/",
        "api-mem0-entities": "/mem0/v1/entities/",
        "api-mem0-unsupported": "/mem0/v1/summary/",
        "api-mem0-export": "/mem0/v1/exports/get/",
        "api-mem0-export-create": "/mem0/v1/exports/",
        "api-mem0-add": "/mem0/v3/memories/add/",
    }
    return [(paths[name], given)]
