"""A person's erase holds off their writes at every door, not only the REST API's: a page's
form answers a 503 page saying so, an agent's writing tool over MCP a tool error (its
reading tools still answer), a task for the person queues itself again for after the
erase, and mem0's `add` for a person being erased is refused like the other writes, while
an `add` after the erase made a new, empty person (docs/mem0.md)."""

import pytest

from conversations.services.recording import turn_append
from core import erasing
from core.erasing import DEFERRED, RETRY_AFTER, erasure_hold
from learning import tasks as learning_tasks
from memory.models import KnowledgeItem
from memory.services import memory_create
from privacy.services import memory_erase_user
from retrieval import tasks as retrieval_tasks
from tests.learning import fake_llm as f
from tests.mcp_rpc import initialize, mcp_tool
from tests.mem0api.conftest import add, tutor  # noqa: F401 (a fixture)
from tests.web.conftest import alice_web  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db
NOTE = "Ana's birthday is on 3 March"


def test_a_pages_form_during_the_erase_answers_a_503_page_and_stores_nothing(
    alice,
    bob,
    alice_web,  # noqa: F811
):
    form = {"content": NOTE, "category": "fact", "context": "", "entity": "", "due_at": ""}
    with erasure_hold(alice):
        refused = alice_web.post("/memories/new/", form)
        page = alice_web.get("/memories/")
    assert refused.status_code == 503
    assert refused["Retry-After"] == str(RETRY_AFTER)
    assert b"Your memory is being erased" in refused.content
    assert page.status_code == 200  # reading goes on
    assert not KnowledgeItem.objects.for_user(alice).exists()
    assert alice_web.post("/memories/new/", form).status_code == 302  # the erase ended


def test_an_mcp_writing_tool_during_the_erase_is_a_tool_error_and_reading_goes_on(alice, alice_api):
    memory_create(user=alice, content="Alice's gym is on Baker Street")
    initialize(alice_api)
    with erasure_hold(alice):
        wrote = mcp_tool(alice_api, "remember", {"content": NOTE})
        read = mcp_tool(alice_api, "recall", {"query": "where is the gym"})
    assert wrote["isError"] is True
    error = wrote["structuredContent"]["error"]
    assert error["code"] == "erase_running" and "again in 2 seconds" in error["message"]
    assert read["isError"] is False and read["structuredContent"]["results"]
    assert not KnowledgeItem.objects.for_user(alice).filter(content=NOTE).exists()


def test_a_task_for_a_person_being_erased_waits_and_queues_itself_again(
    alice, fake_llm, llm_settings, queued, monkeypatch
):
    monkeypatch.setattr(erasing, "RETRY_AFTER", 0)
    turn = turn_append(user=alice, session_id="s1", role="user", content="I moved to Porto")
    fake_llm.then(f.answer({"operations": [{"op": "ADD", "content": "User lives in Porto"}]}))
    queued.clear()
    with erasure_hold(alice):
        assert learning_tasks.extract_turn(turn.pk) == DEFERRED
        assert retrieval_tasks.embed_rows_task("turns", alice.pk, [turn.pk]) == DEFERRED
    assert [(getattr(func, "__name__", func), args) for func, args in queued] == [
        ("extract_turn", (turn.pk,)),
        ("embed_rows_task", ("turns", alice.pk, [turn.pk])),
    ]
    assert fake_llm.requests == [] and not KnowledgeItem.objects.for_user(alice).exists()


def test_mem0s_add_during_delete_users_is_refused_and_after_it_makes_a_new_person(
    tutor,  # noqa: F811
):
    [kept] = add(tutor, "maria", "Maria is allergic to penicillin")
    person = tutor.app.people.get(external_id="maria")
    body = {"messages": [{"role": "user", "content": NOTE}], "user_id": "maria", "infer": False}
    with erasure_hold(person.user):
        refused = tutor.post("/mem0/v3/memories/add/", body, format="json")
    assert refused.status_code == 503, refused.content
    assert refused.json()["error"]["code"] == "erase_running"
    assert refused["Retry-After"] == str(RETRY_AFTER)
    assert list(KnowledgeItem.objects.for_user(person.user).values_list("content", flat=True)) == [
        kept["memory"]
    ]
    assert tutor.delete("/mem0/v2/entities/user/maria/").status_code == 200
    [again] = add(tutor, "maria", NOTE)  # after the erase: a new person, holding only this
    new = tutor.app.people.get(external_id="maria")
    assert new.user_id != person.user_id
    assert list(KnowledgeItem.objects.for_user(new.user).values_list("content", flat=True)) == [
        NOTE
    ]
    assert again["memory"] == NOTE


def test_a_finished_erase_holds_nothing_back_at_these_doors(alice, alice_api):
    memory_erase_user(user=alice)
    initialize(alice_api)
    assert mcp_tool(alice_api, "remember", {"content": NOTE})["isError"] is False
