"""How recall reads and orders what it finds: a question naming the person read in the
first person with its verbs, relevances that agree with the order of the hits, and diary
notes ranked with their age (seed 004)."""

import json
import time
from datetime import date, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from conversations.search import search_turns
from conversations.services.recording import turn_append, turns_append_many
from memory.models import KnowledgeItem
from memory.recall import NOTE_WEIGHT, note_weight, recall
from memory.services import memory_create, memory_session_note
from retrieval import fusion, judge, keyword, perspective, pipeline, unsaid
from retrieval.perspective import Holder

MAYA = Holder.of(["Maya Brennan"], form="Maya")
BENCH = Path(__file__).resolve().parents[2] / "bench" / "data"


@pytest.mark.parametrize(
    "asked, read",
    [
        ("does Maya have any allergies", "do I have any allergies"),
        ("Does Maya have a dentist?", "Do I have a dentist?"),
        ("Why is Maya going to physio?", "Why am I going to physio?"),
        ("Is Maya allergic to nuts?", "Am I allergic to nuts?"),
        ("Has Maya booked the flights?", "Have I booked the flights?"),
        ("Maya is locked out, who can let Maya in?", "I am locked out, who can let me in?"),
        ("When Maya has a migraine, what helps?", "When I have a migraine, what helps?"),
        ("What is Maya Brennan's job?", "What is my job?"),
        ("Tell Maya about the trip", "Tell me about the trip"),
        ("gift ideas for Maya's son", "gift ideas for my son"),
        # Other names and a question without hers are read as asked.
        ("Does Jonas have any allergies?", "Does Jonas have any allergies?"),
        ("Is there a bin day this week?", "Is there a bin day this week?"),
    ],
)
def test_a_question_naming_the_person_is_read_as_she_would_ask_it(asked, read):
    assert perspective.for_judge(asked, MAYA) == read


def test_relevances_agree_with_the_order_of_the_hits():
    assert fusion.in_order([0.4, 0.383, 0.423, 0.233, 0.367]) == [0.423, 0.423, 0.423, 0.367, 0.367]
    assert fusion.in_order([0.9, 0.5, 0.2]) == [0.9, 0.5, 0.2]
    assert fusion.in_order([]) == []


ACCOUNT = [
    "Went to Brazil (Salvador and Rio) in October 2024 for Carlos's wedding",
    "Friend Carlos lives in Salvador, Brazil; User went to his wedding in 2024",
    "User bought the flat in 2018 and renovated the kitchen in 2024",
    "Drove to Galicia for a long weekend in Santiago de Compostela in 2022",
    "Cancelled HBO Max in February 2026",
    "User runs 10 km along the river on Saturday mornings",
    "User's half marathon personal best is 1:52, set in Porto in 2023",
    "Family holiday in São Miguel, Azores, from 18 to 25 July 2026",
    "User's partner Ana Luísa is a paediatric nurse at Hospital de São João",
    "User plays padel with Nuno, Filipe and Marta on Tuesdays at 20:00",
    "Planning a trip to Tokyo and Kyoto in April 2027 for the wedding anniversary",
    "User's flight to Ponta Delgada leaves Porto on 18 July 2026 at 07:05",
]


@pytest.mark.parametrize(
    "question",
    [
        "Which marathon did I run in 2024?",
        "where did I travel in 2024",
        "What do I do on Saturday mornings?",
        "when is the next trip",
    ],
)
def test_a_hit_never_shows_a_higher_relevance_than_the_hits_before_it(
    alice, commit, settings, question
):
    settings.GAIA_JUDGE_DEADLINE = 120  # a loaded machine must not turn a verdict into none
    with commit():
        for text in ACCOUNT:
            memory_create(user=alice, content=text, source="user")
        turns_append_many(
            user=alice,
            turns=[
                {"session_id": "s1", "role": "user", "content": text}
                for text in ACCOUNT[:6] + ["I ran the Porto half marathon in 2023"]
            ],
        )
    keyword.clear_caches()
    for hits in (
        recall(user=alice, query=question, top_k=10, min_relevance=0),
        recall(user=alice, query=question, top_k=10, min_relevance=0, judge=False),
        search_turns(user=alice, query=question, top_k=10, min_relevance=0),
    ):
        relevances = [h.relevance for h in hits]
        assert len(relevances) >= 3
        assert relevances == sorted(relevances, reverse=True), hits


def test_a_notes_weight_blends_what_it_says_with_how_recent_it_is():
    now = timezone.now()
    assert note_weight(False, now - timedelta(days=400), now) == 1.0  # a fact is not aged
    assert note_weight(True, now, now) == pytest.approx(NOTE_WEIGHT)
    assert note_weight(True, now - timedelta(days=10), now) == pytest.approx(NOTE_WEIGHT * 0.85)
    assert note_weight(True, now - timedelta(days=3650), now) == pytest.approx(
        NOTE_WEIGHT * 0.7, abs=0.005
    )


def _note(user, session: str, text: str, days_ago: int) -> KnowledgeItem:
    turn = turn_append(user=user, session_id=session, role="user", content=text)
    when = timezone.now() - timedelta(days=days_ago)
    note = memory_session_note(
        user=user,
        session_id=session,
        content=text,
        context="global",
        source_turn=turn,
        first=when.date(),
        last=when.date(),
    )
    KnowledgeItem.objects.filter(pk=note.pk).update(created_at=when)
    return note


def test_a_recent_diary_note_comes_before_an_older_one_that_says_as_much(alice, commit):
    with commit():
        old = _note(alice, "march", "Talked with User about planning the garden beds", 60)
        new = _note(alice, "june", "Talked with User about planning the garden beds again", 1)
        memory_create(user=alice, content="User's sister Niamh is a midwife", source="user")
    keyword.clear_caches()
    hits = recall(user=alice, query="the garden beds plan", min_relevance=0, category="note")
    ids = [h.item.pk for h in hits]
    assert ids[:2] == [new.pk, old.pk]
    # The same with room for one: the recent note is the one recall hands over.
    (only,) = recall(
        user=alice, query="the garden beds plan", min_relevance=0, category="note", top_k=1
    )
    assert only.item.pk == new.pk
    assert date.fromisoformat(only.item.metadata["session_date"]) > date.fromisoformat(
        old.metadata["session_date"]
    )


LENA = [
    "Lena has a cat named Mochi",
    "Lena lives in Berlin",
    "Lena works as a UX designer at Zalando",
    "Lena's favourite food is ramen",
    "Lena is learning Japanese",
    "Lena's sister is called Anna",
    "Lena plays the cello",
]


@pytest.fixture
def lena(alice, commit, settings):
    settings.GAIA_JUDGE_DEADLINE = 120  # a loaded machine must not turn a verdict into none
    alice.first_name = "Lena"
    alice.save(update_fields=["first_name"])
    with commit():
        stored = {t: memory_create(user=alice, content=t, source="tool").pk for t in LENA}
    keyword.clear_caches()
    return stored


def test_a_few_memories_about_the_person_do_not_all_look_like_the_answer(alice, lena):
    pet = recall(user=alice, query="what pet does Lena have")
    assert pet and pet[0].item.pk == lena["Lena has a cat named Mochi"]
    assert len(pet) <= 2, pet
    assert all(h.relevance < 0.9 for h in pet[1:]), pet
    horse = recall(user=alice, query="What's Lena's horse called?")
    assert len(horse) <= 1 and all(h.relevance < 0.9 for h in horse), horse
    cello = recall(user=alice, query="what instrument does she play")
    assert cello and cello[0].item.pk == lena["Lena plays the cello"]


def test_the_words_that_name_something_are_the_rarer_ones():
    assert unsaid.topical("am should any take keep") == []
    assert unsaid.topical("dog marathon Pokémon") == ["dog", "marathon", "Pokémon"]
    assert unsaid.without("Which marathon did I run in 2024?", ["marathon"]) == (
        "Which did I run in 2024?"
    )
    assert unsaid.without("What's MY horse's name?", ["horse", "my"]) == "What's 's name?"


def test_a_question_about_something_never_said_gets_nothing_on_its_other_words(
    alice, commit, settings
):
    # A whole account (201 memories), so the person's own word counts say what they
    # never mention. Each question shares a rarer word with their memories ("visit",
    # "espresso"); what it asks about (Iceland, machines on Mars) is in none of them.
    settings.GAIA_JUDGE_DEADLINE = 120  # a loaded machine must not turn a verdict into none
    account = json.loads((BENCH / "account-joao.json").read_text(encoding="utf-8"))
    with commit():
        stored = {
            m["content"]: memory_create(user=alice, content=m["content"], source="user").pk
            for m in account["memories"]
        }
    keyword.clear_caches()  # the word counts as a question asked a minute later sees them
    for question in (
        "When did I last visit Iceland?",
        "the migratory habits of espresso machines on Mars",
    ):
        hits = recall(user=alice, query=question)
        assert hits.judged and not hits, (question, hits)
    # What the person did say is still found, by rarer words and by paraphrase.
    for question, answer in (
        ("Who is my endocrinologist?", "Endocrinologist: Dra. Patrícia Leal at CUF Porto"),
        (
            "When does the dog need his shots?",
            "Farrusco's annual check-up and rabies vaccine are on 27 May 2026",
        ),
    ):
        hits = recall(user=alice, query=question)
        assert hits and hits[0].item.pk == stored[answer], (question, hits)


def test_a_paraphrase_of_what_the_person_said_is_not_taken_for_something_never_said(
    alice, commit, settings
):
    # A fact told directly among many others; the question uses words none of the
    # person's rows hold ("comments", "ordered"), and the fact answers it in other words:
    # near the unsaid words by meaning, it keeps its relevance.
    settings.GAIA_JUDGE_DEADLINE = 120  # a loaded machine must not turn a verdict into none
    account = json.loads((BENCH / "account-joao.json").read_text(encoding="utf-8"))
    told = {
        "How do I like review comments ordered?": (
            "User wants code reviews to list blocking issues first"
        ),
    }
    with commit():
        for memory in account["memories"]:
            memory_create(user=alice, content=memory["content"], source="user")
        stored = {t: memory_create(user=alice, content=t, source="user").pk for t in told.values()}
    keyword.clear_caches()  # the word counts as a question asked a minute later sees them
    for question, fact in told.items():
        hits = recall(user=alice, query=question)
        assert hits and hits[0].item.pk == stored[fact], (question, hits)


def test_phrasings_add_to_what_the_question_says_and_take_nothing_from_it():
    # The caller's phrasings lead the judge to "User is 41" ("user's ... age"); read with
    # the question alone, the daughter's age is the answer, and that reading is kept
    # (with the fused order, the daughter then comes first: João's account with its
    # phrasings, docs/measurements.md).
    asked = "How old is my daughter?"
    texts = [
        "Daughter Beatriz, 9, in 4th grade at Escola Básica do Bonfim",
        "User is 41; birthday 27 September",
        "Beatriz does ballet on Mondays and Wednesdays",
    ]
    question = pipeline.judged_question([asked, "user's daughter age", "daughter's school year"])
    deadline = time.monotonic() + 120  # a loaded machine must not turn a verdict into none
    phrased = judge._scores(question, texts, deadline)
    alone = judge._scores(asked, texts, deadline)
    assert phrased[0] < phrased[1] and alone[0] > alone[1]  # the two readings disagree
    read = judge.read_pairs(question, asked, texts, deadline)
    assert read == [max(a, b) for a, b in zip(phrased, alone, strict=True)]
    assert read[0] > phrased[0]  # the daughter keeps what the question alone said of her
    assert judge.read_pairs(asked, asked, texts, deadline) == alone  # no phrasings: one reading
