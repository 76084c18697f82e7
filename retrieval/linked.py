"""Evidence a search of one corpus takes from other searches, run inside retrieval.

- **Through a link** (`Corpus.source`): an item learned from a conversation keeps a link
  to its turn. The item is a summary and the turn keeps the words a question uses: "When
  did Caroline have a picnic?" is answered by a turn about a picnic, while the fact drawn
  from it kept only "Caroline is lucky to have friends". So a search of a corpus with a
  source link also searches the owner's rows of the linked corpus (the same hybrid
  search) and proposes the rows learned from those it finds, with their evidence. Owners
  without such links skip this (`generations.snapshot` tells).
- **Narrower searches** (`Also`): a caller may add searches of the same corpus under
  narrower filters with another wording of the question (recall's graph stage: "what
  does Rui do?" among the items of the entities the question names); the rows they find
  take that evidence under the caller's stage name.

A row keeps the better of its own evidence and the other's: they never add up, so a
linked row does not outrank one that matches better directly.
"""

from collections.abc import Callable
from dataclasses import dataclass

from retrieval import fusion
from retrieval.corpus import Corpus, named
from retrieval.filters import Filters, narrowed, scoped
from retrieval.generations import Snapshot
from retrieval.keyword import Where

LINKED_CANDIDATES = 40  # rows of the linked corpus searched; the rows they produced are proposed
ALSO_CANDIDATES = 40  # rows a narrower search proposes
# A row found through its link counts as much as the linked row did; on a tie it yields to
# a direct match (`pipeline.ranked` orders them so).
INDIRECT = 1.0


@dataclass(frozen=True)
class Also:
    """One more search of the same corpus: `query` under the caller's filters and
    `filters`, its rows proposed with that evidence as stage `stage`."""

    query: str
    filters: Filters
    stage: str


@dataclass(frozen=True)
class Linked:
    """Evidence found by another search: a row whose `column` holds the id of one of that
    search's rows takes that row's evidence."""

    column: str  # SQL on the corpus table `t`
    evidence: dict[int, fusion.Fused]  # the other search's row id -> its evidence


Ranker = Callable[..., list[fusion.Fused]]


def through_link(
    rank: Ranker, corpus: Corpus, owner_id: int, query: str, state: Snapshot
) -> Linked | None:
    """The linked corpus's rows that answer `query`, as evidence for the rows learned from
    them (stage "conversation"); None without a link or without linked rows."""
    if corpus.source is None or corpus.name not in state.sourced or not query.strip():
        return None
    other = named(corpus.source.corpus)
    found = rank(
        other,
        owner_id=owner_id,
        query=query,
        where=scoped(other, owner_id),
        limit=LINKED_CANDIDATES,
        state=state,
    )[:LINKED_CANDIDATES]
    if not found:
        return None
    evidence = {
        f.id: fusion.Fused(
            f.id,
            f.score * INDIRECT,
            frozenset({"conversation"}),
            f.relevance * INDIRECT,
            topic=f.topic,
            framed=f.framed,
        )
        for f in found
    }
    return Linked(corpus.source_column or "", evidence)


def narrower(
    rank: Ranker, corpus: Corpus, owner_id: int, also: Also, where: Where, state: Snapshot
) -> Linked | None:
    """The rows `also` finds within `where` narrowed by its filters, as evidence for
    themselves (stage `also.stage`)."""
    found = rank(
        corpus,
        owner_id=owner_id,
        query=also.query,
        where=narrowed(corpus, where, also.filters),
        limit=ALSO_CANDIDATES,
        state=state,
    )[:ALSO_CANDIDATES]
    evidence = {
        f.id: fusion.Fused(
            f.id, f.score, frozenset({also.stage}), f.relevance, topic=f.topic, framed=f.framed
        )
        for f in found
    }
    return Linked("t.id", evidence) if evidence else None
