"""Recall through the graph: items of the entities a question names, and of those one
relation away.

"What does my partner do?" names Rui by his role; "Rui is an architect" shares no word
with the question. When a question names entities of the owner's graph
(`graph.selectors.related`), their items and those of the entities one relation away are
searched with the question as it reads with the names put in ("what does Rui do?"),
within the same filters, and proposed with that evidence: each keeps the better of its
own and this, like an item found through its source turn. The judge reads each such
item after the relation that brought it ("my partner is Rui"), so it judges the chain,
not a text about a stranger. A question naming no entity skips all of this.
"""

from graph.selectors import Related
from retrieval import fusion, keyword, perspective, pipeline
from retrieval.corpus import ITEMS, Snapshot

RELATION_CANDIDATES = 40  # items searched among the related ones


def scope(where: keyword.Where, related: Related) -> keyword.Where:
    """`where`, narrowed to the related items (by id or by their entity string)."""
    arms, params = [], []
    if related.items:
        arms.append(f"t.id IN ({', '.join(['%s'] * len(related.items))})")
        params += list(related.items)
    if related.keys:
        arms.append(f"t.entity IN ({', '.join(['%s'] * len(related.keys))})")
        params += list(related.keys)
    narrowed = keyword.Where(list(where.clauses), list(where.params))
    return narrowed.add(f"({' OR '.join(arms)})", *params)


def relation_evidence(
    owner_id: int, related: Related, where: keyword.Where, snapshot: Snapshot
) -> pipeline.Linked | None:
    """The related items that answer the question as it reads with the names put in, as
    evidence for themselves (stage "relation")."""
    if not related.items and not related.keys:
        return None
    found = pipeline.ranked(
        ITEMS,
        owner_id=owner_id,
        query=perspective.as_stored(related.query),  # as the question itself is searched
        where=scope(where, related),
        limit=RELATION_CANDIDATES,
        state=snapshot,
    )[:RELATION_CANDIDATES]
    evidence = {
        f.id: fusion.Fused(f.id, f.score, frozenset({"relation"}), f.relevance) for f in found
    }
    return pipeline.Linked("t.id", evidence) if evidence else None


def shown(content: str, via: str) -> str:
    """What the judge reads of an item a relation brought: the relation, then the item."""
    return f"{via}. {content}" if via else content
