"""Lineage: every content change of an item keeps the earlier state as a `MemoryVersion`.

An item's id never changes: an edit (API, tool, MCP, web, admin), a fold of a repeat,
an import fold, extraction's corrections and retractions all change the row in place and
record what it said before, when it was replaced, by which source and agent token, and
why. Reconciliation's "contradict" is the one case where one item replaces another
(`superseded_by`): the replaced item keeps its id and says where it went
(`current_item`), and it is listed in the history of the item that replaced it.
"""

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict, Unpack

from accounts.models import ApiToken
from memory.models import KnowledgeItem, MemoryVersion

# A change to one of these is a change of what the memory says: it keeps a version.
VERSIONED = ("content", "category", "domain", "context", "entity")
_COPIED = (*VERSIONED, "sensitive", "confidence", "metadata", "due_at", "source")
REASON_MAX = 300
LINEAGE_MAX = 200


def snapshot(item: KnowledgeItem) -> KnowledgeItem:
    """A copy of the item as it is now, to compare with and to keep after a change."""
    return copy.copy(item)


def says_other(before: KnowledgeItem, after: KnowledgeItem) -> bool:
    return any(getattr(before, name) != getattr(after, name) for name in VERSIONED)


def version_build(
    before: KnowledgeItem,
    *,
    change_source: str,
    token: ApiToken | None = None,
    reason: str = "",
    agent_id: int | None = None,
) -> MemoryVersion:
    """The version row keeping `before` (a snapshot taken before the change); not saved.
    The change's agent is `agent_id`, else the token's."""
    return MemoryVersion(
        owner_id=before.owner_id,
        item_id=before.pk,
        source_turn_id=before.source_turn_id,
        change_source=change_source,
        token=token,
        token_name=token.name if token is not None else "",
        agent_id=agent_id if agent_id is not None else getattr(token, "agent_id", None),
        reason=(reason or "")[:REASON_MAX],
        **{name: getattr(before, name) for name in _COPIED},
    )


class VersionBy(TypedDict, total=False):
    """Who made a change and why: `version_build`'s optional arguments."""

    token: ApiToken | None
    reason: str
    agent_id: int | None


def version_keep(
    before: KnowledgeItem, *, change_source: str, **by: Unpack[VersionBy]
) -> MemoryVersion:
    """Save the version keeping `before`; call inside the transaction of the change."""
    version = version_build(before, change_source=change_source, **by)
    version.save()
    return version


def current_item(*, user: Any, item: KnowledgeItem) -> KnowledgeItem:
    """Where a replaced item went: the end of its `superseded_by` chain (itself if none)."""
    seen = {item.pk}
    while item.superseded_by_id is not None and len(seen) < LINEAGE_MAX:
        following = KnowledgeItem.objects.for_user(user).filter(pk=item.superseded_by_id).first()
        if following is None or following.pk in seen:
            break
        seen.add(following.pk)
        item = following
    return item


def replaced_items(*, user: Any, item_id: int) -> list[KnowledgeItem]:
    """The items replaced by `item_id`, directly or along a chain, newest first."""
    mine = KnowledgeItem.objects.for_user(user)
    found: list[KnowledgeItem] = []
    frontier, seen = [item_id], {item_id}
    while frontier and len(found) < LINEAGE_MAX:
        rows = [r for r in mine.filter(superseded_by__in=frontier) if r.pk not in seen]
        seen.update(r.pk for r in rows)
        found.extend(rows)
        frontier = [r.pk for r in rows]
    return sorted(found, key=lambda r: (r.updated_at, r.pk), reverse=True)


@dataclass
class Entry:
    """One line of an item's history: what it said, from when, written by whom and why."""

    id: int | None  # the version's id; None for the current state and replaced items
    item_id: int
    current: bool
    content: str
    category: str
    context: str
    entity: str
    sensitive: bool
    since: datetime
    until: datetime | None
    source: str
    token: str
    reason: str
    replaced_item: bool = False
    agent: str = ""  # the agent that wrote this state, when one did


def item_history(*, user: Any, item: KnowledgeItem, replaced: bool = True) -> list[Entry]:
    """The item's current state first, then its versions newest first, then the items it
    replaced (reconciliation), each with their own versions. Each entry says who wrote
    that text: the change that brought it, or the item's creation for the first."""
    versions = list(
        MemoryVersion.objects.for_user(user)
        .filter(item=item)
        .select_related("agent", "token__agent")
        .order_by("-created_at", "-pk")
    )
    entries: list[Entry] = []
    for i, state in enumerate([item, *versions]):
        # versions[i] recorded the change that wrote state i (the current state is i=0).
        if i < len(versions):
            by = versions[i]
            since, source, token, reason = by.created_at, by.change_source, by.token_name, by.reason
            writer = by.agent or (by.token.agent if by.token else None)
            agent = writer.name if writer else ""
        else:
            since, source, reason = item.created_at, state.source, ""
            token = item.token.name if item.token_id else ""
            agent = item.agent.name if item.agent_id else ""
        entries.append(
            Entry(
                id=None if i == 0 else state.pk,
                item_id=item.pk,
                current=i == 0 and item.is_active,
                content=state.content,
                category=state.category,
                context=state.context,
                entity=state.entity,
                sensitive=state.sensitive,
                since=since,
                until=None if i == 0 else versions[i - 1].created_at,
                source=source,
                token=token,
                reason=reason,
                agent=agent,
            )
        )
    if replaced:
        for old in replaced_items(user=user, item_id=item.pk):
            for entry in item_history(user=user, item=old, replaced=False):
                entry.replaced_item = entry.id is None
                entry.until = entry.until or old.updated_at
                entries.append(entry)
    return entries
