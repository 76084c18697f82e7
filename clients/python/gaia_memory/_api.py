"""The API's operations, each described once as a `_Call` and shared by the sync and async
clients (they differ only in how `_send` sends it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from gaia_memory._graph import _GraphApi
from gaia_memory._request import TURN_MAX_CHARS, _Call, _given, _results
from gaia_memory.types import Memory, RecallHit, ToolCallRecord, ToolResult, Turn, TurnHit


class _Api(_GraphApi):
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
        metadata: dict[str, Any] | None = None,
    ) -> Memory:
        """Store one memory; `outcome` says new, deduplicated or conflict."""
        body = _given(
            content=content,
            metadata=metadata,
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
        where: dict[str, Any] | None = None,
        queries: list[str] | None = None,
    ) -> list[RecallHit]:
        """Search memory (hybrid recall), best first. `judge=False` takes the fast path,
        without the server's relevance judge. `where`: conditions on the items (mem0's
        filter grammar, docs/mem0.md), applied before ranking. `queries`: up to 4 other
        phrasings of the question (words it lacks, a hypothetical answer), fused with it
        into one ranking. A time in the query ("yesterday") narrows the search; the answer
        list's `time_read` says what was read."""
        body = _given(
            query=query,
            where=where,
            queries=queries,
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

    def memories(
        self,
        *,
        category: str | None = None,
        context: str | None = None,
        entity: str | None = None,
        where: dict[str, Any] | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> list[Memory]:
        """One page of active memories, newest change first, under these filters."""
        params = _given(
            category=category, context=context, entity=entity, page=page, page_size=page_size,
            where=json.dumps(where) if where is not None else None,
        )  # fmt: skip
        return self._send(_Call("GET", "memories/", params=params, parse=_results(Memory)))

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
        metadata: dict[str, Any] | None = None,
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
            metadata=metadata,
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

    def forget_matching(
        self,
        *,
        context: str | None = None,
        entity: str | None = None,
        older_than: str | None = None,
        categories: list[str] | None = None,
        dry_run: bool = False,
    ) -> dict[str, Any]:
        """Forget every active memory matching all the given filters: a scope (`context`,
        `entity`), an age (`older_than`: "12h", "30d", "2w", "6m", "1y") and `categories`.
        Answers {"forgotten": n, "dry_run": bool, "ids": [...]}; `dry_run=True` only
        counts. Each forgotten memory can be restored (`restore`)."""
        body = _given(
            context=context,
            entity=entity,
            older_than=older_than,
            categories=categories,
            dry_run=dry_run,
        )
        return self._send(_Call("POST", "memories/forget/", body))

    def restore(self, memory_id: int) -> Memory:
        """Bring a forgotten memory back exactly as it was."""
        path = f"memories/{int(memory_id)}/restore/"
        return self._send(_Call("POST", path, parse=Memory.from_json))

    def list_memories(
        self,
        *,
        category: str | None = None,
        context: str | None = None,
        entity: str | None = None,
        source: str | None = None,
        sensitive: bool | None = None,
        include_forgotten: bool | None = None,
        ordering: str | None = None,
        page: int | None = None,
        page_size: int | None = None,
    ) -> dict[str, Any]:
        """One page of stored memories under the filters, newest change first:
        {"results": [Memory, ...], "count": n, "next": url | None}."""
        params = _given(
            category=category,
            context=context,
            entity=entity,
            source=source,
            sensitive=None if sensitive is None else str(sensitive).lower(),
            include_forgotten=None if include_forgotten is None else str(include_forgotten).lower(),
            ordering=ordering,
            page=page,
            page_size=page_size,
        )
        return self._send(_Call("GET", "memories/", params=params, parse=_memory_page))

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
        queries: list[str] | None = None,
    ) -> list[TurnHit]:
        """Search logged turns by keywords, a time range, or both (`judge=False`: the fast
        path, without the server's relevance judge; `queries`: up to 4 other phrasings,
        fused with the query). The answer list's `time_read` says what time was read."""
        body = _given(
            query=query,
            queries=queries,
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

    def dynamic_context(
        self,
        context: str | None = None,
        days: int | None = None,
        *,
        query: str | None = None,
        notes: int | None = None,
    ) -> str:
        """The per-turn context (time, due items) to put before the user's message; with
        `notes` and the message as `query`, that many diary notes of earlier
        conversations that bear on it."""
        params = _given(context=context, days=days, query=query, notes=notes)
        return self._send(
            _Call("GET", "prompt/context/", params=params, parse=lambda b: b["context"])
        )

    def propose_skill(
        self, session_id: str, trigger: str, procedure: str, **fields: Any
    ) -> ToolResult:
        """Document, at the end of a run, a procedure this agent learned in `session_id`
        (seed 001's self-reflection): `tools_used`, `what_worked`, `what_didnt_work`,
        `gotchas`, `optimal_approach`, `unnecessary_tools`, `success_criteria` as
        `fields`. Scrubbed of personal details and reviewed by staff; needs an agent of
        a registered type. `result["outcome"]` says proposed, validated, known, ..."""
        arguments = {"session_id": session_id, "trigger": trigger, "procedure": procedure}
        return self.call_tool("propose_skill", {**arguments, **_given(**fields)})

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


def _memory_page(body: Any) -> dict[str, Any]:
    return {
        "results": [Memory.from_json(row) for row in body["results"]],
        "count": body.get("count"),
        "next": body.get("next"),
    }
