"""The judge only where it decides: the late stage orders the fused candidates, and the
cross-encoder reads only the pairs whose answer changes what is returned."""

import pytest

from memory.recall import recall
from memory.services import memory_create
from retrieval import decide, judge
from retrieval.fusion import Fused
from tests.recall_fixtures import ACCOUNT

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _deciding(settings):
    settings.GAIA_JUDGE_DECIDES = True


@pytest.fixture
def pairs():
    """How many pairs the local cross-encoder has run since the test began."""
    model = judge.local_judge()
    model.clear_cache()
    start = model.pairs_read
    return lambda: model.pairs_read - start


def test_a_clear_winner_is_returned_without_the_judge(alice, account, pairs):
    hits = recall(user=alice, query="Do I have a cat named Miso?")
    assert hits[0].item.content == ACCOUNT[0]
    assert (hits.judged, hits.reason, pairs()) == (False, "settled", 0)
    assert hits.answer()["judge_note"] == "settled"


def test_a_question_about_nothing_stored_is_still_vetoed(alice, account, pairs):
    hits = recall(user=alice, query="quantum sourdough recipes for Martian bakeries")
    assert hits.judged is True and list(hits) == []
    assert 0 < pairs() <= 20  # within the judge's budget (GAIA_JUDGE_CANDIDATES)
    assert recall(user=alice, query="quantum sourdough recipes", min_relevance=0, judge=False)


def test_a_weak_best_candidate_is_judged(alice, account, pairs):
    hits = recall(user=alice, query="Who is my doctor?")
    assert hits.judged is True and hits[0].item.content == ACCOUNT[2]
    assert 0 < pairs() < 20


def test_without_token_vectors_the_judge_reads_the_candidates_as_before(alice, settings, pairs):
    settings.GAIA_LATE = "off"
    for text in ACCOUNT:  # not committed either: no token vectors
        memory_create(user=alice, content=text, source="user")
    hits = recall(user=alice, query="Who is my doctor?")
    assert hits.judged is True and hits[0].item.content == ACCOUNT[2]
    assert pairs() == len(ACCOUNT)


# The rule itself, on candidates made up for it: a fake judge says how relevant each is.


def candidate(row_id: int, *, similarity: float = 0.8, relevance: float = 0.5) -> Fused:
    return Fused(row_id, 1.0 / row_id, frozenset({"vector"}), relevance, similarity)


@pytest.fixture
def fake_judge(monkeypatch):
    """The judge answers from `says` ({text: probability}); `read` lists what it read."""
    read: list[str] = []
    says: dict[str, float] = {}

    def read_pairs(query, asked, texts, deadline):
        read.extend(texts)
        return [says.get(t, 0.0) for t in texts]

    monkeypatch.setattr(judge, "read_pairs", read_pairs)
    return read, says


def decided(fused, late, *, top_k=3, floor=0.2):
    return decide.decided(
        "q",
        fused,
        late,
        lambda ids: {i: f"text {i}" for i in ids},
        top_k=top_k,
        min_relevance=floor,
    )


def test_a_settled_first_candidate_reads_no_pair(fake_judge):
    read, _ = fake_judge
    # The embedding vouches for the first, both stages put it first: nothing to decide.
    fused = [candidate(1), candidate(2, similarity=0.1), candidate(3)]
    verdict = decided(fused, {1: 0.9, 2: 0.8, 3: 0.7})
    assert [f.id for f in verdict.hits] == [1, 2, 3]
    assert (verdict.judged, verdict.reason, read) == (False, "settled", [])


def test_a_close_call_between_the_first_two_is_judged(fake_judge):
    read, says = fake_judge
    says.update({"text 1": 0.3, "text 2": 0.95})
    # Fused puts 1 before 2, MaxSim 2 before 1: the judge decides, and reads nothing else.
    verdict = decided([candidate(1), candidate(2), candidate(3)], {1: 0.8, 2: 0.9, 3: 0.1})
    assert sorted(read) == ["text 1", "text 2"]
    assert verdict.judged is True and [f.id for f in verdict.hits][:2] == [2, 1]


def test_every_weak_candidate_returned_is_read_and_a_vetoed_one_gives_its_place(fake_judge):
    read, says = fake_judge
    weak = [candidate(i, similarity=0.1, relevance=0.05) for i in range(1, 12)]
    says["text 7"] = 0.9  # only the seventh answers
    verdict = decided(weak, {i: 1.0 - i / 100 for i in range(1, 12)}, top_k=3)
    assert [f.id for f in verdict.hits] == [7]
    assert verdict.judged is True and len(read) <= 11


def test_unrelated_candidates_are_all_vetoed_within_the_judges_budget(fake_judge, settings):
    read, _ = fake_judge
    unrelated = [candidate(i, similarity=0.2, relevance=0.4) for i in range(1, 40)]
    verdict = decided(unrelated, {i: 0.5 for i in range(1, 40)}, top_k=5)
    assert verdict.hits == [] and verdict.judged is True
    assert len(read) == settings.GAIA_JUDGE_CANDIDATES


def test_rows_without_token_vectors_keep_their_fused_place():
    fused = [candidate(1), candidate(2), candidate(3), candidate(4)]
    order = decide.staged(fused, {1: 0.1, 3: 0.2, 4: 0.9})  # row 2 has none
    assert order[1].id == 2
    assert [f.score for f in order] == [f.score for f in fused]  # scores stay in order
