"""Recall through provenance: items whose source turn answers the query.

An item learned from a conversation keeps a link to its turn (`source_turn`). The item is a
summary and the turn keeps the words a question uses: "When did Caroline have a picnic?"
is answered by a turn about a picnic, while the fact drawn from it kept only "Caroline is
lucky to have friends". So recall also searches the owner's turns (the same hybrid search as
`search_past_conversations`) and proposes the items those turns produced, with their
turn's evidence, discounted. An item keeps the better of its own evidence and its turn's:
they never add up, so a linked item does not outrank an unlinked one that matches better.
Owners without such links skip this stage (one index seek).
"""

from django.db import connection

from retrieval import fusion, keyword, pipeline
from retrieval.corpus import ITEMS, TURNS

TURN_CANDIDATES = 40  # turns searched; the items they produced are proposed
# An item found through its turn counts as much as the turn did; on a tie it yields to a
# direct match (`pipeline.ranked` orders them so).
INDIRECT = 1.0


def has_sourced_items(owner_id: int) -> bool:
    sql = (
        f"SELECT 1 FROM {ITEMS.table} t WHERE t.owner_id = %s "
        "AND t.source_turn_id IS NOT NULL LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [owner_id])
        return cursor.fetchone() is not None


def items_via_turns(owner_id: int, query: str, where: keyword.Where) -> dict[int, fusion.Fused]:
    """Active items allowed by `where` whose source turn answers `query`, each with its
    turn's score and relevance discounted by INDIRECT (the turn, not the item, matched)."""
    if not query.strip() or not has_sourced_items(owner_id):
        return {}
    turns = pipeline.ranked(
        TURNS,
        owner_id=owner_id,
        query=query,
        where=keyword.Where().add("t.owner_id = %s", owner_id),
        limit=TURN_CANDIDATES,
    )[:TURN_CANDIDATES]
    if not turns:
        return {}
    by_turn = {fused.id: fused for fused in turns}
    marks = ", ".join(["%s"] * len(by_turn))
    sql = (
        f"SELECT t.id, t.source_turn_id FROM {ITEMS.table} t WHERE {ITEMS.active_sql}"
        f"{where.sql()} AND t.source_turn_id IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*where.params, *by_turn])
        rows = cursor.fetchall()
    return {
        item_id: fusion.Fused(
            item_id,
            by_turn[turn_id].score * INDIRECT,
            frozenset({"conversation"}),
            by_turn[turn_id].relevance * INDIRECT,
        )
        for item_id, turn_id in rows
    }
