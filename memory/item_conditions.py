"""Conditions on a person's items in mem0's filter grammar, as one Django `Q`.

Each function takes one field's value as mem0 writes it (a plain value, `{op: operand}` or
`"*"`) and answers the condition on `KnowledgeItem`; callers combine them with `&`, `|`
and `~` and apply them inside the person's rows (`for_user`) before anything is ranked.

- `metadata`: `{"key": value | {op: operand}, ...}`, ops `eq`, `ne`, `in`, `nin`, `gt`,
  `gte`, `lt`, `lte`, `contains` (case-sensitive substring), `icontains`, `*` (the key is
  set, not null). `ne` and `nin` also pass rows without the key. Comparisons hold only
  between a number and numbers, or a string and strings (a date as ISO text compares).
- `created_at`, `updated_at`: a date or ISO datetime, plain (that instant, or that whole
  day for a date) or with `gt`, `gte`, `lt`, `lte`, `ne`, `in`.
- `categories`: `{"in": [...]}` (any of them), `{"contains": "fin"}` (case-insensitive),
  `"*"`.
- `keywords`: `{"contains": "Porto"}` (case-sensitive), `{"icontains": "porto"}`.
- `memory_ids`: a list of ids (or `{"in": [...]}`).

`tree` reads a whole condition (AND / OR / NOT over these fields) for the house's own
recall and listing. A malformed condition raises ValidationError naming the field and the
shape it takes.
"""

import operator
import re
from datetime import UTC, date, datetime, time, timedelta
from functools import reduce
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import ExpressionWrapper, F, Func, JSONField, Q, Value
from django.db.models.fields.json import (
    HasKey,
    KeyTextTransform,
    KeyTransform,
    KeyTransformExact,
    KeyTransformGt,
    KeyTransformGte,
    KeyTransformIContains,
    KeyTransformLt,
    KeyTransformLte,
)
from django.db.models.functions import StrIndex
from django.db.models.lookups import GreaterThan

from core.jsonsafe import check_json
from memory.models import KnowledgeItem

KEY = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
MAX_VALUES = 100
MAX_DEPTH = 8
COMPARE = {"gt": KeyTransformGt, "gte": KeyTransformGte, "lt": KeyTransformLt,
           "lte": KeyTransformLte}  # fmt: skip
METADATA_OPS = ("eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "icontains", "*")
DATE_OPS = ("gt", "gte", "lt", "lte", "ne", "in")
# The column with its type known before the query resolves it, so each lookup prepares its
# value as the ORM's own `metadata__<key>` lookups do (a key named like a lookup is safe).
METADATA = ExpressionWrapper(F("metadata"), output_field=JSONField())
CONTENT_FIELDS = ("metadata", "created_at", "updated_at", "categories", "keywords", "memory_ids")


def invalid(field: str, message: str) -> ValidationError:
    return ValidationError({"filters": f"{field}: {message}"}, code="invalid")


def _operator(field: str, value: Any, allowed: tuple[str, ...]) -> tuple[str, Any]:
    """(op, operand) of `value`: a plain value is `eq`, `"*"` is `*`."""
    if value == "*":
        op, operand = "*", None
    elif isinstance(value, dict):
        if len(value) != 1:
            raise invalid(field, 'one operator per condition, as {"gte": value}.')
        [(op, operand)] = value.items()
    else:
        op, operand = "eq", value
    if op not in allowed:
        offered = ", ".join(allowed)
        raise invalid(field, f"the operator {op!r} is not offered here (use: {offered}).")
    return op, operand


def _values(field: str, op: str, operand: Any) -> list:
    if not isinstance(operand, list) or not operand or len(operand) > MAX_VALUES:
        raise invalid(field, f"{op} takes a list of 1 to {MAX_VALUES} values.")
    return operand


class JsonType(Func):
    """The JSON type of one key of `metadata`, as the database names it."""

    output_field = KnowledgeItem._meta.get_field("category")

    def __init__(self, key: str) -> None:
        super().__init__(F("metadata"), Value(key))

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list]:
        sql, params = compiler.compile(self.source_expressions[0])
        return f"json_type({sql}, %s)", [*params, f'$."{self.source_expressions[1].value}"']

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list]:
        sql, params = compiler.compile(self.source_expressions[0])
        return f"jsonb_typeof(({sql} -> %s))", [*params, self.source_expressions[1].value]


NUMBER_TYPES = ("integer", "real", "number")
STRING_TYPES = ("text", "string")


class JsonTypeIn(Func):
    """A boolean: the JSON type of `key` is one of `types`."""

    conditional = True
    output_field = KnowledgeItem._meta.get_field("sensitive")

    def __init__(self, key: str, types: tuple[str, ...]) -> None:
        super().__init__(JsonType(key))
        self.types = types

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list]:
        sql, params = compiler.compile(self.source_expressions[0])
        return f"{sql} IN ({', '.join(['%s'] * len(self.types))})", [*params, *self.types]


def _typed(key: str, operand: Any) -> Q:
    """Rows whose `key` holds the kind of value `operand` is (comparisons need one)."""
    if isinstance(operand, bool) or not isinstance(operand, int | float | str):
        raise invalid(f"metadata.{key}", "gt, gte, lt and lte compare with a number or a string.")
    types = NUMBER_TYPES if isinstance(operand, int | float) else STRING_TYPES
    return Q(JsonTypeIn(key, types))


def _plain(field: str, operand: Any) -> Any:
    if isinstance(operand, dict | list) and operand:
        raise invalid(field, "compares with a string, number, boolean or null.")
    return operand


def metadata(value: Any) -> Q:
    """The items whose metadata pass every key's condition in `value`."""
    if not isinstance(value, dict) or not value:
        raise invalid("metadata", 'takes an object of keys, as {"source": "email"}.')
    q = Q()
    for key, condition in value.items():
        q &= _metadata_key(key, condition)
    return q


def _metadata_key(key: Any, condition: Any) -> Q:
    field = f"metadata.{key}"
    if not isinstance(key, str) or not KEY.match(key) or "__" in key:
        raise invalid("metadata", f"{key!r} is not a key (letters, digits, _ and -).")
    op, operand = _operator(field, condition, METADATA_OPS)
    at = KeyTransform(key, METADATA)
    present = Q(HasKey(F("metadata"), key))
    if op == "*":
        return present & ~Q(KeyTransformExact(at, None))
    if op in ("eq", "ne"):
        same = Q(KeyTransformExact(at, _plain(field, operand))) & present
        return same if op == "eq" else ~same
    if op in ("in", "nin"):
        one = Q()
        for v in _values(field, op, operand):
            one |= Q(KeyTransformExact(at, _plain(field, v)))
        one &= present
        return one if op == "in" else ~one
    if op in COMPARE:
        return present & _typed(key, operand) & Q(COMPARE[op](at, operand))
    if not isinstance(operand, str) or not operand:
        raise invalid(field, f"{op} takes a non-empty string.")
    if op == "icontains":
        return present & Q(KeyTransformIContains(at, operand))
    return present & Q(GreaterThan(StrIndex(KeyTextTransform(key, "metadata"), Value(operand)), 0))


def _moment(field: str, value: Any) -> tuple[datetime, datetime | None]:
    """An instant, or (for a date) the day's start and the next day's."""
    if not isinstance(value, str):
        raise invalid(field, 'takes a date or ISO datetime, as "2024-01-31T09:00:00Z".')
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            start = datetime.combine(day, time(), UTC)
            return start, start + timedelta(days=1)
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise invalid(field, f"{value!r} is not a date or ISO datetime.") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)), None


def dated(field: str, value: Any) -> Q:
    """`created_at` / `updated_at` conditions; a date alone means that whole day (UTC)."""
    op, operand = _operator(field, value, (*DATE_OPS, "eq"))
    if op == "*":
        raise invalid(field, "every memory has one: use gt, gte, lt or lte.")
    if op == "in":
        q = Q(pk__in=[])
        for v in _values(field, op, operand):
            q |= _at(field, v)
        return q
    if op in ("eq", "ne"):
        return _at(field, operand) if op == "eq" else ~_at(field, operand)
    start, end = _moment(field, operand)
    if op == "gt" and end is not None:
        return Q(**{f"{field}__gte": end})
    if op == "lte" and end is not None:
        return Q(**{f"{field}__lt": end})
    return Q(**{f"{field}__{op}": start})


def _at(field: str, value: Any) -> Q:
    start, end = _moment(field, value)
    if end is None:
        return Q(**{field: start})
    return Q(**{f"{field}__gte": start, f"{field}__lt": end})


def categories(value: Any) -> Q:
    op, operand = _operator("categories", value, ("in", "contains", "*"))
    if op == "*":
        return ~Q(category="")
    if op == "in":
        names = _values("categories", op, operand)
        if not all(isinstance(n, str) for n in names):
            raise invalid("categories", "in takes a list of category names.")
        return Q(category__in=[n.lower() for n in names])
    if not isinstance(operand, str) or not operand:
        raise invalid("categories", "contains takes a non-empty string.")
    return Q(category__icontains=operand)


def keywords(value: Any) -> Q:
    op, operand = _operator("keywords", value, ("contains", "icontains"))
    if not isinstance(operand, str) or not operand.strip():
        raise invalid("keywords", f"{op} takes a non-empty string.")
    if op == "icontains":
        return Q(content__icontains=operand)
    return Q(GreaterThan(StrIndex(F("content"), Value(operand)), 0))


def memory_ids(value: Any) -> Q:
    if isinstance(value, dict):
        _, value = _operator("memory_ids", value, ("in",))
    ids = _values("memory_ids", "in", value)
    # Ids here are integers (as strings in mem0's answers); any other id matches nothing.
    return Q(pk__in=[int(i) for i in ids if str(i).isascii() and str(i).isdigit()
                     and len(str(i)) <= 18])  # fmt: skip


def condition(field: str, value: Any) -> Q:
    """One content field's condition (`CONTENT_FIELDS`)."""
    try:
        check_json(value)  # no NUL or lone surrogate reaches the database
    except ValueError as error:
        raise invalid(field, str(error)) from None
    if field == "metadata":
        return metadata(value)
    if field in ("created_at", "updated_at"):
        return dated(field, value)
    if field == "categories":
        return categories(value)
    if field == "keywords":
        return keywords(value)
    if field == "memory_ids":
        return memory_ids(value)
    raise invalid(field, f"not a content field (use: {', '.join(CONTENT_FIELDS)}).")


def tree(node: Any, depth: int = 0) -> Q:
    """A whole condition: content fields, `AND` / `OR` (lists), `NOT` (an object, or a list:
    none of them), nestable, sibling keys ANDed. For the house's own recall and listing."""
    if depth > MAX_DEPTH:
        raise invalid("where", f"nests at most {MAX_DEPTH} levels.")
    if not isinstance(node, dict) or not node:
        raise invalid("where", 'takes an object, as {"metadata": {"source": "email"}}.')
    q = Q()
    for key, value in node.items():
        if key in ("AND", "OR"):
            if not isinstance(value, list) or not value:
                raise invalid("where", f"{key} takes a non-empty list of objects.")
            parts = [tree(part, depth + 1) for part in value]
            q &= reduce(operator.and_ if key == "AND" else operator.or_, parts)
        elif key == "NOT":
            parts = [tree(part, depth + 1) for part in (value if isinstance(value, list)
                                                         else [value])]  # fmt: skip
            if not parts:
                raise invalid("where", "NOT takes an object or a non-empty list of them.")
            q &= ~reduce(operator.or_, parts)
        else:
            q &= condition(key, value)
    return q
