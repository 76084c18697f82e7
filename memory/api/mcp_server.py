"""The MCP server of one user: the memory tools, the system block and the per-turn context.

Built with the official MCP Python SDK's low-level `Server` for the user the request's
Bearer token names (memory/api/mcp_view.py serves it at /mcp), so every handler below
closes over that one user and can reach nobody else's memory.

- Tools: `remember`, `recall`, `list_memories`, `update_memory`, `forget` (by id, or by
  scope, age and category), `search_past_conversations`, `recall_skills`, `propose_skill`,
  `relate`, and `extract` while a language model is configured (the schemas and
  the dispatcher of memory/agent_tools.py, the same as `GET /tools/` and
  `POST /tools/call/`). A tool's failure (bad arguments, an
  unknown id, no model) is a result with `isError: true` the model can read, not a
  protocol error; an unknown tool name is a protocol error (INVALID_PARAMS).
- Prompts `memory-system` and `memory-context`, and the same two texts as resources
  (`gaia://memory/system-prompt`, `gaia://memory/turn-context`, query `?context=&days=`),
  also listed as resource templates (`resources/templates/list`, RFC 6570 query forms).
- The server's `instructions` are the user's system block when a client asks for them
  (`initialize`, `server/discover`), so clients that put server instructions into their
  system prompt (Claude Code, Claude Desktop) get the memory block without extra setup.

Handlers run on the SDK's event loop; every database access goes through
`sync_to_async(thread_sensitive=True)`, back on the request's own thread.
"""

import json
from functools import partial
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import mcp_types as types
from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from core.api.conventions import error_fields
from memory import agent_prompt, agent_tools
from memory.api.prompt import DynamicQuerySerializer, PromptQuerySerializer
from memory.services import memory_seen

SERVER_NAME = "gaia-memory"
SYSTEM_URI = "gaia://memory/system-prompt"
CONTEXT_URI = "gaia://memory/turn-context"
_database = partial(sync_to_async, thread_sensitive=True)

_HINTS = {  # (title, read only, destructive, idempotent)
    "remember": ("Remember", False, False, False),
    "recall": ("Recall", True, False, True),
    "list_memories": ("List memories", True, False, True),
    "update_memory": ("Update a memory", False, True, True),
    "forget": ("Forget memories", False, True, True),
    "search_past_conversations": ("Search past conversations", True, False, True),
    "recall_skills": ("Recall learned procedures", True, False, True),
    "propose_skill": ("Propose a learned procedure", False, False, False),
    "extract": ("Extract facts from a text", False, False, False),
    # a new works_at, lives_in or partner_of ends the one it contradicts (kept, not deleted)
    "relate": ("Relate two entities", False, False, True),
}


def _tool(schema: dict) -> types.Tool:
    function = schema["function"]
    title, read_only, destructive, idempotent = _HINTS[function["name"]]
    return types.Tool(
        name=function["name"],
        title=title,
        description=function["description"],
        input_schema=function["parameters"],
        annotations=types.ToolAnnotations(
            title=title,
            read_only_hint=read_only,
            destructive_hint=destructive,
            idempotent_hint=idempotent,
            open_world_hint=False,
        ),
    )


def tool_list() -> list[types.Tool]:
    """The tools offered right now: the memory tools, plus extract with a model."""
    return [_tool(schema) for schema in agent_tools.tools_offered()]


def _call(
    user: Any, name: str, arguments: dict | None, caller: agent_tools.Caller
) -> dict[str, Any]:
    return agent_tools.tool_call(
        user=user, name=name, arguments=arguments, token=caller.token, context=caller.context
    )


def _tool_result(outcome: dict[str, Any]) -> types.CallToolResult:
    payload = outcome["result"] if outcome["ok"] else {"error": outcome["error"]}
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
        is_error=not outcome["ok"],
    )


def _query(serializer_class: type, given: dict[str, Any]) -> dict[str, Any]:
    query = serializer_class(data={k: v for k, v in given.items() if v not in (None, "")})
    if not query.is_valid():
        raise MCPError(types.INVALID_PARAMS, "Invalid arguments.", error_fields(query.errors))
    return query.validated_data


def _system(user: Any, given: dict[str, Any], caller: agent_tools.Caller) -> str:
    query = _query(PromptQuerySerializer, given)
    context = query.get("context") or caller.active_context
    text, shown = agent_prompt.system_prompt(user=user, agent=caller.agent, context=context)
    memory_seen(user=user, item_ids=shown)  # shown to an agent: used, for decay
    return text


def _context(user: Any, given: dict[str, Any], caller: agent_tools.Caller) -> str:
    query = _query(DynamicQuerySerializer, given)
    query["context"] = query.get("context") or caller.active_context
    text, shown = agent_prompt.dynamic_block(user=user, **query)
    memory_seen(user=user, item_ids=shown)
    return text


_PROMPTS = {  # name -> (what it renders, description, arguments)
    "memory-system": (
        _system,
        "The stable memory block for the system prompt: how to use the memory tools, "
        "then the user's preferences, facts, skills and known errors, quoted as data.",
        [types.PromptArgument(name="context", description="A memory context, e.g. work.")],
    ),
    "memory-context": (
        _context,
        "The per-turn context to put before the user's message: the current time in the "
        "user's time zone and the items due soon or overdue; with notes and the user's "
        "message as query, the diary notes of earlier conversations that bear on it.",
        [
            types.PromptArgument(name="context", description="A memory context, e.g. work."),
            types.PromptArgument(name="days", description="Look ahead this many days (7)."),
            types.PromptArgument(name="notes", description="This many diary notes (0..10)."),
            types.PromptArgument(name="query", description="The user's message, for notes."),
        ],
    ),
}
_TEMPLATE_QUERIES = {
    "memory-system": "{?context}",
    "memory-context": "{?context,days,notes,query}",
}
_RESOURCES = {  # uri -> (prompt name, title)
    SYSTEM_URI: ("memory-system", "Memory block for the system prompt"),
    CONTEXT_URI: ("memory-context", "Per-turn memory context"),
}


async def _list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=tool_list())


async def _list_prompts(ctx, params) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[
            types.Prompt(name=name, description=description, arguments=arguments)
            for name, (_, description, arguments) in _PROMPTS.items()
        ]
    )


async def _list_resources(ctx, params) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[
            types.Resource(
                uri=uri,
                name=name,
                title=title,
                description=_PROMPTS[name][1],
                mime_type="text/plain",
            )
            for uri, (name, title) in _RESOURCES.items()
        ]
    )


async def _list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(
                uri_template=uri + _TEMPLATE_QUERIES[name],
                name=name,
                title=title,
                description=_PROMPTS[name][1],
                mime_type="text/plain",
            )
            for uri, (name, title) in _RESOURCES.items()
        ]
    )


def build_server(
    user: Any, *, instructions: str | None = None, token: Any = None, context: str | None = None
) -> Server:
    """An MCP server whose every handler acts for `user` alone (through `token`, whose
    agent is recorded with what it stores; `context` is the request's X-Gaia-Context).
    The lists are the same for everyone; the handlers that read or write close over `user`."""
    caller = agent_tools.Caller(token, context)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in {tool.name for tool in tool_list()}:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name[:100]}")
        return _tool_result(await _database(_call)(user, params.name, params.arguments, caller))

    async def get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name not in _PROMPTS:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name[:100]}")
        render, description, _ = _PROMPTS[params.name]
        text = await _database(render)(user, params.arguments or {}, caller)
        return types.GetPromptResult(
            description=description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )

    async def read_resource(ctx, params: types.ReadResourceRequestParams):
        parts = urlsplit(str(params.uri))
        base = parts._replace(query="", fragment="").geturl()
        if base not in _RESOURCES:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {base[:200]}")
        render = _PROMPTS[_RESOURCES[base][0]][0]
        text = await _database(render)(user, dict(parse_qsl(parts.query)), caller)
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=str(params.uri), mime_type="text/plain", text=text)
            ]
        )

    return Server(
        SERVER_NAME,
        version=settings.SPECTACULAR_SETTINGS["VERSION"],
        title="Gaia Memory",
        instructions=instructions,
        on_list_tools=_list_tools,
        on_call_tool=call_tool,
        on_list_prompts=_list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=_list_resources,
        on_list_resource_templates=_list_resource_templates,
        on_read_resource=read_resource,
    )
