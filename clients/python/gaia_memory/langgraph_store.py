"""GaiaStore: a LangGraph `BaseStore` kept in one person's memory on the Gaia server.

    from gaia_memory import AsyncMemoryClient, MemoryClient
    from gaia_memory.langgraph_store import GaiaStore

    store = GaiaStore(MemoryClient(url, token), AsyncMemoryClient(url, token))
    graph = builder.compile(checkpointer=checkpointer, store=store)

Needs the `langgraph` package (not a dependency of the client). Each item is one memory:
its text is what the item says (the value's `content`, `text` or `memory` string, or the
fields `index` names, or else the value as JSON), so recall finds it; the namespace's
first part is the memory's context (`("work", "alice")`: context `work`), the whole path
with the key its entity (one item per key, never folded into another), and the exact
namespace, key and value ride in its metadata. `search(prefix, query=...)` is the
server's recall among that namespace's items (its `score` is recall's relevance); without
a query the newest first. `filter` compares the value's fields (`{"type": "note"}`,
`{"stars": {"$gte": 4}}`: `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`). A `put` of None
and `delete` forget the memory (restorable in the web app). TTLs are not kept.

`batch` runs on the sync client, `abatch` on the async one (each may be left out when
only the other is used).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable
from datetime import datetime, timezone
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
)

from gaia_memory._request import _Call
from gaia_memory.async_client import AsyncMemoryClient
from gaia_memory.client import MemoryClient

NS, KEY, VALUE, DEPTH = "langgraph_ns", "langgraph_key", "langgraph_value", "langgraph_depth"
PAGE = 200  # the server's largest page
MAX_RECALL = 100  # recall's largest top_k
TEXT_FIELDS = ("content", "text", "memory")
COMPARE = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}
Steps = Generator[_Call, Any, Any]  # yields calls, is sent their answers, returns a result


def _where(namespace: tuple[str, ...], key: str | None = None) -> dict[str, Any]:
    """The items under `namespace` (a prefix; with `key`: that one item)."""
    conditions: dict[str, Any] = {f"{NS}{i}": part for i, part in enumerate(namespace)}
    if key is not None:
        conditions.update({KEY: key, DEPTH: len(namespace)})
    return {"metadata": conditions or {DEPTH: "*"}}


def _text(value: dict[str, Any], index: list[str] | None) -> str:
    if index:
        parts = [t for path in index for t in get_text_at_path(value, path) if t]
        if parts:
            return "\n".join(parts)
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return value[name]
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _time(text: str | None) -> datetime:
    if not text:
        return datetime.now(timezone.utc)
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _item(row: dict[str, Any], score: float | None = None) -> SearchItem:
    meta = row.get("metadata") or {}
    namespace = tuple(meta[f"{NS}{i}"] for i in range(int(meta[DEPTH])))
    return SearchItem(
        namespace=namespace,
        key=meta[KEY],
        value=meta[VALUE],
        created_at=_time(row.get("created_at")),
        updated_at=_time(row.get("updated_at")),
        score=score,
    )


def _passes(value: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    for field, wanted in (filter or {}).items():
        have = value.get(field)
        if isinstance(wanted, dict) and wanted and all(op in COMPARE for op in wanted):
            try:
                if not all(COMPARE[op](have, operand) for op, operand in wanted.items()):
                    return False
            except TypeError:  # values of different kinds do not compare
                return False
        elif have != wanted:
            return False
    return True


def _listing(where: dict[str, Any], page: int) -> _Call:
    params = {"where": json.dumps(where), "page": page, "page_size": PAGE}
    return _Call("GET", "memories/", params=params)


def _all_rows(where: dict[str, Any]) -> Steps:
    """Every active item under `where`, newest change first."""
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = yield _listing(where, page)
        rows += answer["results"]
        if not answer.get("next"):
            return rows
        page += 1


def _found(namespace: tuple[str, ...], key: str) -> Steps:
    answer = yield _listing(_where(namespace, key), 1)
    return answer["results"][0] if answer["results"] else None


def _get(op: GetOp) -> Steps:
    row = yield from _found(op.namespace, op.key)
    if row is None:
        return None
    found = _item(row)
    return Item(value=found.value, key=found.key, namespace=found.namespace,
                created_at=found.created_at, updated_at=found.updated_at)  # fmt: skip


def _put(op: PutOp) -> Steps:
    row = yield from _found(op.namespace, op.key)
    if op.value is None:
        if row is not None:
            yield _Call("DELETE", f"memories/{int(row['id'])}/")
        return None
    value = dict(op.value)
    metadata = {**_where(op.namespace, op.key)["metadata"], VALUE: value}
    content = _text(value, op.index if isinstance(op.index, list) else None)
    if row is not None:
        body = {"content": content, "metadata": metadata}
        yield _Call("PATCH", f"memories/{int(row['id'])}/", body)
        return None
    path = "/".join((*op.namespace, op.key))
    body = {"content": content, "metadata": metadata, "context": op.namespace[0],
            "entity": f"langgraph:{path}"[:200]}  # fmt: skip
    yield _Call("POST", "memories/", body)
    return None


def _search(op: SearchOp) -> Steps:
    where = _where(op.namespace_prefix)
    wanted = op.offset + op.limit
    if op.query:
        body = {"query": op.query, "top_k": min(MAX_RECALL, wanted), "min_relevance": 0,
                "where": where, "context": op.namespace_prefix[0] if op.namespace_prefix
                else None}  # fmt: skip
        body = {k: v for k, v in body.items() if v is not None}
        answer = yield _Call("POST", "memories/search/", body)
        hits = [_item(h, h.get("relevance")) for h in answer["results"]]
    else:
        hits = [_item(row) for row in (yield from _all_rows(where))]
    kept = [h for h in hits if _passes(h.value, op.filter)]
    return kept[op.offset : wanted]


def _matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


def _namespaces(op: ListNamespacesOp) -> Steps:
    rows = yield from _all_rows(_where(()))
    found = {_item(row).namespace for row in rows}
    kept = [ns for ns in found if all(_matches(ns, c) for c in op.match_conditions or ())]
    if op.max_depth is not None:
        kept = list({ns[: op.max_depth] for ns in kept})
    return sorted(kept)[op.offset : op.offset + op.limit]


def _steps(op: Op) -> Steps:
    if isinstance(op, GetOp):
        return _get(op)
    if isinstance(op, PutOp):
        return _put(op)
    if isinstance(op, SearchOp):
        return _search(op)
    if isinstance(op, ListNamespacesOp):
        return _namespaces(op)
    raise TypeError(f"Unknown store operation: {op!r}")


class GaiaStore(BaseStore):
    """LangGraph's long-term memory store, kept in one person's Gaia memory."""

    def __init__(
        self, client: MemoryClient | None = None, async_client: AsyncMemoryClient | None = None
    ) -> None:
        if client is None and async_client is None:
            raise TypeError("GaiaStore needs a MemoryClient, an AsyncMemoryClient, or both.")
        self.client = client
        self.async_client = async_client

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        if self.client is None:
            raise TypeError("This GaiaStore has no MemoryClient: use the async methods.")
        results: list[Result] = []
        for op in ops:
            steps, answer = _steps(op), None
            try:
                while True:
                    answer = self.client._send(steps.send(answer))
            except StopIteration as done:
                results.append(done.value)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self.async_client is None:
            raise TypeError("This GaiaStore has no AsyncMemoryClient: use the sync methods.")
        results: list[Result] = []
        for op in ops:
            steps, answer = _steps(op), None
            try:
                while True:
                    answer = await self.async_client._send(steps.send(answer))
            except StopIteration as done:
                results.append(done.value)
        return results
