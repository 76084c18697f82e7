"""mem0's `filters` read as a list of scopes (one per OR branch): whose memory, which of
their agents, which run, and which of those items (`Scope.where`).

mem0 sends `{"user_id": "alice"}`, or a logical root: `{"AND": [{...}, {...}]}`,
`{"OR": [...]}`, `{"NOT": {...}}` or `{"NOT": [{...}, ...]}` (none of them), nestable;
sibling keys are ANDed. An entity's value is given plainly, as `{"eq": v}`, `{"in": [v,
...]}` (one branch per value) or `"*"` / `{"*": ...}` (any). The content fields
(`metadata`, `created_at`, `updated_at`, `timestamp` (the date `add` gave: created_at),
`categories`, `keywords`, `memory_ids`) become conditions on the items
(`memory.item_conditions`), applied inside each person's rows. What this server cannot
honour (`app_id`, `ne` on an entity, NOT over an entity, `text`, `expiration_date`)
answers 501 by name, and an unknown key 400: nothing is silently dropped.
"""

import operator
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Q

from accounts.people import clean_external_id
from memory.item_conditions import CONTENT_FIELDS, condition

ENTITY_FIELDS = ("user_id", "agent_id", "run_id")
MAX_BRANCHES = 50
MAX_DEPTH = 8
ANY = "*"
ALIASES = {"timestamp": "created_at"}  # add's timestamp dates the memory
NOT_OFFERED = {
    "app_id": "app_id is not supported here (memories belong to one of the app's people: "
    "use user_id)",
    "text": "text is not supported by this server (use search's query, or keywords)",
    "keywords_search": "keywords_search is not supported by this server (use keywords)",
    "expiration_date": "expiration_date is not supported by this server (nothing expires)",
}
KNOWN = ("AND", "OR", "NOT", *ENTITY_FIELDS, *CONTENT_FIELDS, *ALIASES, *NOT_OFFERED)


class FilterNotSupported(Exception):
    """A filter this server does not offer (answered 501 by the view)."""


@dataclass(frozen=True)
class Scope:
    user_id: str | None = None  # None: any of the app's people
    agent_id: str | None = None
    run_id: str | None = None
    any_user: bool = False  # user_id "*" was asked for
    where: Q = field(default_factory=Q)  # the items' conditions (content fields)

    @property
    def named(self) -> bool:
        return bool(self.user_id or self.agent_id or self.run_id or self.any_user)


def _merge(a: Scope, b: Scope) -> Scope | None:
    """Both scopes at once, or None when they name two different values of a field."""
    merged = a
    for name in ENTITY_FIELDS:
        value = getattr(b, name)
        if value is None:
            continue
        if getattr(a, name) not in (None, value):
            return None
        merged = replace(merged, **{name: value})
    return replace(merged, any_user=a.any_user or b.any_user, where=a.where & b.where)


def _and(left: list[Scope], right: list[Scope]) -> list[Scope]:
    out = [m for a in left for b in right if (m := _merge(a, b)) is not None]
    if len(out) > MAX_BRANCHES:
        raise ValidationError({"filters": f"At most {MAX_BRANCHES} OR branches."})
    return out


def _field(name: str, value: Any) -> list[Scope]:
    if name in NOT_OFFERED:
        raise FilterNotSupported(f"filters: {NOT_OFFERED[name]}")
    if name not in ENTITY_FIELDS:
        if name not in (*CONTENT_FIELDS, *ALIASES):
            raise ValidationError(
                {"filters": f"{name!r} is not a filter key (use: {', '.join(KNOWN)})."}
            )
        return [Scope(where=condition(ALIASES.get(name, name), value))]
    if isinstance(value, dict):
        if len(value) != 1:
            raise ValidationError({"filters": f"{name}: one operator per field."})
        [(op, operand)] = value.items()
        if op == ANY:
            value = ANY
        elif op == "eq":
            value = operand
        elif op == "in":
            if not isinstance(operand, list) or not operand:
                raise ValidationError({"filters": f"{name}: in takes a non-empty list."})
            return [s for v in operand for s in _field(name, v)]
        else:
            raise FilterNotSupported(f"filters: the {op} operator is not supported here")
    if value == ANY:
        return [Scope(any_user=True)] if name == "user_id" else [Scope()]
    if name == "user_id":
        return [Scope(user_id=clean_external_id(value))]
    if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
        raise ValidationError({"filters": f"{name} must be a non-empty string."})
    return [Scope(**{name: str(value).strip()[:128]})]


def scopes(node: Any, depth: int = 0) -> list[Scope]:
    """The OR branches `node` (mem0 filters) asks for, each a Scope."""
    if not isinstance(node, dict):
        raise ValidationError({"filters": "Must be an object."})
    if depth > MAX_DEPTH:
        raise ValidationError({"filters": f"Nest AND, OR and NOT at most {MAX_DEPTH} deep."})
    result = [Scope()]
    for key, value in node.items():
        if key in ("AND", "OR"):
            if not isinstance(value, list) or not value:
                raise ValidationError({"filters": f"{key} takes a non-empty list of objects."})
            parts = [scopes(part, depth + 1) for part in value]
            if key == "AND":
                branch = [Scope()]
                for part in parts:
                    branch = _and(branch, part)
            else:
                branch = [s for part in parts for s in part]
            result = _and(result, branch)
        elif key == "NOT":
            result = _and(result, [_negated(value, depth + 1)])
        else:
            result = _and(result, _field(key, value))
    return result


def _negated(value: Any, depth: int) -> Scope:
    """`NOT {...}` (that condition fails) or `NOT [{...}, ...]` (each of them fails)."""
    parts = value if isinstance(value, list) else [value]
    if not parts or not all(isinstance(part, dict) and part for part in parts):
        raise ValidationError({"filters": "NOT takes an object or a non-empty list of them."})
    where = Q()
    for part in parts:
        branches = scopes(part, depth)
        if any(s.named for s in branches):
            raise FilterNotSupported(
                "filters: NOT over user_id, agent_id or run_id is not supported by this "
                "server (NOT takes content fields: metadata, categories, dates, keywords)"
            )
        where &= ~reduce(operator.or_, [branch.where for branch in branches])
    return Scope(where=where)


def required_scopes(node: Any) -> list[Scope]:
    """Like `scopes`, but every branch must name a user, agent or run (as mem0 requires)."""
    found = scopes(node)
    if not found or any(not s.named for s in found):
        raise ValidationError(
            {"filters": "Name user_id, agent_id or run_id (in every OR branch)."},
            code="required",
        )
    return found
