"""Recall through provenance: items whose source turn answers the query.

An item learned from a conversation keeps a link to its turn (`source_turn`). The item is a
summary and the turn keeps the words a question uses: "When did Caroline have a picnic?"
is answered by a turn about a picnic, while the fact drawn from it kept only "Caroline is
lucky to have friends". So recall also searches the owner's turns (the same hybrid search as
`search_past_conversations`) and proposes the items those turns produced, ranked by their
turn's rank. Owners without such links skip this stage (one index seek).
"""

from django.db import connection

from retrieval import keyword, pipeline
from retrieval.corpus import ITEMS, TURNS

TURN_CANDIDATES = 40  # turns searched; the items they produced form the stage's ranking


def has_sourced_items(owner_id: int) -> bool:
    sql = (
        f"SELECT 1 FROM {ITEMS.table} t WHERE t.owner_id = %s "
        "AND t.source_turn_id IS NOT NULL LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [owner_id])
        return cursor.fetchone() is not None


def items_via_turns(owner_id: int, query: str, where: keyword.Where) -> list[int]:
    """Ids of active items allowed by `where`, ordered by the rank of their source turn."""
    if not query.strip() or not has_sourced_items(owner_id):
        return []
    turns = pipeline.fused_candidates(
        TURNS,
        owner_id=owner_id,
        query=query,
        where=keyword.Where().add("t.owner_id = %s", owner_id),
        limit=TURN_CANDIDATES,
    )[:TURN_CANDIDATES]
    if not turns:
        return []
    rank = {fused.id: position for position, fused in enumerate(turns)}
    marks = ", ".join(["%s"] * len(rank))
    sql = (
        f"SELECT t.id, t.source_turn_id FROM {ITEMS.table} t WHERE {ITEMS.active_sql}"
        f"{where.sql()} AND t.source_turn_id IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*where.params, *rank])
        rows = cursor.fetchall()
    rows.sort(key=lambda row: (rank[row[1]], row[0]))
    return [row[0] for row in rows]
