"""Every background job run for bob, next to alice's near-identical memory, with a model
that names alice's ids in its answers: alice's rows stay exactly as they were and her
text never reaches the model."""

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from conversations.models import Session, Turn
from learning import consolidation, decay, extraction, profile, reconciliation
from learning.tool_errors import tool_errors_sync
from memory.models import KnowledgeItem
from privacy import retention as prune
from tests.learning import fake_llm as f
from tests.security.twins import seed_twin, snapshot

pytestmark = pytest.mark.django_db


def _embed(twin) -> None:
    """The same vectors for both users' items, so similar pairs exist in both."""
    for index, item in enumerate(twin.items.values()):
        vector = np.zeros(8, dtype=np.float32)
        vector[index % 3] = 1.0  # items 0, 3, 6 ... are near-identical
        vector[7] = 0.01 * index
        KnowledgeItem.objects.filter(pk=item.pk).update(
            embedding=vector.tobytes(), embedding_model="m", context="global"
        )


def test_every_background_job_for_bob_leaves_alices_rows_alone(fake_llm, alice, bob):
    twin_a, twin_b = seed_twin(alice), seed_twin(bob)
    _embed(twin_a)  # bob's are added just before reconciliation, after his recalls
    theirs = twin_a.items["marker"].pk
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {"op": "update", "knowledge_id": theirs, "content": "pwned"},
                    {"op": "delete", "knowledge_id": twin_a.items["shared0"].pk},
                    {"op": "add", "content": "Bob likes chess"},
                ],
                "facts": [{"content": "Bob walks every day"}],
                "summary": "Bob talked about chess.",
                "judgements": [{"pair": n, "outcome": "contradict"} for n in range(20)],
                "bullets": ["Bob likes chess"],
            }
        )
    )
    before, bob_before = snapshot(alice), snapshot(bob)

    for turn in Turn.objects.for_user(bob).filter(extraction_status="pending"):
        result = extraction.extract_turn(turn_id=turn.pk)
        assert (result["status"], result["refused"]) == ("partial", 2)  # alice's ids refused
    for session in Session.objects.for_user(bob):
        consolidation.consolidate_session(session_pk=session.pk, force=True)
    _embed(twin_b)
    assert reconciliation.reconcile_user(user=bob)["contradict"] >= 1
    later = timezone.now() + timedelta(days=400)
    assert decay.decay_user(user=bob, now=later)["faded"] >= 1
    profile.profile_refresh(user=bob)
    tool_errors_sync(user_id=bob.pk, tool_name="web_search")
    assert prune.prune_user(user=bob, now=later)["turns"] >= 1

    assert snapshot(alice) == before
    assert snapshot(bob) != bob_before  # the jobs did their work, on bob's rows
    asked = str([r["messages"] for r in fake_llm.requests])
    assert twin_b.marker in asked and twin_a.marker not in asked
    assert twin_a.private_session not in asked
