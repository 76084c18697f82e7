"""Erasing a user's whole memory: API, web page and command share one service."""

from io import StringIO

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from django_q.models import OrmQ, Task
from django_q.signing import SignedPackage
from django_q.tasks import async_task

from accounts.models import ApiToken, UserSettings
from conversations.models import Session, ToolCall, Turn
from conversations.services.recording import turns_append_many
from discovery.models import Finding
from learning.llm.counters import llm_count
from learning.models import LLMCounter, ProfileCache, ReconciledPair
from memory.changes import items_generation
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create_many
from privacy import services as privacy_services
from privacy.services import memory_erase_user
from privacy.task_records import Subjects, queued_tasks_erase
from retrieval.tasks import embed_rows_task
from skills.tasks import learn_skills
from tests.commits import rows_per_commit
from tests.security.traces import fulltext_holds, removed_for
from tests.security.twins import MARKERS, seed_twin, snapshot
from tests.support import assert_error

pytestmark = pytest.mark.django_db
ERASE = "/api/v1/account/erase/"
MEMORY_ROWS = (KnowledgeItem, Turn, Session, ToolCall, Finding, ReconciledPair, LLMCounter)


@pytest.fixture
def twins(alice, bob):
    return seed_twin(alice), seed_twin(bob)


def _queue_tasks_naming(twin) -> set[int]:
    """Background work about `twin` waiting in the ORM broker, plus a finished record;
    returns the queue rows it added."""
    user = twin.user
    before = set(OrmQ.objects.values_list("pk", flat=True))
    async_task("learning.tasks.extract_turn", twin.turns[1].pk)
    async_task("learning.tasks.consolidate_session", twin.turns[0].session_id)
    async_task("learning.tasks.profile_refresh", user.pk)
    async_task("learning.tasks.tool_errors_sync", user.pk, "web_search")
    Task.objects.create(
        id=f"{user.pk:032d}",
        name="consolidate",
        func="learning.tasks.consolidate_session",
        args=(twin.turns[0].session_id,),
        result={"summary": f"Talked about {twin.marker}"},
        started=timezone.now(),
        stopped=timezone.now(),
        success=True,
    )
    return set(OrmQ.objects.values_list("pk", flat=True)) - before


def _extras(twin) -> None:
    user = twin.user
    ProfileCache.objects.create(owner=user, generation=1, bullets=[f"Knows {twin.marker}"])
    ReconciledPair.objects.create(owner=user, low=1, high=2, outcome="neutral")
    llm_count("ok", user=user)
    LogEntry.objects.create(  # a staff edit shown in the admin history
        user=user,
        content_type=ContentType.objects.get_for_model(KnowledgeItem),
        object_id=str(twin.items["marker"].pk),
        object_repr=str(twin.items["marker"]),
        action_flag=CHANGE,
    )


@pytest.mark.cross_user("api-account-erase")
def test_erasing_alices_memory_removes_every_trace_and_leaves_bob_alone(
    twins, alice_api, announced
):
    alice, bob = twins
    queued = {}
    for twin in twins:
        queued[twin.user.username] = _queue_tasks_naming(twin)
        _extras(twin)
    bob_before = snapshot(bob.user)
    item_ids = alice.ids(KnowledgeItem)
    assert fulltext_holds(MARKERS["alice"])

    response = alice_api.post(ERASE, {"confirm": True}, format="json")

    assert response.status_code == 200, response.content
    erased = response.json()["erased"]
    assert erased["knowledge"] == len(item_ids) and erased["turns"] == 4
    assert erased["queued_tasks"] == 4 and erased["task_records"] == 1
    for model in MEMORY_ROWS:
        assert not model.objects.filter(owner=alice.user).exists(), model.__name__
    assert not ProfileCache.objects.filter(owner=alice.user).exists()
    logged = LogEntry.objects.values_list("object_id", flat=True)
    assert list(logged) == [str(bob.items["marker"].pk)]
    assert set(OrmQ.objects.values_list("pk", flat=True)) == queued["bob"]
    assert list(Task.objects.values_list("id", flat=True)) == [f"{bob.user.pk:032d}"]
    assert not fulltext_holds(MARKERS["alice"]) and fulltext_holds(MARKERS["bob"])
    assert removed_for(announced, alice.user.pk) == item_ids
    assert recall(user=alice.user, query="project gaia codeword") == []
    # the account stays usable: same token, settings kept, an empty memory
    assert ApiToken.objects.filter(owner=alice.user).count() == 2
    assert UserSettings.objects.get(user=alice.user).discovery_consent is True
    assert alice_api.get("/api/v1/memories/").json()["count"] == 0
    assert alice_api.get("/api/v1/stats/").json()["conversations"] == {"sessions": 0, "turns": 0}
    assert MARKERS["alice"].encode() not in b"".join(
        alice_api.get("/api/v1/export/").streaming_content
    )
    assert snapshot(bob.user) == bob_before


def test_the_api_needs_an_explicit_confirmation_and_dry_run_only_counts(twins, alice_api):
    alice, _ = twins
    alice_api.get("/api/v1/stats/")  # the token's last use is recorded once
    before = snapshot(alice.user)
    for body in ({}, {"confirm": False}, {"confirm": "yes please"}):
        response = alice_api.post(ERASE, body, format="json")
        assert response.status_code == 400
    assert_error(alice_api.post(ERASE, {}, format="json"), 400, "confirmation_required")
    assert_error(alice_api.post(ERASE, {"confirm": True, "owner": 2}, format="json"), 400)
    dry = alice_api.post(ERASE, {"dry_run": True}, format="json").json()
    assert dry["dry_run"] is True and dry["erased"]["knowledge"] == len(alice.items)
    assert snapshot(alice.user) == before


@pytest.mark.cross_user("web-account-erase")
def test_the_web_page_confirms_with_the_username_before_erasing(twins, alice):
    from django.test import Client

    web = Client()
    web.force_login(alice)
    page = web.get(reverse("web-account-erase"))
    assert page.status_code == 200
    assert f"{len(twins[0].items)} memories" in page.content.decode()
    wrong = web.post(reverse("web-account-erase"), {"username": "bob"})
    assert wrong.status_code == 200 and "not your username" in wrong.content.decode()
    assert KnowledgeItem.objects.for_user(alice).count() == len(twins[0].items)
    done = web.post(reverse("web-account-erase"), {"username": "alice"}, follow=True)
    assert done.redirect_chain[-1][0] == reverse("web-settings")
    assert "Your memory was erased" in done.content.decode()
    assert not KnowledgeItem.objects.for_user(alice).exists()
    assert KnowledgeItem.objects.for_user(twins[1].user).count() == len(twins[1].items)


def test_the_command_shows_counts_and_erases_only_with_yes(twins, alice):
    out = StringIO()
    call_command("memory_erase_user", "--user", "alice", stdout=out)
    assert "Nothing was erased" in out.getvalue()
    assert f"knowledge={len(twins[0].items)}" in out.getvalue()
    assert KnowledgeItem.objects.for_user(alice).exists()
    call_command("memory_erase_user", "--user", "alice", "--yes", stdout=out)
    assert "Erased the memory of alice" in out.getvalue()
    assert not KnowledgeItem.objects.for_user(alice).exists()
    assert KnowledgeItem.objects.for_user(twins[1].user).exists()
    with pytest.raises(CommandError):
        call_command("memory_erase_user", "--user", "nobody", "--yes")


def test_erasing_an_empty_memory_is_harmless(alice):
    assert set(memory_erase_user(user=alice).values()) == {0}
    assert items_generation(alice.pk) >= 1


def test_queued_payloads_are_removed_from_a_redis_broker_too(alice, bob):
    redis = pytest.importorskip("redis")
    from django_q.brokers.redis_broker import Redis

    connection = redis.Redis.from_url("redis://127.0.0.1:6379/8", socket_connect_timeout=1)
    try:
        connection.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    broker = Redis(list_key="gaia-erase-test")
    broker.connection = connection
    broker.list_key = "django_q:gaia-erase-test:q"
    connection.delete(broker.list_key)
    try:
        for func, arg in (
            ("learning.tasks.profile_refresh", alice.pk),
            ("learning.tasks.profile_refresh", bob.pk),
            ("learning.tasks.extract_turn", 77),
        ):
            broker.enqueue(SignedPackage.dumps({"id": f"{func}{arg}", "func": func,
                                                "args": (arg,), "kwargs": {}}))  # fmt: skip
        removed = queued_tasks_erase(Subjects(user={alice.pk}, turn={77}), broker=broker)
        left = [SignedPackage.loads(p)["args"] for p in connection.lrange(broker.list_key, 0, -1)]
        assert removed == 2 and left == [(bob.pk,)]
    finally:
        connection.delete(broker.list_key)


def _queue_skill_and_embedding_tasks(twin) -> set[int]:
    """A skill lesson about one of the twin's sessions and an embedding of their items,
    queued by function reference, plus a finished record of each; returns the queue rows."""
    user, session_pk = twin.user, twin.turns[0].session_id
    before = set(OrmQ.objects.values_list("pk", flat=True))
    async_task(learn_skills, session_pk)
    async_task(embed_rows_task, "knowledge", user.pk, sorted(twin.ids(KnowledgeItem)))
    for n, (func, args) in enumerate(
        (
            ("skills.tasks.learn_skills", (session_pk,)),
            ("memory.embedding.tasks.embed_rows_task", ("knowledge", user.pk, [1, 2])),
        )
    ):
        Task.objects.create(
            id=f"{user.pk:030d}{n:02d}", name=func.rsplit(".", 1)[-1], func=func, args=args,
            started=timezone.now(), stopped=timezone.now(), success=True,
        )  # fmt: skip
    return set(OrmQ.objects.values_list("pk", flat=True)) - before


def test_queued_skill_lessons_and_embeddings_naming_alice_go_with_her_memory(twins):
    alice, bob = twins
    queued = {twin.user.pk: _queue_skill_and_embedding_tasks(twin) for twin in twins}
    payloads = [SignedPackage.loads(row.payload) for row in OrmQ.objects.all()]
    assert {p["func"] for p in payloads} == {learn_skills, embed_rows_task}

    erased = memory_erase_user(user=alice.user)

    assert erased["queued_tasks"] == 2 and erased["task_records"] == 2
    assert set(OrmQ.objects.values_list("pk", flat=True)) == queued[bob.user.pk]
    left = [SignedPackage.loads(row.payload) for row in OrmQ.objects.all()]
    assert [(p["func"], p["args"][0]) for p in left] == [
        (learn_skills, bob.turns[0].session_id),
        (embed_rows_task, "knowledge"),
    ]
    assert left[1]["args"][1] == bob.user.pk
    assert Task.objects.filter(id__startswith=f"{bob.user.pk:030d}").count() == 2
    assert not Task.objects.filter(id__startswith=f"{alice.user.pk:030d}").exists()


@pytest.mark.django_db(transaction=True)
def test_a_large_memory_is_erased_in_short_transactions_and_completely(alice, bob, monkeypatch):
    """Another writer never waits for a whole erase: each transaction deletes one chunk."""
    monkeypatch.setattr(privacy_services, "ERASE_CHUNK", 5, raising=False)
    monkeypatch.setattr(privacy_services, "ERASE_CHUNK_MAX", 10, raising=False)
    for user in (alice, bob):
        memory_create_many(
            user=user, items=[{"content": f"{user} fact {n} topic{n}"} for n in range(40)]
        )
        turns_append_many(
            user=user,
            turns=[{"session_id": f"s{n % 2}", "role": "assistant", "content": f"t{n}"}
                   for n in range(25)],
        )  # fmt: skip

    with rows_per_commit(KnowledgeItem) as items, rows_per_commit(Turn) as turns:
        erased = memory_erase_user(user=alice)

    assert (erased["knowledge"], erased["turns"], erased["sessions"]) == (40, 25, 2)
    assert sum(items) == 40 and len(items) >= 4 and max(items) <= 10
    assert sum(turns) == 25 and len(turns) >= 3 and max(turns) <= 10
    assert not KnowledgeItem.objects.filter(owner=alice).exists()
    assert not Turn.objects.filter(owner=alice).exists()
    assert KnowledgeItem.objects.filter(owner=bob).count() == 40
    assert Turn.objects.filter(owner=bob).count() == 25
