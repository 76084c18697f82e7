"""Background jobs for one user never read or write another user's rows."""

import pytest

from conversations.services.recording import turn_append
from learning import extraction, reconciliation
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.learning import fake_llm as f
from tests.support import vector

pytestmark = pytest.mark.django_db


def embedded(user, content, vec):
    item = memory_create(user=user, content=content)
    KnowledgeItem.objects.filter(pk=item.pk).update(embedding=vector(*vec), embedding_model="m")
    return item


def test_extraction_context_holds_only_the_users_own_items(fake_llm, alice, bob):
    memory_create(user=bob, content="User lives in Lisbon near the river")
    turn = turn_append(
        user=alice, session_id="s", role="user", content="I live in Lisbon near the river too"
    )
    extraction.extract_turn(turn_id=turn.pk)
    assert '"knowledge_id"' not in fake_llm.requests[0]["messages"][1]["content"]


def test_reconciliation_never_pairs_items_of_two_users(fake_llm, alice, bob):
    mine = embedded(alice, "User lives in Berlin", (1, 0, 0))
    embedded(bob, "User lives in Berlin", (1, 0, 0))
    embedded(bob, "User lives in Lisbon", (1, 0.05, 0))
    assert reconciliation.candidate_pairs(user=alice) == []
    fake_llm.then(f.answer({"judgements": [{"pair": 0, "outcome": "contradict"}]}))
    assert reconciliation.reconcile_user(user=alice)["pairs"] == 0
    bob_pairs = reconciliation.candidate_pairs(user=bob)
    assert len(bob_pairs) == 1 and mine.pk not in (bob_pairs[0].older.pk, bob_pairs[0].newer.pk)
    reconciliation.reconcile_user(user=bob)
    mine.refresh_from_db()
    assert mine.is_active and mine.confidence == 0.7
