"""Erasing one item leaves no trace and is never learned again."""

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_q.models import Task

from accounts.services import user_settings_update
from conversations.models import Session, ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from discovery.models import Finding
from discovery.services import finding_approve, finding_propose_many
from learning import consolidation, extraction
from learning.models import ReconciledPair
from learning.tool_errors import tool_errors_sync
from memory import lineage, services
from memory.changes import items_generation
from memory.models import KnowledgeItem, MemoryVersion
from memory.recall import recall
from privacy import services as privacy_services
from privacy.services import REDACTED
from retrieval.documents import turn_text
from retrieval.embedding import from_bytes, get_embedder
from tests.learning import fake_llm as f
from tests.security.traces import fulltext_holds, removed_for, rows_pointing_at

pytestmark = pytest.mark.django_db
MARK = "zorblax7"
GET_ENDPOINTS = [
    ("api-memories", {"include_forgotten": "true", "include_superseded": "true"}),
    ("api-memory-upcoming", {"days": 366}),
    ("api-prompt-system", {}),
    ("api-prompt-context", {"days": 366}),
    ("api-prompt-profile", {}),
    ("api-stats", {}),
    ("api-entities", {}),
    ("api-contexts", {}),
    ("api-export", {}),
    ("api-sessions", {}),
    ("api-session-detail", {}),
    ("api-tool-calls", {}),
    ("api-tool-call-summary", {}),
]


def _answers(alice_api) -> str:
    """Everything alice can read through the API, as one text."""
    texts = []
    for name, params in GET_ENDPOINTS:
        kwargs = {"session_id": "chat"} if name == "api-session-detail" else {}
        response = alice_api.get(reverse(name, kwargs=kwargs), params)
        assert response.status_code == 200, (name, response.status_code)
        body = response.streaming_content if getattr(response, "streaming", False) else None
        texts.append(b"".join(body).decode() if body else response.content.decode())
    for name, body in (
        ("api-memory-search", {"query": MARK, "top_k": 100, "include_sensitive": True}),
        ("api-turn-search", {"query": MARK, "top_k": 100}),
    ):
        texts.append(alice_api.post(reverse(name), body, format="json").content.decode())
    return "\n".join(texts)


def test_an_erased_item_is_gone_from_answers_indexes_rows_and_its_source_turn(
    alice, alice_api, announced
):
    turn = turn_append(
        user=alice, session_id="chat", role="user", content=f"My dog is called {MARK} today"
    )
    item = services.memory_create(
        user=alice,
        content=f"User's dog is called {MARK}",
        entity=f"pet:{MARK}",
        context="home",
        source_turn=turn,
    )
    ReconciledPair.objects.create(owner=alice, low=1, high=item.pk, outcome="neutral")
    keep = services.memory_create(user=alice, content="User likes long walks", source_turn=turn)
    assert MARK in _answers(alice_api) and fulltext_holds(MARK)
    assert item.pk in [h.item.pk for h in recall(user=alice, query=f"dog {MARK}")]
    generation = items_generation(alice.pk)

    assert alice_api.post(reverse("api-memory-erase", args=[item.pk])).status_code == 204

    assert MARK not in _answers(alice_api)
    assert alice_api.get(reverse("api-memory-detail", args=[item.pk])).status_code == 404
    assert not fulltext_holds(MARK)
    assert item.pk not in [h.item.pk for h in recall(user=alice, query=f"dog {MARK}", top_k=100)]
    assert rows_pointing_at({item.pk}) == []
    assert item.pk in removed_for(announced, alice.pk)
    assert items_generation(alice.pk) > generation
    assert not ReconciledPair.objects.filter(high=item.pk).exists()
    turn.refresh_from_db()
    assert (turn.content, turn.extraction_status) == (REDACTED, "skipped")
    assert turn.consolidated_at is not None and turn.embedding is None
    keep.refresh_from_db()
    assert keep.source_turn_id == turn.pk  # other items learned from that turn stay


def _echo(server, marker: str):
    """A model that repeats facts it is shown: it learns `marker` whenever the marker is in
    its prompt, and nothing otherwise (as a real model would)."""

    def step(handler) -> None:
        prompt = str(server.requests[-1]["messages"])
        fact = {"content": f"User's dog is called {marker}", "category": "fact"}
        seen = marker in prompt
        f.answer(
            {
                "operations": [{"op": "add", **fact}] if seen else [],
                "facts": [fact] if seen else [],
                "summary": f"Talked about {marker}" if seen else "Small talk.",
            }
        )(handler)

    return step


def _conversation(user, session_id: str, marker: str) -> list[Turn]:
    lines = [
        "Good morning, how are you doing today?",
        f"My new dog is called {marker} and he is two",
        "We walk in the park every single morning",
        "The weather has been lovely this whole week",
        "I should buy a new leash for the walks",
    ]
    turns = [turn_append(user=user, session_id=session_id, role="user", content=t) for t in lines]
    Turn.objects.filter(pk__in=[t.pk for t in turns]).update(
        timestamp=timezone.now() - timezone.timedelta(hours=2)
    )
    return turns


def _learned(user, marker: str) -> list[str]:
    return list(
        KnowledgeItem.objects.for_user(user)
        .filter(content__contains=marker)
        .values_list("content", flat=True)
    )


def test_re_extraction_and_consolidation_never_learn_an_erased_item_again(
    fake_llm, alice, settings
):
    settings.GAIA_IDLE_CONSOLIDATE_MINUTES = 30
    fake_llm.then(_echo(fake_llm, MARK))
    turns = _conversation(alice, "walks", MARK)
    assert extraction.extract_turn(turn_id=turns[1].pk)["added"] == 1
    learned = KnowledgeItem.objects.for_user(alice).get(content__contains=MARK)
    assert learned.source_turn_id == turns[1].pk

    privacy_services.memory_erase(user=alice, item_id=learned.pk)
    asked = len(fake_llm.requests)
    Turn.objects.filter(pk=turns[1].pk).update(extraction_status="failed")  # as if it had
    call_command("memory_extract_pending", "--retry-failed", stdout=open("/dev/null", "w"))
    call_command("memory_consolidate", stdout=open("/dev/null", "w"))
    session = Session.objects.for_user(alice).get(session_id="walks")
    consolidation.consolidate_session(session_pk=session.pk, force=True)
    later = turn_append(
        user=alice, session_id="walks", role="user", content="Tell me what you remember of me"
    )
    extraction.extract_turn(turn_id=later.pk)  # the erased turn is in its recent history

    assert len(fake_llm.requests) > asked  # the jobs did run and ask the model
    assert not any(MARK in str(r["messages"]) for r in fake_llm.requests[asked:])
    assert _learned(alice, MARK) == []


def test_a_fact_learned_by_consolidation_after_a_failed_extraction_stays_erased(
    fake_llm, alice, settings
):
    settings.GAIA_IDLE_CONSOLIDATE_MINUTES = 30
    _conversation(alice, "evening", MARK)
    last = turn_append(user=alice, session_id="evening", role="user",
                       content=f"Remember again that my dog is {MARK} please")  # fmt: skip
    fake_llm.then(f.content("not json at all"))
    assert extraction.extract_turn(turn_id=last.pk)["status"] == "failed"
    fake_llm.then(_echo(fake_llm, MARK))
    result = consolidation.consolidate_session(session_pk=last.session_id, force=True)
    assert result["status"] == "done"
    for content in _learned(alice, MARK):
        item = KnowledgeItem.objects.for_user(alice).get(content=content)
        privacy_services.memory_erase(user=alice, item_id=item.pk)
    asked = len(fake_llm.requests)

    call_command("memory_extract_pending", "--retry-failed", stdout=open("/dev/null", "w"))

    assert not any(MARK in str(r["messages"]) for r in fake_llm.requests[asked:])
    assert _learned(alice, MARK) == []
    batch = Turn.objects.for_user(alice).filter(session_id=last.session_id)
    assert set(batch.values_list("extraction_status", flat=True)) == {"skipped"}


def test_erasing_a_retracted_item_erases_its_earlier_text(fake_llm, alice):
    item = services.memory_create(user=alice, content=f"User owns a cat named {MARK}")
    turn = turn_append(user=alice, session_id="s", role="user", content="The cat went to my sister")
    fake_llm.then(f.answer({"operations": [{"op": "delete", "knowledge_id": item.pk,
                                            "reason": "given away"}]}))  # fmt: skip
    extraction.extract_turn(turn_id=turn.pk)
    item.refresh_from_db()
    assert item.content.startswith("Retracted: ") and item.forgotten_at is not None
    assert [v.content for v in item.versions.all()] == [f"User owns a cat named {MARK}"]

    privacy_services.memory_erase(user=alice, item_id=item.pk)

    assert _learned(alice, MARK) == []
    assert not MemoryVersion.objects.filter(content__contains=MARK).exists()


def test_erasing_a_legacy_item_erases_the_tombstone_that_quotes_it(alice):
    item = services.memory_create(user=alice, content=f"User owns a cat named {MARK}")
    tombstone = KnowledgeItem.objects.create(
        owner=alice, content=f"Retracted: {item.content} (reason: given away)",
        forgotten_at=timezone.now(),
    )  # fmt: skip
    KnowledgeItem.objects.filter(pk=item.pk).update(superseded_by=tombstone)

    privacy_services.memory_erase(user=alice, item_id=item.pk)

    assert _learned(alice, MARK) == []
    assert not KnowledgeItem.objects.filter(pk=tombstone.pk).exists()


def test_erasing_an_approved_discovery_item_keeps_it_from_being_proposed_again(alice):
    user_settings_update(user=alice, discovery_consent=True)
    finding = finding_propose_many(
        user=alice, findings=[{"scanner": "projects", "content": f"Works on {MARK}"}]
    ).created[0]
    item = finding_approve(user=alice, finding_id=finding.pk).knowledge

    privacy_services.memory_erase(user=alice, item_id=item.pk)

    finding.refresh_from_db()
    assert (finding.content, finding.status, finding.knowledge) == (REDACTED, "rejected", None)
    again = finding_propose_many(
        user=alice, findings=[{"scanner": "projects", "content": f"Works on {MARK}"}]
    )
    assert again.created == [] and again.rejected == 1
    assert not Finding.objects.filter(content__contains=MARK).exists()


def test_erasing_an_automatic_error_item_removes_the_error_text_it_came_from(alice):
    call = tool_call_record(
        user=alice, tool_name="vault", success=False, error=f"vault {MARK} unreachable"
    )
    tool_errors_sync(user_id=alice.pk, tool_name="vault")
    item = KnowledgeItem.objects.for_user(alice).get(source="error_auto")

    privacy_services.memory_erase(user=alice, item_id=item.pk)

    call.refresh_from_db()
    assert call.error == REDACTED
    assert not ToolCall.objects.filter(error__contains=MARK).exists()
    assert _learned(alice, MARK) == []


def test_erasing_an_item_deletes_the_task_records_that_quote_it(alice, bob):
    item = services.memory_create(user=alice, content=f"Summary fact {MARK}")
    quoting = {"status": "done", "facts": [{"content": item.content, "id": item.pk}]}
    for pk, result in (("a" * 32, quoting), ("b" * 32, {"status": "done", "facts": []})):
        Task.objects.create(
            id=pk,
            name=pk,
            func="learning.tasks.consolidate_session",
            args=(1,),
            result=result,
            started=timezone.now(),
            stopped=timezone.now(),
            success=True,
        )

    privacy_services.memory_erase(user=alice, item_id=item.pk)

    assert list(Task.objects.values_list("id", flat=True)) == ["b" * 32]


def test_erasing_one_version_removes_its_words_and_its_turn_and_nothing_else(alice, alice_api):
    turn = turn_append(user=alice, session_id="chat", role="user", content=f"My dog is {MARK}")
    item = services.memory_create(user=alice, content=f"User's dog is {MARK}", source_turn=turn)
    lineage.memory_supersede(
        user=alice, item_id=item.pk, content="User's dog is Rex", source="llm_extract"
    )
    services.memory_update(user=alice, item_id=item.pk, content="User's dog is Rex, a beagle")
    [marked] = MemoryVersion.objects.filter(item=item, content__contains=MARK)
    url = reverse("api-memory-version", args=[item.pk, marked.pk])

    assert alice_api.delete(url).status_code == 204

    assert not fulltext_holds(MARK)
    assert not MemoryVersion.objects.filter(content__contains=MARK).exists()
    turn.refresh_from_db()
    assert turn.content == REDACTED
    item.refresh_from_db()
    assert item.content == "User's dog is Rex, a beagle" and item.is_active
    assert list(item.versions.values_list("content", flat=True)) == ["User's dog is Rex"]


def test_erasing_an_item_erases_the_text_of_all_its_versions(alice, alice_api):
    item = services.memory_create(user=alice, content=f"User's dog is {MARK}")
    services.memory_update(user=alice, item_id=item.pk, content="User's dog is Rex")

    assert alice_api.post(reverse("api-memory-erase", args=[item.pk])).status_code == 204

    assert not fulltext_holds(MARK) and not MemoryVersion.objects.exists()


def test_erasing_an_item_removes_the_copy_of_its_turn_that_the_reply_keeps_as_context(
    alice, alice_api, django_capture_on_commit_callbacks
):
    """Each turn is indexed and embedded with the end of the turn it answers: erasing what
    was learned from a turn takes that copy out of the reply (row, full-text, vector)."""
    with django_capture_on_commit_callbacks(execute=True):  # as committed writes
        source = turn_append(
            user=alice, session_id="chat", role="user", content=f"My dog is called {MARK} now"
        )
        reply = turn_append(
            user=alice, session_id="chat", role="assistant", content="What a lovely name for a pup"
        )
        later = turn_append(user=alice, session_id="chat", role="user", content="He likes it")
        item = services.memory_create(
            user=alice, content=f"User's dog is called {MARK}", source_turn=source
        )
    reply.refresh_from_db()
    assert MARK in reply.context_text and reply.embedding is not None
    assert fulltext_holds(MARK)
    found = alice_api.post(reverse("api-turn-search"), {"query": MARK}, format="json")
    assert str(reply.pk) in found.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        privacy_services.memory_erase(user=alice, item_id=item.pk)

    reply.refresh_from_db()
    assert reply.content == "What a lovely name for a pup"  # the reply itself stays
    assert reply.context_text == REDACTED
    assert not fulltext_holds(MARK)
    assert MARK not in _answers(alice_api)
    # Embedded again (on commit) from the text it now has, not the erased one.
    embedder = get_embedder()
    expected = embedder.embed(
        [turn_text(speaker="", role="assistant", content=reply.content, context_text=REDACTED)]
    )[0]
    assert reply.embedding_model == embedder.model_id
    # int8 activations are quantized per batch, so a text embedded beside others comes out
    # a hair different (cosine ~0.99) from the same text alone: compare as vectors.
    stored = from_bytes(reply.embedding, len(expected))
    before = embedder.embed(
        [
            turn_text(
                speaker="",
                role="assistant",
                content=reply.content,
                context_text=f"My dog is called {MARK} now",
            )
        ]
    )[0]
    assert float(stored @ expected) > 0.98
    assert float(stored @ expected) > float(stored @ before)
    later.refresh_from_db()
    assert later.context_text == "What a lovely name for a pup"  # other replies untouched
