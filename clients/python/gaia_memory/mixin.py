"""MemoryMixin: long-term memory for any agent class with `process_query` and `_execute_tool`.

    class MyAgent(MemoryMixin, Agent):          # the mixin FIRST
        def __init__(self, **kwargs):
            self.init_memory(client=MemoryClient(url, token), context="work")
            super().__init__(**kwargs)

        def _register_tools(self):
            super()._register_tools()
            self.register_memory_tools()

The mixin must come before the agent class in the bases: it overrides `process_query`
and `_execute_tool` and reaches the agent's own through `super()`. With the agent first
(`class MyAgent(Agent, MemoryMixin)`), Python finds the agent's methods first and the
mixin's are silently skipped; `init_memory` refuses that order with a TypeError.

What it does around the agent:

- `process_query(user_input)`: prepends the per-turn context (time, due items, and with
  `init_memory(inject_notes=N)` the N diary notes of earlier conversations that bear on
  this message) to the input the agent sees, keeps the clean input, and logs the user's turn and the
  assistant's answer to the server (background extraction learns from them).
- `_execute_tool(name, args)`: runs the memory tools on the server; every other tool runs
  as before and is logged with its duration, success and error, so a failing tool
  becomes an error lesson in memory (and the next system prompt warns about it).
- `register_memory_tools()` / `memory_tools()`: the memory tool schemas (OpenAI function
  calling; `extract` among them while the server has a language model), and
  `execute_memory_tool()` the dispatcher for them.
- `extract_memories(text)`: a text blob (a task's output, a context summary) into atomic
  facts, remembered in the active context.
- `list_memories(...)`, `forget_memories(...)` (by scope, age and category, with a dry
  run) and `reflect(trigger, procedure, ...)`: the agent's own account, at the end of a
  run, of a procedure it learned (a skill proposal for staff to review).
- `get_memory_system_prompt()`, `get_memory_dynamic_context()`, `set_memory_context()`.

Memory never takes the agent down: when the server cannot be reached, the hooks log a
warning and the agent carries on without context or logging, and at start-up
`register_memory_tools()` gives no tools and `get_memory_system_prompt()` a block saying
memory cannot be reached (so the model does not claim to remember) instead of raising;
the tools are fetched again on the next `memory_tools()` call. A wrong token still
raises: that is not going to get better.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

from gaia_memory.client import MemoryClient
from gaia_memory.errors import GaiaConnectionError, GaiaError, ServiceUnavailableError

logger = logging.getLogger("gaia_memory")
# Every tool the server may offer (GET /tools/; tests/clients/test_memory_mixin.py checks
# this list against it): each runs on the server, never as one of the agent's own.
MEMORY_TOOL_NAMES = (
    "remember", "recall", "update_memory", "list_memories", "forget", "search_past_conversations",
    "recall_skills", "propose_skill", "relate", "extract",
)  # fmt: skip
MEMORY_UNREACHABLE = (
    "=== MEMORY: UNAVAILABLE ===\n"
    "Long-term memory cannot be reached right now. Nothing from earlier conversations is "
    "available: do not claim to remember, and tell the user if they ask. The memory tools "
    "may fail until it is back."
)
_NOTE_QUERY_CHARS = 2000
_IN_CONTEXT = ("remember", "recall", "extract")  # default to the active memory context
_ANSWER_KEYS = ("result", "answer", "response", "content", "final_answer", "output")
_SUMMARY_CHARS = 2000


def answer_text(result: Any) -> str:
    """The assistant's text in what `process_query` returned (a string, or a dict with
    one of result/answer/response/content/final_answer/output)."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        for key in _ANSWER_KEYS:
            if isinstance(result.get(key), str):
                return result[key]
    return "" if result is None else json.dumps(result, default=str, ensure_ascii=False)


def tool_failure(result: Any) -> str | None:
    """The error a tool reported in its result, or None when it succeeded. Understood:
    {"status": "error", ...}, {"success": false, ...}, {"ok": false, ...}, {"error": "..."}."""
    if not isinstance(result, dict):
        return None
    failed = (
        result.get("status") == "error"
        or result.get("success") is False
        or result.get("ok") is False
        or bool(result.get("error"))
    )
    if not failed:
        return None
    error = result.get("error") or result.get("message") or "the tool reported a failure"
    return error if isinstance(error, str) else json.dumps(error, default=str)


def _summary(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text[:_SUMMARY_CHARS]


class MemoryMixin:
    """Gaia memory for an agent: `class MyAgent(MemoryMixin, Agent)` (the mixin first)."""

    memory: MemoryClient | None = None
    memory_session_id: str = ""
    memory_context: str = "global"

    def init_memory(
        self,
        client: MemoryClient | None = None,
        *,
        session_id: str | None = None,
        context: str = "global",
        log_turns: bool = True,
        inject_notes: int = 0,
    ) -> None:
        """Connect the agent to its memory. Call it before the agent's own __init__.

        `client` defaults to MemoryClient() (GAIA_URL and GAIA_TOKEN from the environment);
        `session_id` names this conversation (a new one by default); `context` is the
        memory context (work, personal, ...; global by default); `inject_notes` puts
        that many diary notes (at most 10) that bear on each message into its per-turn
        context (0, the default: none; the agent can still `recall` them).
        """
        _check_mro(type(self))
        self.memory = client or MemoryClient()
        self.memory_session_id = session_id or f"agent-{uuid.uuid4().hex[:12]}"
        self.memory_context = context or "global"
        self.memory_log_turns = log_turns
        self.memory_inject_notes = max(0, min(int(inject_notes), 10))
        self._memory_tool_schemas: list[dict[str, Any]] | None = None
        self._original_user_input: str | None = None

    # --- prompt material -----------------------------------------------------------

    def get_memory_system_prompt(self) -> str:
        """The stable memory block for the system prompt ("" before init_memory; while
        the server cannot be reached, MEMORY_UNREACHABLE, a block that says so)."""
        if self.memory is None:
            return ""
        memory = self.memory
        return self._unless_unreachable(
            lambda: memory.system_prompt(context=self._context_param()),
            default=MEMORY_UNREACHABLE,
        )

    def get_memory_dynamic_context(self, message: str | None = None) -> str:
        """The per-turn context: current time and due items, and with `inject_notes` the
        diary notes that bear on `message` ("" before init_memory)."""
        if self.memory is None:
            return ""
        notes = getattr(self, "memory_inject_notes", 0)
        if not notes or not (message or "").strip():
            return self.memory.dynamic_context(context=self._context_param())
        return self.memory.dynamic_context(
            context=self._context_param(), query=message[:_NOTE_QUERY_CHARS], notes=notes
        )

    def set_memory_context(self, context: str) -> None:
        """Switch the memory context (the system prompt then shows it plus global)."""
        self.memory_context = context or "global"

    def _context_param(self) -> str | None:
        return None if self.memory_context == "global" else self.memory_context

    # --- the memory tools -----------------------------------------------------------

    def memory_tools(self) -> list[dict[str, Any]]:
        """The memory tools as OpenAI function-calling schemas (fetched once; none, and
        asked again next time, while the server cannot be reached)."""
        if self._memory_tool_schemas is None:
            client = self._client()
            schemas = self._unless_unreachable(client.tools, default=None)
            if schemas is None:
                return []
            self._memory_tool_schemas = schemas
        return self._memory_tool_schemas

    def register_memory_tools(self) -> list[dict[str, Any]]:
        """Offer the memory tools to the model; returns their schemas.

        When the agent keeps its tool schemas in a list attribute `tools`, they are added
        there (once); otherwise add the returned schemas to what you send to the model.
        """
        schemas = self.memory_tools()
        tools = getattr(self, "tools", None)
        if isinstance(tools, list):
            present = {_schema_name(tool) for tool in tools}
            tools.extend(s for s in schemas if _schema_name(s) not in present)
        return schemas

    def execute_memory_tool(self, name: str, arguments: dict[str, Any] | str | None) -> dict:
        """Run a memory tool on the server; returns {"name", "ok", "result" | "error"}.

        `remember`, `recall` and `extract` default to the active memory context.
        """
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                pass  # the server answers with a readable error
        if isinstance(arguments, dict) and name in _IN_CONTEXT:
            if self.memory_context != "global" and not arguments.get("context"):
                arguments = {**arguments, "context": self.memory_context}
        if isinstance(arguments, dict) and name == "propose_skill":
            arguments = {"session_id": self.memory_session_id, **arguments}  # this run's
        return self._client().call_tool(name, arguments).raw

    def list_memories(self, **filters: Any) -> dict[str, Any]:
        """A page of stored memories (the `list_memories` tool: category, context,
        entity, include_sensitive, ordering, page, page_size): {"results", "count",
        "page", "next_page"}."""
        return self._tool_result("list_memories", filters)

    def forget_memories(self, *, dry_run: bool = False, **scope: Any) -> dict[str, Any]:
        """Forget by `id`, or every memory matching a scope (context, entity), an age
        (older_than) and categories: {"count", "ids", "dry_run", "forgotten"}. Try
        `dry_run=True` first; each forgotten memory can be restored."""
        return self._tool_result("forget", {**scope, "dry_run": dry_run})

    def reflect(self, trigger: str, procedure: str, **fields: Any) -> dict[str, Any]:
        """At the end of a run, propose the procedure this agent learned in this session
        (tools_used, what_worked, what_didnt_work, gotchas, optimal_approach,
        unnecessary_tools, success_criteria): {"outcome", "review"}. Scrubbed of the
        user's details and reviewed by staff; needs an agent of a registered type."""
        arguments = {"trigger": trigger, "procedure": procedure, **fields}
        return self._tool_result("propose_skill", arguments)

    def _tool_result(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A memory tool's result, or GaiaError with the server's readable message."""
        answer = self.execute_memory_tool(name, arguments)
        if not answer.get("ok"):
            error = answer.get("error") or {}
            raise GaiaError(
                f"{name}: {error.get('message') or 'failed'}",
                code=error.get("code") or "error",
                fields=error.get("fields"),
            )
        return answer["result"]

    def extract_memories(self, text: str, *, store: bool = True) -> dict[str, Any]:
        """Decompose a text blob (a task's output, a context summary) into atomic facts,
        remembered in the active memory context unless store=False: the server's answer,
        {"facts": [...], "stored": n}. Needs the server's language model (else GaiaError)."""
        context = None if self.memory_context == "global" else self.memory_context
        return self._client().extract(text, store=store, context=context)

    # --- the agent's lifecycle ------------------------------------------------------

    def process_query(self, user_input: str, *args: Any, **kwargs: Any) -> Any:
        """Prepend the per-turn context, log the user's turn, run the agent, log its
        answer. The user's turn goes first, so the session (created by it, in the active
        context) holds the turns and the tool calls in the order they happened."""
        self._original_user_input = user_input
        dynamic = self._quietly(lambda: self.get_memory_dynamic_context(user_input), default="")
        augmented = f"{dynamic}\n\n{user_input}" if dynamic else user_input
        self._log_turn("user", user_input)
        result = super().process_query(augmented, *args, **kwargs)  # type: ignore[misc]
        self._log_turn("assistant", answer_text(result))
        return result

    def _execute_tool(self, tool_name: str, tool_args: Any, *args: Any, **kwargs: Any) -> Any:
        """Memory tools (those the server offered, and any it may offer) run on the server;
        every other tool is timed and logged."""
        if tool_name in MEMORY_TOOL_NAMES or tool_name in self._offered_names():
            return self.execute_memory_tool(tool_name, tool_args)
        started = time.perf_counter()
        try:
            result = super()._execute_tool(tool_name, tool_args, *args, **kwargs)  # type: ignore[misc]
        except Exception as error:
            self._log_tool_call(tool_name, tool_args, started, f"{type(error).__name__}: {error}")
            raise
        failure = tool_failure(result)
        self._log_tool_call(tool_name, tool_args, started, failure, result)
        return result

    # --- plumbing -------------------------------------------------------------------

    def _offered_names(self) -> set[str]:
        """The memory tools' names as the server offered them (none fetched yet: none)."""
        return {_schema_name(s) for s in self._memory_tool_schemas or ()}

    def _client(self) -> MemoryClient:
        if self.memory is None:
            raise RuntimeError("Call init_memory() first (in __init__, before super().__init__).")
        return self.memory

    def _unless_unreachable(self, action: Any, default: Any) -> Any:
        try:
            return action()
        except (GaiaConnectionError, ServiceUnavailableError) as error:
            logger.warning("Gaia memory: %s; carrying on without it.", error)
            return default

    def _quietly(self, action: Any, default: Any = None) -> Any:
        if self.memory is None:
            return default
        try:
            return action()
        except GaiaError as error:
            logger.warning("Gaia memory: %s", error)
            return default

    def _log_turn(self, role: str, content: str | None) -> None:
        if not content or not getattr(self, "memory_log_turns", True):
            return
        self._quietly(
            lambda: self._client().log_turn(
                self.memory_session_id, role, content, context=self.memory_context
            )
        )

    def _log_tool_call(
        self, name: str, args: Any, started: float, error: str | None, result: Any = None
    ) -> None:
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {"raw": args}
        self._quietly(
            lambda: self._client().log_tool_call(
                name,
                args=args if isinstance(args, (dict, list)) else None,
                result_summary=None if error or result is None else _summary(result),
                success=error is None,
                error=error,
                duration_ms=int((time.perf_counter() - started) * 1000),
                session_id=self.memory_session_id,
            )
        )


def _schema_name(schema: Any) -> str | None:
    if isinstance(schema, dict):
        function = schema.get("function")
        return function.get("name") if isinstance(function, dict) else schema.get("name")
    return None


def _check_mro(cls: type) -> None:
    """Refuse `class MyAgent(Agent, MemoryMixin)`: the agent's methods would hide ours."""
    for hook in ("process_query", "_execute_tool"):
        owner = next((base for base in cls.__mro__ if hook in vars(base)), MemoryMixin)
        if not issubclass(owner, MemoryMixin):
            raise TypeError(
                f"{cls.__name__}: put MemoryMixin before {owner.__name__} in the class bases "
                f"(class {cls.__name__}(MemoryMixin, {owner.__name__})); otherwise "
                f"{owner.__name__}.{hook} hides the mixin's."
            )
