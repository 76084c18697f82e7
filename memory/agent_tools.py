"""The tools an agent is offered (six for the user's memory, `relate` for the graph of
their life, and those apps above memory register: skills' `recall_skills`, learning's
`extract` while a language model is configured) as OpenAI function-calling schemas, and
their dispatcher; memory's own schemas are written in memory/tool_schemas.py. Apps above
memory join through `tool_register`, so memory imports none of them.

`tools_offered()` can be handed to any OpenAI-compatible chat API as `tools=`. `tool_call()` runs
one call exactly as a model emits it (`arguments` a JSON string or an object) and always
returns a result the model can read: `{"ok": true, "result": ...}` or
`{"ok": false, "error": {"code", "message", "fields"?}}`, never an exception for bad
input, so an agent forwards the answer to its model unchanged.

Arguments are validated by the same serializers as the REST endpoints, and the same
services do the work. Privileged categories (profile, permission, system) cannot be
written by a model through these tools.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError

from accounts.agents import context_default, read_context
from accounts.models import Agent, ApiToken
from accounts.selectors import memory_on
from accounts.services import user_context
from conversations import search as turn_search
from conversations.api.serializers import TurnSearchSerializer
from core.api.conventions import error_fields
from core.erasing import RETRY_AFTER, EraseRunning, erasing
from core.text import data_problem
from graph import agent_tools as graph_tools
from graph.serializers import GraphRelationCreateSerializer
from memory import selectors, services
from memory.api.serializers import MemoryCreateSerializer, MemoryUpdateSerializer, RecallSerializer
from memory.api.tool_arguments import ForgetArguments, IdArguments, ListArguments
from memory.models import CATEGORIES, KnowledgeItem
from memory.recall import recall
from memory.tool_schemas import MEMORY_TOOLS, function_schema

# graph's `relate` comes last; tools registered later go before it (`tool_register`).
TOOLS: list[dict] = [
    *MEMORY_TOOLS,
    function_schema(
        "relate", graph_tools.DESCRIPTION, graph_tools.PROPERTIES, ["subject", "type", "object"]
    ),
]
TOOL_NAMES = [tool["function"]["name"] for tool in TOOLS]


def tools_offered() -> list[dict]:
    """The tools to hand a model now: `TOOLS`, plus each registered tool whose condition
    holds now (learning's `extract` while a language model is configured)."""
    return [*TOOLS, *(tool.schema for tool in _SOMETIMES.values() if tool.when())]


class ToolError(Exception):
    def __init__(self, code: str, message: str, fields: dict | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.fields = code, message, fields or {}


@dataclass(frozen=True)
class Caller:
    """Who runs a tool: through which token (hence which agent), with the request's
    context override (`X-Gaia-Context`), if any."""

    token: ApiToken | None = None
    context: str | None = None

    @property
    def agent(self) -> Agent | None:
        return getattr(self.token, "agent", None)

    @property
    def active_context(self) -> str:
        return context_default(self.agent, self.context)


def _item(item: KnowledgeItem) -> dict[str, Any]:
    return {
        "id": item.pk,
        "content": item.content,
        "category": item.category,
        "context": item.context,
        "entity": item.entity,
        "source": item.source,
        "confidence": round(item.confidence, 2),
        "pinned": item.pinned,
        "agent": item.agent.name if item.agent_id else None,
        "created_at": item.created_at.isoformat(),
        "due_at": item.due_at.isoformat() if item.due_at else None,
    }


def valid_arguments(serializer_class: type, data: dict, user: Any) -> dict:
    """`data` as `serializer_class` validates it for `user`, or a ToolError."""
    serializer = serializer_class(data=data, context=user_context(user))
    if not serializer.is_valid():
        raise ToolError("invalid_arguments", "Invalid arguments.", error_fields(serializer.errors))
    return serializer.validated_data


def _no_privileged(data: dict) -> None:
    if data.get("category") and data["category"] not in CATEGORIES:
        raise ToolError(
            "invalid_arguments",
            "Invalid arguments.",
            {"category": [f"Use one of: {', '.join(CATEGORIES)}."]},
        )


def _split_id(arguments: dict, user: Any) -> tuple[int, dict]:
    rest = {k: v for k, v in arguments.items() if k != "id"}
    if arguments.get("id") is None:
        misnamed = [
            k for k in rest if k.lower().replace("_", "") in ("memoryid", "itemid", "memory")
        ]
        hint = f" (not {', '.join(misnamed)})" if misnamed else ""
        raise ToolError("invalid_arguments", "Invalid arguments.",
                        {"id": [f"Required{hint}: the memory's id, an integer."]})  # fmt: skip
    return valid_arguments(IdArguments, {"id": arguments.get("id")}, user)["id"], rest


def _remember(user: Any, arguments: dict, caller: Caller) -> dict:
    data = valid_arguments(MemoryCreateSerializer, arguments, user)
    _no_privileged(data)
    data.pop("confidence", None)  # a model does not set its own certainty
    data.pop("importance", None)  # nor its weight: that comes from category and source
    data["context"] = data.get("context") or caller.active_context
    item = services.memory_create(user=user, source="tool", token=caller.token, **data)
    return {
        **_item(item),
        "deduplicated": item.deduplicated,
        "outcome": item.outcome,
        "conflicts_with": item.conflicts_with_id,
    }


def _recall(user: Any, arguments: dict, caller: Caller) -> dict:
    data = valid_arguments(RecallSerializer, arguments, user)
    data["context"] = read_context(data.get("context"), caller.active_context)
    data["matching"] = data.pop("where", None)
    hits = recall(user=user, **data)
    services.memory_touch(user=user, item_ids=[h.item.pk for h in hits])  # handed to an agent
    return {
        "results": [
            {
                **_item(h.item),
                "score": round(h.score, 4),
                "relevance": h.relevance,
                "matched_by": h.matched_by,
                **({"via": h.via} if h.via else {}),
                **({"older_than": h.older_than} if h.older_than else {}),
            }
            for h in hits
        ],
        "judged": hits.judged,
        **({"time_read": hits.time_read} if hits.time_read else {}),
        **({"memory": "off"} if hits.reason == "memory off" else {}),
    }


def _update(user: Any, arguments: dict, caller: Caller) -> dict:
    item_id, rest = _split_id(arguments, user)
    data = valid_arguments(MemoryUpdateSerializer, rest, user)
    _no_privileged(data)
    data.pop("confidence", None)
    data.pop("importance", None)
    # An id another item replaced leads to that item; the answer carries its id.
    item = selectors.memory_visible(user=user, item_id=item_id, current=True)
    changed = services.memory_update(
        user=user, item_id=item.pk, source="tool", token=caller.token, **data
    )
    return _item(changed)


def _list(user: Any, arguments: dict, caller: Caller) -> dict:
    data = valid_arguments(ListArguments, arguments, user)
    page, size = data.pop("page"), data.pop("page_size")
    if not memory_on(user):  # session-only: nothing stored is shown to an agent
        return {"results": [], "count": 0, "page": page, "next_page": None, "memory": "off"}
    sensitive = None if data.pop("include_sensitive") else False
    items = selectors.memory_list(user=user, sensitive=sensitive, **data)
    count = items.count()
    shown = list(items.defer("embedding")[(page - 1) * size : page * size])
    more = page * size < count
    return {
        "results": [_item(item) for item in shown],
        "count": count,
        "page": page,
        "next_page": page + 1 if more else None,
    }


def _forget(user: Any, arguments: dict, caller: Caller) -> dict:
    """One item by id, or every item matching the filters (a scope, an age, categories)."""
    data = valid_arguments(ForgetArguments, arguments, user)
    dry_run = data.pop("dry_run")
    if "id" in data:
        if len(data) > 1:
            raise ToolError("invalid_arguments", "Give an id, or filters, not both.")
        if dry_run:
            item = selectors.memory_visible(user=user, item_id=data["id"])
            return {"id": item.pk, "forgotten": False, "count": 1, "dry_run": True}
        item = services.memory_forget(user=user, item_id=data["id"])
        return {"id": item.pk, "forgotten": True, "count": 1, "dry_run": False}
    if not data:
        raise ToolError(
            "invalid_arguments",
            "Give an id, or at least one of context, entity, older_than, categories.",
        )
    ids = services.memory_forget_matching(user=user, dry_run=dry_run, **data)
    return {
        "forgotten": not dry_run and bool(ids),
        "count": len(ids),
        "dry_run": dry_run,
        "ids": ids,
    }


def _search_turns(user: Any, arguments: dict, caller: Caller) -> dict:
    data = valid_arguments(TurnSearchSerializer, arguments, user)
    if not memory_on(user):  # session-only: earlier conversations are not searched
        return {"results": [], "judged": True, "memory": "off"}
    hits = turn_search.search_turns(user=user, **data)
    return {
        "results": [
            {
                "id": h.turn.pk,
                "session_id": h.turn.session.session_id,
                "role": h.turn.role,
                "content": h.turn.content,
                "timestamp": h.turn.timestamp.isoformat(),
                "score": round(h.score, 4),
                "relevance": h.relevance,
            }
            for h in hits
        ],
        "judged": hits.judged,
        **({"time_read": hits.time_read} if hits.time_read else {}),
    }


def _relate(user: Any, arguments: dict, caller: Caller) -> dict:
    data = valid_arguments(GraphRelationCreateSerializer, arguments, user)
    ids = data.get("memory_ids", [])
    if selectors.items_owned(user=user, item_ids=ids) != set(ids):
        raise DjangoValidationError({"memory_ids": "No such memory."}, code="does_not_exist")
    return graph_tools.relate(user, data)


Handler = Callable[[Any, dict, Caller], dict]
# The tools that only read: answered while the person's erase runs; every other is refused
# then (`erase_running`), as the API refuses a write.
_READING = {"recall", "list_memories", "search_past_conversations"}
_HANDLERS: dict[str, Handler] = {
    "remember": _remember,
    "recall": _recall,
    "list_memories": _list,
    "update_memory": _update,
    "forget": _forget,
    "search_past_conversations": _search_turns,
    "relate": _relate,
}


@dataclass(frozen=True)
class _Sometimes:
    schema: dict
    when: Callable[[], bool]


_SOMETIMES: dict[str, _Sometimes] = {}


def tool_register(
    *,
    schema: dict,
    handler: Handler,
    when: Callable[[], bool] | None = None,
    reads_only: bool = False,
) -> None:
    """Offer another app's tool beside memory's: apps above memory call this from their
    AppConfig.ready(), so memory imports none of them. A tool offered always joins
    `TOOLS` (after memory's own, before graph's `relate`); one with `when` is offered
    only while `when()` holds; one that `reads_only` is answered while the person's erase
    runs. Registering a name again replaces it."""
    name = schema["function"]["name"]
    _HANDLERS[name] = handler
    if reads_only:
        _READING.add(name)
    if when is not None:
        _SOMETIMES[name] = _Sometimes(schema, when)
        return
    if name in TOOL_NAMES:
        TOOLS[TOOL_NAMES.index(name)] = schema
        return
    TOOLS.insert(TOOL_NAMES.index("relate"), schema)
    TOOL_NAMES.insert(TOOL_NAMES.index("relate"), name)


def _arguments(raw: Any) -> dict:
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError):
            raise ToolError("invalid_arguments", "arguments is not valid JSON.") from None
    if not isinstance(raw, dict):
        raise ToolError("invalid_arguments", "arguments must be a JSON object.")
    found = data_problem(raw)
    if found:  # before anything could quote a bad key or value back to the model
        raise ToolError("invalid_arguments", "Invalid arguments.", {found[0]: [found[1]]})
    # Models often send null or "" for parameters they mean to leave out; with
    # update_memory an empty value must not wipe a field ("only non-empty fields change").
    return {key: value for key, value in raw.items() if value is not None and value != ""}


def failure(code: str, message: str, fields: dict | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if fields:
        error["fields"] = fields
    return {"ok": False, "error": error}


def _shape(name: str) -> str:
    """What the tool takes, from its schema: "query (string, required), top_k (integer)"."""
    schema = next((t for t in tools_offered() if t["function"]["name"] == name), None)
    if schema is None:
        return ""
    parameters = schema["function"]["parameters"]
    required = set(parameters.get("required", ()))

    def kind(spec: dict) -> str:
        given = spec.get("type", "any")
        return " or ".join(given) if isinstance(given, list) else str(given)

    return ", ".join(
        f"{arg} ({kind(spec)}{', required' if arg in required else ''})"
        for arg, spec in parameters.get("properties", {}).items()
    )


def _named(name: str, error: ToolError) -> str:
    """An argument error's message naming each argument at fault and what the tool takes."""
    if error.code != "invalid_arguments" or not error.fields:
        return error.message
    wrong = "; ".join(f"{arg}: {' '.join(msgs)}" for arg, msgs in error.fields.items())
    shape = _shape(name)
    return f"Invalid arguments for {name}: {wrong}" + (f" It takes: {shape}." if shape else "")


def tool_call(
    *,
    user: Any,
    name: Any,
    arguments: Any,
    token: ApiToken | None = None,
    context: str | None = None,
) -> dict[str, Any]:
    """Run one memory tool for `user` through the agent's `token` (its agent is recorded
    with what it stores, the token with the versions an update leaves), in the request's
    `context` override or the agent's default; bad input gives an error result, not an
    exception."""
    handler = _HANDLERS.get(name) if isinstance(name, str) else None
    if handler is None:
        return failure(
            "unknown_tool",
            f"Unknown tool {name!r}. Use one of: {', '.join([*TOOL_NAMES, *_SOMETIMES])}.",
        )
    if name not in _READING and erasing(getattr(user, "pk", None)):
        return failure(
            "erase_running",
            f"{EraseRunning.default_detail} Nothing was stored; call {name} again in "
            f"{RETRY_AFTER} seconds.",
        )
    try:
        return {"ok": True, "result": handler(user, _arguments(arguments), Caller(token, context))}
    except ToolError as error:
        return failure(error.code, _named(name, error), error.fields)
    except DjangoValidationError as error:
        fields = error_fields(error.message_dict) if hasattr(error, "error_dict") else {}
        code = getattr(error, "code", None) or "invalid"
        return failure(code, "; ".join(error.messages), fields)
    except ObjectDoesNotExist:
        return failure("not_found", "No memory with that id.")
