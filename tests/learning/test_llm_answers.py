"""Every job against every answer of the corpus (tests/learning/llm_answers.py).

First through the parser alone (what each shape is read as), then end to end: the fake
server answers in that shape and extraction, the extract action, consolidation,
reconciliation and the profile must all succeed with exactly the expected effect.
"""

from collections import Counter

import pytest

from conversations.models import Turn
from conversations.services.recording import turn_append
from learning import consolidation, extraction, profile, prompts, reconciliation
from learning.llm import shapes
from learning.llm.client import message_text, read_answer
from learning.models import ProfileCache
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.learning import fake_llm as f
from tests.learning import llm_answers as corpus
from tests.learning.test_consolidation import session_with
from tests.learning.test_reconciliation import embedded

pytestmark = pytest.mark.django_db
JOBS = {
    "extraction": (prompts.EXTRACTION_SCHEMA, shapes.operations),
    "facts": (prompts.FACTS_SCHEMA, shapes.facts),
    "consolidation": (prompts.CONSOLIDATION_SCHEMA, shapes.consolidation),
    "reconciliation": (prompts.RECONCILE_SCHEMA, shapes.judgements),
    "profile": (prompts.PROFILE_SCHEMA, shapes.bullets),
}
OP_OUTCOME = {"add": "added", "update": "updated", "delete": "deleted", "noop": "skipped"}


def every(job: str):
    return pytest.mark.parametrize(
        "answer", corpus.CORPUS[job], ids=[a.name for a in corpus.CORPUS[job]]
    )


def read(job: str, answer: corpus.Answer):
    schema, reader = JOBS[job]
    text = message_text({"content": answer.text})
    return read_answer(text, schema=schema, read=reader, cut_off=answer.finish_reason == "length")


def test_the_corpus_covers_the_shapes_the_issue_names():
    names = {a.name for answers in corpus.CORPUS.values() for a in answers}
    names |= {a.name for a in corpus.UNUSABLE}
    for shape in (
        "json-fence",
        "qwen3-thinking",
        "r1-distill-closing-tag-only",
        "llama-prose",
        "gemma-markdown",
        "mistral-trailing-commas",
        "python-dict",
        "upper-case-ops",
        "mem0-memory-events",
        "ids-as-strings",
        "top-level-array",
        "partial-objects",
        "truncated",
    ):
        assert shape in names
    assert corpus.size() >= 60


# --- the parser alone


@every("extraction")
def test_each_extraction_answer_reads_as_its_operations(answer):
    operations = read("extraction", answer)["operations"]
    counted = Counter(OP_OUTCOME[op["op"]] for op in operations)
    assert {k: counted.get(k, 0) for k in answer.expect} == answer.expect
    for op in operations:
        if op["op"] in ("update", "delete"):
            assert op["knowledge_id"] in (corpus.BERLIN, corpus.CAT)
        if op["op"] in ("add", "update"):
            assert op["content"].startswith("User ")


@every("facts")
def test_each_extract_action_answer_reads_as_its_facts(answer):
    assert [fact["content"] for fact in read("facts", answer)["facts"]] == answer.expect


@every("consolidation")
def test_each_consolidation_answer_reads_as_its_summary_and_facts(answer):
    data = read("consolidation", answer)
    assert data["summary"] == answer.expect["summary"]
    assert [fact["content"] for fact in data["facts"]] == answer.expect["facts"]


@every("reconciliation")
def test_each_reconciliation_answer_reads_as_its_judgements(answer):
    judged = [(j["pair"], j["outcome"]) for j in read("reconciliation", answer)["judgements"]]
    assert sorted(judged) == answer.expect


@every("profile")
def test_each_profile_answer_reads_as_its_bullets(answer):
    assert read("profile", answer)["bullets"] == answer.expect


@pytest.mark.parametrize("answer", corpus.UNUSABLE, ids=[a.name for a in corpus.UNUSABLE])
@pytest.mark.parametrize("job", list(JOBS))
def test_an_unusable_answer_is_refused_with_its_reason_by_every_job(job, answer):
    schema, reader = JOBS[job]
    with pytest.raises(ValueError, match=answer.expect):
        read_answer(
            answer.text or "",
            schema=schema,
            read=reader,
            cut_off=answer.finish_reason == "length",
        )


# --- end to end, through the fake server


def memories(user):
    return {
        corpus.BERLIN: memory_create(user=user, content="User lives in Berlin").pk,
        corpus.CAT: memory_create(user=user, content="User has a cat in Berlin").pk,
        corpus.TEA: memory_create(user=user, content="User likes green tea").pk,
    }


def moving_turn(user):
    return turn_append(
        user=user,
        session_id="s1",
        role="user",
        content="I moved from Berlin to Lisbon with my dog Rex; the cat stayed with a friend",
    )


@every("extraction")
def test_extraction_succeeds_with_every_answer_shape(fake_llm, alice, answer):
    ids = memories(alice)
    turn = moving_turn(alice)
    fake_llm.then(answer.step(ids))
    result = extraction.extract_turn(turn_id=turn.pk)
    assert result["status"] == "done", result
    assert {k: result[k] for k in answer.expect} == answer.expect
    assert result["refused"] == 0 and len(fake_llm.requests) == 1  # no repair needed
    turn.refresh_from_db()
    assert (turn.extraction_status, turn.extraction_refused) == ("done", 0)
    active = set(KnowledgeItem.objects.for_user(alice).active().values_list("content", flat=True))
    assert ("User lives in Lisbon" in active) == bool(answer.expect["updated"])
    assert ("User has a cat in Berlin" in active) != bool(answer.expect["deleted"])
    assert ("User has a dog named Rex" in active) == bool(answer.expect["added"])


@every("facts")
def test_the_extract_action_succeeds_with_every_answer_shape(fake_llm, alice_api, answer):
    fake_llm.then(answer.step())
    response = alice_api.post(
        "/api/v1/memories/extract/", {"text": "I have a dog, Rex, and love tea."}, format="json"
    )
    assert response.status_code == 200, response.content
    assert [fact["content"] for fact in response.json()["facts"]] == answer.expect


@every("consolidation")
def test_consolidation_succeeds_with_every_answer_shape(fake_llm, alice, answer):
    session = session_with(alice)
    fake_llm.then(answer.step())
    result = consolidation.consolidate_session(session_pk=session.pk)
    assert result["status"] == "done", result
    assert result["summary"] == answer.expect["summary"]
    assert [fact["content"] for fact in result["facts"]] == answer.expect["facts"]
    assert all("id" in fact for fact in result["facts"])


@every("reconciliation")
def test_reconciliation_succeeds_with_every_answer_shape(fake_llm, alice, answer):
    embedded(alice, "User works at Acme", (1, 0, 0), days_old=10)
    embedded(alice, "User is employed by Acme", (0.99, 0.05, 0))
    berlin = embedded(alice, "User lives in Berlin", (0, 1, 0), days_old=10)
    lisbon = embedded(alice, "User moved to Lisbon", (0, 0.9, 0.3))  # not linked: by vectors
    fake_llm.then(answer.step())
    result = reconciliation.reconcile_user(user=alice)
    assert result["status"] == "done", result
    assert (result["reinforce"], result["contradict"]) == (1, 1)
    berlin.refresh_from_db()
    assert berlin.superseded_by_id == lisbon.pk


@every("profile")
def test_the_profile_succeeds_with_every_answer_shape(fake_llm, alice, answer):
    memory_create(user=alice, content="User lives in Lisbon")
    fake_llm.then(answer.step())
    assert profile.profile_refresh(user=alice)["status"] == "done"
    assert ProfileCache.objects.get(owner_id=alice.pk).bullets == answer.expect


@pytest.mark.parametrize("answer", corpus.UNUSABLE, ids=[a.name for a in corpus.UNUSABLE])
def test_an_unusable_answer_gets_one_repair_request_and_its_good_answer_is_applied(
    fake_llm, alice, answer
):
    ids = memories(alice)
    turn = moving_turn(alice)
    fake_llm.then(answer.step(ids), corpus.EXTRACTION[0].step(ids))
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "done"
    assert len(fake_llm.requests) == 2
    assert fake_llm.requests[1]["messages"][-1]["role"] == "user"
    assert Turn.objects.get(pk=turn.pk).extraction_status == "done"


@pytest.mark.parametrize("answer", corpus.UNUSABLE, ids=[a.name for a in corpus.UNUSABLE])
def test_an_answer_still_unusable_after_its_repair_fails_the_turn_with_the_reason(
    fake_llm, alice, answer
):
    ids = memories(alice)
    turn = moving_turn(alice)
    fake_llm.then(answer.step(ids))  # the same again when asked to repair
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "failed"
    turn.refresh_from_db()
    assert turn.extraction_status == "failed"
    assert answer.expect in turn.extraction_error and "repair" in turn.extraction_error
    assert KnowledgeItem.objects.for_user(alice).count() == 3  # nothing written


def test_json_mode_is_still_requested_from_servers_that_have_it(fake_llm, alice):
    turn = moving_turn(alice)
    fake_llm.then(f.answer({"operations": []}))
    extraction.extract_turn(turn_id=turn.pk)
    assert fake_llm.requests[0]["response_format"] == {"type": "json_object"}
