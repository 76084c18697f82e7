"""The owner's common words are left out of the text the vector stage embeds."""

import pytest

from conversations.search import search_turns
from conversations.services.recording import turns_append_many
from memory.corpus import ITEMS
from memory.recall import recall
from memory.services import memory_create
from retrieval import candidates, vocabulary
from retrieval.filters import scoped

pytestmark = pytest.mark.django_db

HOBBIES = (
    "chess opera tennis violin cello jazz hiking skiing sushi ramen yoga pottery knitting "
    "gardening cycling rowing poetry painting astronomy birdwatching baking surfing judo "
    "fencing archery"
).split()
FRIENDS = (
    "Ann Ben Cleo Dan Eve Finn Gus Hal Ivy Jo Kim Lou Max Ned Oli Pia Quinn Rex Sam Tom Uma "
    "Val Wes Xia Yul"
).split()


@pytest.fixture
def caroline_notes(alice, commit):
    """25 of Alice's items about Caroline, each about one different thing."""
    with commit():
        return [
            memory_create(user=alice, content=f"Caroline tried {hobby} with {friend}")
            for hobby, friend in zip(HOBBIES, FRIENDS, strict=True)
        ]


def test_a_word_in_most_of_the_owners_rows_is_common(alice, caroline_notes):
    common = vocabulary.common_words(alice.pk)
    assert common["caroline"] == common["tried"] == 1.0
    assert not common.keys() & {"chess", "ann"}
    assert "this" not in common  # stop words are never dropped: they shape the question


def test_the_vector_stage_embeds_the_question_without_them(alice, caroline_notes, monkeypatch):
    embedded = []
    real = candidates.query_vector
    monkeypatch.setattr(
        candidates, "query_vector", lambda text: embedded.append(text) or real(text)
    )
    recall(user=alice, query="Has Caroline played chess?")
    assert embedded[0] == "Has played chess?"  # (then words none of hers hold, alone)


def test_never_more_than_half_of_the_questions_words_are_left_out(alice, caroline_notes):
    # In a narrow corpus most words are common; what is left must still say something.
    assert vocabulary.vector_text(alice.pk, "What has Caroline tried?") == "What has tried?"
    assert vocabulary.vector_text(alice.pk, "Caroline?") == "Caroline?"


def test_few_rows_are_not_enough_to_call_a_word_common(alice, commit):
    with commit():
        for hobby, friend in zip(HOBBIES[:5], FRIENDS, strict=False):
            memory_create(user=alice, content=f"Caroline tried {hobby} with {friend}")
    assert vocabulary.common_words(alice.pk) == {}
    assert vocabulary.vector_text(alice.pk, "Does Caroline ski?") == "Does Caroline ski?"


def test_turns_count_too(alice, commit):
    with commit():
        turns_append_many(
            user=alice,
            turns=[
                {"session_id": "s", "role": "user", "content": f"Mel, I tried {hobby} today"}
                for hobby in HOBBIES
            ],
        )
    assert "mel" in vocabulary.common_words(alice.pk)


def test_another_users_rows_never_shape_the_owners_vocabulary(alice, bob, caroline_notes):
    assert vocabulary.common_words(bob.pk) == {}
    assert vocabulary.vector_text(bob.pk, "Has Caroline tried chess?") == (
        "Has Caroline tried chess?"
    )


def test_a_name_in_every_item_no_longer_decides_the_vector_stage(alice, commit):
    """The question names the person every item is about; what it asks decides."""
    with commit():
        for hobby, friend in zip(HOBBIES, FRIENDS, strict=True):
            memory_create(user=alice, content=f"Caroline loves {hobby} and her friend {friend}")
        target = memory_create(user=alice, content="Went swimming with the kids at the lake")
    query = "What does Caroline do with the kids in summer?"
    found = candidates.candidates(ITEMS, alice.pk, query, scoped(ITEMS, alice.pk), 5)
    by_vector = sorted((c for c in found.values() if c.vector_rank), key=lambda c: c.vector_rank)
    assert by_vector[0].id == target.pk


@pytest.fixture
def two_speakers(alice, commit):
    """Jon tells of hiking in the hills; Gina, in fewer of the same words, of a walk."""
    with commit():
        return turns_append_many(
            user=alice,
            turns=[
                {"session_id": f"s{n}", "role": "user", "speaker": "Jon", "content": text}
                if n % 2 == 0
                else {"session_id": f"s{n}", "role": "user", "speaker": "Gina", "content": text}
                for n, text in enumerate(
                    [
                        "We went hiking in the hills on Sunday, it was lovely.",
                        "Same here, a long walk outdoors with my sister.",
                        "My dance studio opens next month.",
                        "My clothing store got its first big order.",
                    ]
                )
            ],
        )


def test_the_speaker_a_question_names_is_found(alice, two_speakers):
    assert vocabulary.named_speaker(alice.pk, "Where did GINA go hiking?") == "gina"
    assert vocabulary.named_speaker(alice.pk, "What do Jon and Gina share?") is None
    assert vocabulary.named_speaker(alice.pk, "Where did Jonathan go?") is None
    assert vocabulary.named_speaker(alice.pk, "Where did they go hiking?") is None


def test_turn_search_prefers_the_turns_of_the_speaker_it_names(alice, two_speakers):
    jon, gina = two_speakers[0], two_speakers[1]
    hits = search_turns(
        user=alice, query="When did Gina go hiking in the hills?", top_k=2, judge=False
    )
    assert hits[0].turn.pk == gina.pk
    hits = search_turns(
        user=alice, query="When did Jon go hiking in the hills?", top_k=2, judge=False
    )
    assert hits[0].turn.pk == jon.pk
    hits = search_turns(
        user=alice, query="When did they go hiking in the hills?", top_k=2, judge=False
    )
    assert hits[0].turn.pk == jon.pk  # no name: the closer words win


def test_another_users_speakers_are_not_the_owners(alice, bob, two_speakers):
    assert vocabulary.named_speaker(bob.pk, "Where did Gina go hiking?") is None


def test_a_new_conversations_speakers_and_common_words_count_at_once(alice, commit):
    """The profile read before the conversation is not reused once the owner has grown:
    a new user's first conversation would have no speakers for two minutes."""
    assert vocabulary.profile(alice.pk).speakers == frozenset()
    with commit():
        turns_append_many(
            user=alice,
            turns=[
                {
                    "session_id": "s",
                    "role": "user",
                    "speaker": "Melanie",
                    "content": f"Melanie tried {hobby} with {friend}",
                }
                for hobby, friend in zip(HOBBIES, FRIENDS, strict=True)
            ],  # fmt: skip
        )
    assert vocabulary.named_speaker(alice.pk, "What did Melanie paint?") == "melanie"
    assert vocabulary.common_words(alice.pk)["melanie"] == 1.0
