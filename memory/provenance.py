"""Recall through provenance: items whose source turn answers the query.

An item learned from a conversation keeps a link to its turn (`source_turn`). The item is a
summary and the turn keeps the words a question uses: "When did Caroline have a picnic?"
is answered by a turn about a picnic, while the fact drawn from it kept only "Caroline is
lucky to have friends". So recall also searches the owner's turns (the same hybrid search as
`search_past_conversations`) and proposes the items those turns produced, with their
turn's evidence, discounted. An item keeps the better of its own evidence and its turn's:
they never add up, so a linked item does not outrank an unlinked one that matches better.
Owners without such links skip this stage (`corpus.snapshot` tells).
"""

from retrieval import fusion, keyword, pipeline
from retrieval.corpus import ITEMS, TURNS, Snapshot

TURN_CANDIDATES = 40  # turns searched; the items they produced are proposed
# An item found through its turn counts as much as the turn did; on a tie it yields to a
# direct match (`pipeline.ranked` orders them so).
INDIRECT = 1.0


def turn_evidence(owner_id: int, query: str, snapshot: Snapshot) -> pipeline.Linked | None:
    """The owner's turns that answer `query`, as evidence for the items learned from them:
    each turn's score and relevance discounted by INDIRECT (the turn, not the item,
    matched). None when the owner has no item linked to a turn (`snapshot`)."""
    if not query.strip() or ITEMS.name not in snapshot.sourced or not ITEMS.source_column:
        return None
    turns = pipeline.ranked(
        TURNS,
        owner_id=owner_id,
        query=query,
        where=keyword.Where().add("t.owner_id = %s", owner_id),
        limit=TURN_CANDIDATES,
        state=snapshot,
    )[:TURN_CANDIDATES]
    if not turns:
        return None
    evidence = {
        turn.id: fusion.Fused(
            turn.id, turn.score * INDIRECT, frozenset({"conversation"}), turn.relevance * INDIRECT
        )
        for turn in turns
    }
    return pipeline.Linked(ITEMS.source_column, evidence)
