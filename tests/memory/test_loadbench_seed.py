"""load_bench's seeding: both ways leave each user with the asked-for items and a token."""

import pytest

from accounts.services import token_authenticate
from bench.loadbench.seed import seed
from memory.models import KnowledgeItem
from memory.recall import recall

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
        text = items.first().content
        assert recall(user=user, query=text, top_k=1)[0].item.content == text
    again = seed(users=2, items=40, prefix=f"lb{int(bulk)}-", out=lambda _: None, bulk=bulk)
    assert KnowledgeItem.objects.filter(owner__username__in=list(again)).count() == 80
