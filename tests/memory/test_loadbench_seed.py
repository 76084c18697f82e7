"""load_bench's seeding: both ways leave each user with the asked-for items and a token;
the bulk way also with their full-text rows, a few turns and bumped index generations."""

import pytest

from accounts.services import token_authenticate
from bench.loadbench.bulk import TURNS_PER_PERSON
from bench.loadbench.seed import seed
from conversations.models import Turn
from memory.dedup import candidate_ids
from memory.models import KnowledgeItem
from memory.recall import recall
from retrieval.models import IndexGeneration
from retrieval.tokens import MODEL_ID

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("bulk", [False, True])
def test_seed_gives_every_user_their_items_searchable_and_a_working_token(bulk):
    tokens = seed(users=2, items=40, prefix=f"lb{int(bulk)}-", out=lambda _: None, bulk=bulk)
    assert len(tokens) == 2
    for name, token in tokens.items():
        user = token_authenticate(token).owner
        assert user.username == name
        items = KnowledgeItem.objects.for_user(user)
        assert items.count() == 40
        assert items.exclude(embedding_model="").count() == 40  # every row has a vector
        assert items.filter(tokens_model=MODEL_ID).count() == 40  # and its token vectors
        text = items.first().content
        assert recall(user=user, query=text, top_k=1)[0].item.content == text
    again = seed(users=2, items=40, prefix=f"lb{int(bulk)}-", out=lambda _: None, bulk=bulk)
    assert KnowledgeItem.objects.filter(owner__username__in=list(again)).count() == 80


def test_bulk_seed_leaves_full_text_turns_and_index_generations_current():
    tokens = seed(users=2, items=5, prefix="lbulk-", out=lambda _: None, bulk=True)
    for token in tokens.values():
        user = token_authenticate(token).owner
        item = KnowledgeItem.objects.for_user(user).first()
        note = item.content.rsplit("(note ", 1)[1].rstrip(")")  # one item's own word
        found = candidate_ids(
            owner_id=user.pk, content=note, category="fact", context="global", entity=""
        )
        assert found == [item.pk]  # its full-text row was written with it
        turns = Turn.objects.filter(owner=user)
        assert turns.count() == TURNS_PER_PERSON
        assert turns.exclude(embedding_model="").count() == TURNS_PER_PERSON
        assert turns.filter(tokens_model=MODEL_ID).count() == TURNS_PER_PERSON
        generation = IndexGeneration.objects.get(user=user)
        assert generation.value > 0 and generation.turn_value > 0
