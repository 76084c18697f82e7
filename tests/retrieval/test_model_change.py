"""An install whose vectors came from all-MiniLM-L6-v2 moves to bge-small-en-v1.5.

Re-embedding runs in the background (a job queued at start-up, or `memory_backfill` with
progress); recall keeps answering meanwhile from the vectors of the current model it has,
and never ranks vectors of two models together.
"""

from io import StringIO

import pytest
from django.core.management import call_command

from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create
from retrieval.embedding import current_model_id
from retrieval.embedding.services import embeddings_backfill, embeddings_missing
from retrieval.indexes import index_for

pytestmark = pytest.mark.django_db

FACTS = [
    "User's cat is called Miso",
    "User swims at the municipal pool on Thursday mornings",
    "User is a pharmacist at a hospital in Leeds",
    "User's brother Tomasz lives in Gdansk",
]


@pytest.fixture
def minilm_install(alice, commit, settings):
    settings.GAIA_LOCAL_EMBED_MODEL = "all-minilm-l6-v2"
    with commit():
        items = [memory_create(user=alice, content=text, source="user") for text in FACTS]
    assert set(KnowledgeItem.objects.values_list("embedding_model", flat=True)) == {
        "all-MiniLM-L6-v2-int8"
    }
    settings.GAIA_LOCAL_EMBED_MODEL = "bge-small-en-v1.5"
    return items


def test_recall_answers_while_the_new_model_has_no_vectors_yet(alice, minilm_install):
    assert current_model_id() == "bge-small-en-v1.5-int8"
    assert embeddings_missing() == {"items": len(FACTS), "turns": 0}
    index = index_for(ITEMS, alice.pk, current_model_id(), 384)
    assert index.size == 0  # the old model's vectors are not searched in the new space
    hits = recall(user=alice, query="Where does my brother live?", min_relevance=0)
    assert hits[0].item.content == "User's brother Tomasz lives in Gdansk"  # by its words


def test_the_backfill_moves_rows_to_the_new_model_in_bounded_steps(alice, minilm_install):
    assert embeddings_backfill(limit=1) == 1
    index = index_for(ITEMS, alice.pk, current_model_id(), 384)
    assert index.size == 1  # searched by meaning: only what has a vector of this model
    assert recall(user=alice, query="Which city is my brother in?")  # answered meanwhile
    while embeddings_backfill(limit=1):
        pass
    assert set(KnowledgeItem.objects.values_list("embedding_model", flat=True)) == {
        "bge-small-en-v1.5-int8"
    }
    assert index_for(ITEMS, alice.pk, current_model_id(), 384).size == len(FACTS)
    hits = recall(user=alice, query="Where do I go swimming?")
    assert hits[0].item.content == "User swims at the municipal pool on Thursday mornings"


def test_the_backfill_command_shows_its_progress(alice, minilm_install):
    out = StringIO()
    call_command("memory_backfill", "--batch", "2", stdout=out)
    printed = out.getvalue()
    assert "Model bge-small-en-v1.5-int8: 4 items and 0 turns lack a vector." in printed
    assert "embedded 2/4" in printed and "embedded 4/4" in printed
    assert "Done: 4 embedded, 0 still missing." in printed
