"""The graph follows what learning changes in memory: when extraction corrects or
withdraws a memory, or reconciliation replaces one by another, the relations that
memory gave end unless another live memory still gives them (graph/lineage.py), each
linked to the relation that took its place."""

from collections.abc import Mapping, Sequence
from typing import Any

from graph.lineage import mentions_follow, relations_citing, relations_follow_items
from graph.models import Relation
from graph.selectors import relations_of_turn
from memory.models import KnowledgeItem


def graph_follow(
    *, user: Any, changed: Mapping[int, str | None], fresh: Sequence[Relation] = ()
) -> list[Relation]:
    """Items changed (id -> their text now, None when gone): the relations they no
    longer give end, `ended_by` the one among `fresh` of the same subject and type."""
    if not changed:
        return []
    citing = relations_citing(user=user, item_ids=changed)
    sources = {i for relation in citing for i in relation.item_ids}
    live = KnowledgeItem.objects.for_user(user).active().filter(pk__in=sources)
    return relations_follow_items(
        user=user, changed=changed, live_ids=live.values_list("pk", flat=True), fresh=fresh
    )


def graph_follow_turn(
    *, user: Any, turn_id: int, changed: Mapping[int, tuple[str, str | None]]
) -> list[Relation]:
    """After a turn's extraction (`changed`: item id -> its text before and now, None when
    withdrawn): the relations the turn stated take the place of those its corrections and
    withdrawals ended, and a corrected item is no longer about what it stopped naming."""
    if not changed:
        return []
    fresh = relations_of_turn(user=user, turn_id=turn_id)
    ended = graph_follow(user=user, changed={k: now for k, (_, now) in changed.items()},
                         fresh=fresh)  # fmt: skip
    for item_id, (before, now) in changed.items():
        if now is not None:
            mentions_follow(user=user, item_id=item_id, before=before, after=now)
    return ended


def graph_follow_replaced(*, user: Any, old_id: int, new_id: int) -> list[Relation]:
    """`old_id` was replaced by `new_id` (reconciliation): the relations only the old
    one gave end, linked to those the new one gives."""
    fresh = relations_citing(user=user, item_ids=[new_id])
    return graph_follow(user=user, changed={old_id: None}, fresh=fresh)
