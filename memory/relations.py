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
from retrieval import perspective
from retrieval.filters import among, any_of
from retrieval.linked import Also


def searches(related: Related | None) -> list[Also]:
    """The search of the related items (by id or by their entity string) for the question
    as it reads with the names put in, searched like the question itself (stage
    "relation"); none when the question names no entity of the graph."""
    if related is None or not (related.items or related.keys):
        return []
    narrowed = any_of(among("id", related.items), among("entity", related.keys))
    return [Also(perspective.as_stored(related.query), [narrowed], "relation")]


def shown(content: str, via: str) -> str:
    """What the judge reads of an item a relation brought: the relation, then the item."""
    return f"{via}. {content}" if via else content
