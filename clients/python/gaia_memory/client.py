"""MemoryClient and AsyncMemoryClient: the Gaia Memory Server's agent API in Python.

    from gaia_memory import MemoryClient

    memory = MemoryClient("http://127.0.0.1:8000", "gaia_...")
    memory.remember("Prefers concise answers", category="preference")
    for hit in memory.recall("how does the user like answers"):
        print(hit.id, hit.content, hit.score)

`base_url` is the server's root; the token is an API token of the user whose memory this
is (web app: API tokens, or `manage.py create_api_token`). Both default to the
environment variables GAIA_URL and GAIA_TOKEN. Error answers raise `GaiaError`
subclasses (gaia_memory.errors).

AsyncMemoryClient has the same methods, each to be awaited:

    async with AsyncMemoryClient(url, token) as memory:
        hits = await memory.recall("coffee")
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

import httpx

from gaia_memory.errors import GaiaConnectionError, GaiaError, error_for
from gaia_memory.types import Memory, RecallHit, ToolCallRecord, ToolResult, Turn, TurnHit

DEFAULT_URL = "http://127.0.0.1:8000"
API_ROOT = "/api/v1/"
TURN_MAX_CHARS = 100_000  # the server refuses longer turns
# How long a batch write may take to be answered: an accepted batch of 1,000 turns took
# 50-76 s, and a client that gave up at 30 s reported a failure for a stored batch, whose
# retry then stored it twice.
BATCH_TIMEOUT = 600.0


class _Call(NamedTuple):
    method: str
    path: str
    body: Any = None
    params: dict[str, Any] | None = None
    parse: Callable[[Any], Any] = lambda body: body
    batch: bool = False  # waits up to the batch timeout for its answer


def _given(**values: Any) -> dict[str, Any]:
    """The values that were given (not None), times as ISO 8601."""
    return {
        key: value.isoformat() if isinstance(value, datetime) else value
        for key, value in values.items()
        if value is not None
    }


def _results(kind: type) -> Callable[[Any], list]:
    return lambda body: [kind.from_json(row) for row in body["results"]]


def _rows(body: Any) -> list:
    return body["results"]


def api_root(base_url: str) -> str:
    """The API's root for a server root; a URL that already ends in /api/v1 is kept."""
    root = base_url.rstrip("/")
    if root.endswith(API_ROOT.rstrip("/")):
        root = root[: -len(API_ROOT.rstrip("/"))]
    return root + API_ROOT


class _Api:
    """The API's operations, shared by the sync and async clients (they differ in _send)."""

    _send: Callable[[_Call], Any]

    def remember(
        self,
        content: str,
        *,
        category: str | None = None,
        context: str | None = None,
        entity: str | None = None,
        domain: str | None = None,
        sensitive: bool | None = None,
        pinned: bool | None = None,
        due_at: datetime | str | None = None,
        source_turn: int | None = None,
    ) -> Memory:
        """Store one memory; `outcome` says new, deduplicated or conflict."""
        body = _given(
            content=content,
            category=category,
            context=context,
            entity=entity,
            domain=domain,
            sensitive=sensitive,
            pinned=pinned,
            due_at=due_at,
            source_turn=source_turn,
        )
        return self._send(_Call("POST", "memories/", body, parse=Memory.from_json))

    def recall(
        self,
        query: str,
        *,
        top_k: int | None = None,
        category: str | None = None,
        context: str | None = None,
        entity: str | None = None,
        include_sensitive: bool | None = None,
        time_from: datetime | str | None = None,
        time_to: datetime | str | None = None,
        min_relevance: float | None = None,
        judge: bool | None = None,
    ) -> list[RecallHit]:
        """Search memory (hybrid recall), best first. `judge=False` takes the fast path,
        without the server's relevance judge."""
        body = _given(
            query=query,
            top_k=top_k,
            category=category,
            context=context,
            entity=entity,
            include_sensitive=include_sensitive,
            time_from=time_from,
            time_to=time_to,
            min_relevance=min_relevance,
            judge=judge,
        )
        return self._send(_Call("POST", "memories/search/", body, parse=_results(RecallHit)))

    def update(
        self,
        memory_id: int,
        *,
        content: str | None = None,
        category: str | None = None,
        context: str | None = None,
        entity: str | None = None,
        domain: str | None = None,
        sensitive: bool | None = None,
        pinned: bool | None = None,
        due_at: datetime | str | None = None,
        reminded_at: datetime | str | None = None,
        reason: str | None = None,
    ) -> Memory:
        """Change the given fields of a memory (`reminded_at="now"` after a reminder).

        The earlier text is kept in the memory's history, with `reason` if given."""
        body = _given(
            content=content,
            category=category,
            context=context,
            entity=entity,
            domain=domain,
            sensitive=sensitive,
            pinned=pinned,
            due_at=due_at,
            reminded_at=reminded_at,
            reason=reason,
        )
        path = f"memories/{int(memory_id)}/"
        return self._send(_Call("PATCH", path, body, parse=Memory.from_json))

    def history(self, memory_id: int) -> list[dict[str, Any]]:
        """What a memory says now, then each earlier version, newest first (each with
        `content`, `since`, `until`, `source`, `token`, `reason`)."""
        path = f"memories/{int(memory_id)}/history/"
        return self._send(_Call("GET", path, parse=lambda b: b["results"]))

    def forget(self, memory_id: int) -> Memory:
        """Forget a memory (soft: the user can restore it in the web app)."""
        return self._send(_Call("DELETE", f"memories/{int(memory_id)}/", parse=Memory.from_json))

    def search_conversations(
        self,
        query: str | None = None,
        *,
        top_k: int | None = None,
        session_id: str | None = None,
        role: str | None = None,
        time_from: datetime | str | None = None,
        time_to: datetime | str | None = None,
        min_relevance: float | None = None,
        judge: bool | None = None,
    ) -> list[TurnHit]:
        """Search logged turns by keywords, a time range, or both (`judge=False`: the fast
        path, without the server's relevance judge)."""
        body = _given(
            query=query,
            top_k=top_k,
            session_id=session_id,
            role=role,
            time_from=time_from,
            time_to=time_to,
            min_relevance=min_relevance,
            judge=judge,
        )
        return self._send(_Call("POST", "conversations/search/", body, parse=_results(TurnHit)))

    def log_turn(
        self,
        session_id: str,
        role: str,
        content: str,
        *,
        context: str | None = None,
        speaker: str | None = None,
        timestamp: datetime | str | None = None,
    ) -> Turn:
        """Log one conversation turn (the session is created on first use)."""
        body = _given(
            session_id=session_id,
            role=role,
            content=content[:TURN_MAX_CHARS],
            context=context,
            speaker=speaker,
            timestamp=timestamp,
        )
        return self._send(_Call("POST", "conversations/turns/", body, parse=Turn.from_json))

    def log_turns(self, turns: list[dict[str, Any]]) -> list[Turn]:
        """Log several turns in one request, in order, all or nothing. A large batch takes
        a while to be answered: this call waits up to `batch_timeout` (600 s) for it."""
        body = [
            _given(**{**turn, "content": str(turn.get("content", ""))[:TURN_MAX_CHARS]})
            for turn in turns
        ]
        parse = lambda rows: [Turn.from_json(row) for row in rows]  # noqa: E731
        return self._send(_Call("POST", "conversations/turns/", body, parse=parse, batch=True))

    def log_tool_call(
        self,
        tool_name: str,
        *,
        args: Any = None,
        result_summary: str | None = None,
        success: bool = True,
        error: str | None = None,
        duration_ms: int | None = None,
        session_id: str | None = None,
        timestamp: datetime | str | None = None,
    ) -> ToolCallRecord:
        """Log a call of one of the agent's own tools; a failure becomes an error lesson."""
        body = _given(
            tool_name=tool_name,
            args=args if args is None or isinstance(args, (dict, list)) else {"value": args},
            result_summary=result_summary,
            success=success,
            error=error,
            duration_ms=duration_ms,
            session_id=session_id,
            timestamp=timestamp,
        )
        return self._send(_Call("POST", "tool-calls/", body, parse=ToolCallRecord.from_json))

    def tool_calls(
        self,
        *,
        session_id: str | None = None,
        tool_name: str | None = None,
        success: bool | None = None,
    ) -> list[ToolCallRecord]:
        """The latest logged tool calls (one page, newest first)."""
        params = _given(session_id=session_id, tool_name=tool_name, success=success)
        if "success" in params:
            params["success"] = "true" if params["success"] else "false"
        return self._send(
            _Call("GET", "tool-calls/", params=params, parse=_results(ToolCallRecord))
        )

    def system_prompt(self, context: str | None = None) -> str:
        """The stable memory block for the system prompt (identical while memory is)."""
        params = _given(context=context)
        return self._send(
            _Call("GET", "prompt/system/", params=params, parse=lambda b: b["prompt"])
        )

    def dynamic_context(self, context: str | None = None, days: int | None = None) -> str:
        """The per-turn context (time, due items) to put before the user's message."""
        params = _given(context=context, days=days)
        return self._send(
            _Call("GET", "prompt/context/", params=params, parse=lambda b: b["context"])
        )

    def recall_skills(self, query: str, *, top_k: int | None = None) -> list[dict[str, Any]]:
        """Procedures agents of this token's agent type learned (approved: by staff, or by a
        trusted agent of a self-approving type), best first: each {"skill": {...},
        "relevance": ...}. Empty when the agent has no type."""
        body = _given(query=query, top_k=top_k)
        return self._send(_Call("POST", "skills/search/", body, parse=lambda b: b["results"]))

    def agents(self) -> list[dict[str, Any]]:
        """The user's agents (`current` marks the one this token acts as)."""
        return self._send(_Call("GET", "agents/", parse=lambda b: b["results"]))

    def update_agent(
        self,
        agent_id: int,
        *,
        default_context: str | None = None,
        description: str | None = None,
        agent_type: str | None = None,
    ) -> dict[str, Any]:
        """Change an agent's default context (where writes naming none go), description
        or type."""
        body = _given(
            default_context=default_context, description=description, agent_type=agent_type
        )
        return self._send(_Call("PATCH", f"agents/{agent_id}/", body))

    def extract(
        self, text: str, *, store: bool | None = None, context: str | None = None
    ) -> dict[str, Any]:
        """Atomic facts of a text blob (notes, a task's output, a summary), read by the
        server's language model: {"facts": [...], "stored": n}; with store=True each fact
        is remembered (those that cannot be, such as credentials, carry an "error")."""
        body = _given(text=text, store=store, context=context)
        return self._send(_Call("POST", "memories/extract/", body))

    def entities(self, *, kind: str | None = None, q: str | None = None) -> list[dict[str, Any]]:
        """The people, organisations, teams, projects, places... of the user's life (first
        page), each with its aliases."""
        params = _given(kind=kind, q=q)
        return self._send(_Call("GET", "graph/entities/", params=params, parse=_rows))

    def entity(self, entity_id: int) -> dict[str, Any]:
        """An entity's page: {"entity", "relations_now", "relations_before", "memories"}."""
        return self._send(_Call("GET", f"graph/entities/{int(entity_id)}/"))

    def add_entity(
        self, name: str, *, kind: str | None = None, aliases: list[str] | None = None
    ) -> dict[str, Any]:
        """An entity called `name` (the one that already goes by it or an alias, if any)."""
        body = _given(name=name, kind=kind, aliases=aliases)
        return self._send(_Call("POST", "graph/entities/", body))

    def entity_aliases(
        self, entity_id: int, *, add: list[str] | None = None, remove: list[str] | None = None
    ) -> dict[str, Any]:
        """Add or remove names an entity goes by: {"entity", "taken"} (names another has)."""
        body = _given(add=add, remove=remove)
        return self._send(_Call("POST", f"graph/entities/{int(entity_id)}/aliases/", body))

    def merge_entities(self, into: int, other: int) -> dict[str, Any]:
        """`other` is the same as `into`: its aliases, memories and relations move over."""
        return self._send(_Call("POST", f"graph/entities/{int(into)}/merge/", {"other": other}))

    def split_entity(
        self,
        entity_id: int,
        name: str,
        *,
        aliases: list[str] | None = None,
        kind: str | None = None,
        memory_ids: list[int] | None = None,
        relation_ids: list[int] | None = None,
    ) -> dict[str, Any]:
        """A new entity `name` takes these aliases, memories and relations of one."""
        body = _given(
            name=name, aliases=aliases, kind=kind, memory_ids=memory_ids, relation_ids=relation_ids
        )
        return self._send(_Call("POST", f"graph/entities/{int(entity_id)}/split/", body))

    def relations(
        self, *, entity: int | None = None, current: bool | None = None
    ) -> list[dict[str, Any]]:
        """The user's relations, newest first (first page): of one entity, only those that
        hold (current=True) or only those that ended (current=False)."""
        params = _given(entity=entity, current=None if current is None else str(current).lower())
        return self._send(_Call("GET", "graph/relations/", params=params, parse=_rows))

    def relate(
        self,
        subject: int | str,
        type: str,
        object: int | str,
        *,
        subject_kind: str | None = None,
        object_kind: str | None = None,
        valid_from: datetime | str | None = None,
        memory_ids: list[int] | None = None,
        turn_ids: list[int] | None = None,
    ) -> dict[str, Any]:
        """`subject` `type` `object` ("me", "partner_of", "Rui"): each end an entity id or a
        name. A new works_at, lives_in or partner_of ends the one it contradicts."""
        body = _given(
            subject=subject, type=type, object=object, subject_kind=subject_kind,
            object_kind=object_kind, valid_from=valid_from, memory_ids=memory_ids,
            turn_ids=turn_ids,
        )  # fmt: skip
        return self._send(_Call("POST", "graph/relations/", body))

    def end_relation(self, relation_id: int, *, at: datetime | str | None = None) -> dict[str, Any]:
        """The relation stopped holding (now, or `at`); it is kept with its end."""
        path = f"graph/relations/{int(relation_id)}/end/"
        return self._send(_Call("POST", path, _given(at=at)))

    def tools(self) -> list[dict[str, Any]]:
        """The memory tools as OpenAI function-calling schemas."""
        return self._send(_Call("GET", "tools/", parse=lambda b: b["tools"]))

    def call_tool(self, name: str, arguments: dict[str, Any] | str | None = None) -> ToolResult:
        """Run a model's call of a memory tool; a bad call is `ok=False`, not an exception."""
        body = {"name": name, "arguments": arguments if arguments is not None else {}}
        return self._send(_Call("POST", "tools/call/", body, parse=ToolResult.from_json))

    def health(self) -> dict[str, Any]:
        """The server's health (needs no token)."""
        return self._send(_Call("GET", "health/"))


def _body(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _answer(response: httpx.Response, call: _Call) -> Any:
    body = _body(response)
    if response.status_code >= 400 and not (call.path == "health/" and body):
        raise error_for(response.status_code, body, response.headers)
    try:
        return call.parse(body)
    except (KeyError, TypeError, AttributeError) as error:
        raise GaiaError(f"Unexpected answer from the server: {error!r}") from None


def _request_args(
    root: str, headers: dict[str, str], call: _Call, batch_timeout: float
) -> dict[str, Any]:
    args: dict[str, Any] = {"headers": headers, "params": call.params or None}
    if call.batch:
        args["timeout"] = httpx.Timeout(batch_timeout, connect=min(batch_timeout, 30.0))
    if call.body is not None:
        args["content"] = json.dumps(call.body, ensure_ascii=False).encode("utf-8")
        args["headers"] = {**headers, "Content-Type": "application/json"}
    return {"method": call.method, "url": root + call.path, **args}


def _unreachable(api_url: str, call: _Call, error: httpx.TransportError) -> GaiaConnectionError:
    """A request that got no answer; a write that timed out waiting may well be stored."""
    if isinstance(error, httpx.ReadTimeout) and call.method != "GET":
        return GaiaConnectionError(
            f"No answer from {api_url} in time ({error}): the write may have been stored. "
            "Check before sending it again (a larger `timeout=` waits longer)."
        )
    return GaiaConnectionError(f"Cannot reach {api_url}: {error}")


def _settings(base_url: str | None, token: str | None) -> tuple[str, dict[str, str]]:
    root = api_root(base_url or os.environ.get("GAIA_URL") or DEFAULT_URL)
    token = token or os.environ.get("GAIA_TOKEN") or ""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return root, headers


class MemoryClient(_Api):
    """The agent API over HTTP, synchronously (one httpx.Client, reused)."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        batch_timeout: float = BATCH_TIMEOUT,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.api_url, self._headers = _settings(base_url, token)
        self._batch_timeout = max(batch_timeout, timeout)
        self._http = http_client or httpx.Client(timeout=timeout)

    def _send(self, call: _Call) -> Any:
        args = _request_args(self.api_url, self._headers, call, self._batch_timeout)
        try:
            response = self._http.request(**args)
        except httpx.TransportError as error:
            raise _unreachable(self.api_url, call, error) from error
        return _answer(response, call)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class AsyncMemoryClient(_Api):
    """The agent API over HTTP, asynchronously: every method is awaited."""

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        batch_timeout: float = BATCH_TIMEOUT,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.api_url, self._headers = _settings(base_url, token)
        self._batch_timeout = max(batch_timeout, timeout)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)

    async def _send(self, call: _Call) -> Any:
        args = _request_args(self.api_url, self._headers, call, self._batch_timeout)
        try:
            response = await self._http.request(**args)
        except httpx.TransportError as error:
            raise _unreachable(self.api_url, call, error) from error
        return _answer(response, call)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()
