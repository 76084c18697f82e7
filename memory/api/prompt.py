"""Prompt material (stable system block, per-turn context) and the agent tools."""

from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import (
    extend_schema_field,
    extend_schema_serializer,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.agents import request_active_context, request_agent, request_context
from core.api.openapi import body_action, body_example, operation
from core.api.serializers import StrictSerializer
from core.api.views import valid_body, valid_query
from memory import agent_prompt, agent_tools
from memory.services import memory_seen


class PromptQuerySerializer(serializers.Serializer):
    context = serializers.CharField(
        max_length=100,
        required=False,
        allow_blank=True,
        help_text="Active context (its items plus global); default: the X-Gaia-Context "
        "header, else the agent's default context (global: global only).",
    )


class DynamicQuerySerializer(PromptQuerySerializer):
    days = serializers.IntegerField(
        min_value=0,
        max_value=366,
        default=7,
        help_text="Show items due within this many days (default 7), and the overdue ones.",
    )
    notes = serializers.IntegerField(
        min_value=0,
        max_value=agent_prompt.NOTES_MAX,
        default=0,
        help_text="Also this many diary notes from earlier conversations that bear on "
        "`query` (default 0: none).",
    )
    query = serializers.CharField(
        max_length=2000,
        required=False,
        default="",
        allow_blank=True,
        help_text="The user's message, for `notes`.",
    )


class _BlockView(APIView):
    """A block of memory handed to an agent as `{key: text}`, for the query string (read
    by `query_class`) in the active context; the items shown count as used (decay)."""

    query_class: type[PromptQuerySerializer]
    key: str

    def block(self, request: Request, given: dict[str, Any]) -> tuple[str, list[int]]:
        raise NotImplementedError

    def get(self, request: Request) -> Response:
        given = {**valid_query(self.query_class, request)}
        given["context"] = given.get("context") or request_active_context(request)
        text, shown = self.block(request, given)
        memory_seen(user=request.user, item_ids=shown)  # shown to an agent: used, for decay
        return Response({self.key: text})


def _block_schema(
    operation_id: str, name: str, summary: str, description: str
) -> Callable[[type[_BlockView]], type[_BlockView]]:
    """Declares a block view's GET: its query string (`query_class`), answered `{key: text}`
    (an object named `name`)."""

    def declare(view: type[_BlockView]) -> type[_BlockView]:
        answer = inline_serializer(name, {view.key: serializers.CharField()})
        get = operation(
            operation_id,
            answer,
            tags=["prompt"],
            summary=summary,
            description=description,
            parameters=[view.query_class],
            failures=(400,),
        )
        return extend_schema_view(get=get)(view)

    return declare


@_block_schema(
    "prompt_system",
    "SystemPrompt",
    "Stable memory block for the system prompt",
    (
        "Usage instructions for the memory tools plus preferences (10), facts (5), "
        "skills (3) and known errors (5), quoted as data with their source; sensitive, "
        "superseded and forgotten items left out; at most 4000 characters; then, for an "
        "agent of a registered type, its type's Learned procedures (at most 1500). Identical "
        "across calls while memory is unchanged (recall only changes it when an item "
        "moves to another confidence band), so the model server can reuse its KV cache."
    ),
)
class SystemPromptView(_BlockView):
    query_class = PromptQuerySerializer
    key = "prompt"

    def block(self, request: Request, given: dict[str, Any]) -> tuple[str, list[int]]:
        return agent_prompt.system_prompt(
            user=request.user, agent=request_agent(request), context=given["context"]
        )


@_block_schema(
    "prompt_context",
    "DynamicContext",
    "Per-turn context to prepend to the user's message",
    "Current time in the user's time zone with the weekday, and items due within "
    "`days` or overdue that were not yet reminded (with their ids); with `notes` and the "
    "user's message as `query`, the diary notes of earlier conversations that recall "
    "ranks first for it. With memory off: the time, and a line saying memory is off.",
)
class DynamicContextView(_BlockView):
    query_class = DynamicQuerySerializer
    key = "context"

    def block(self, request: Request, given: dict[str, Any]) -> tuple[str, list[int]]:
        return agent_prompt.dynamic_block(user=request.user, **given)


class ToolListView(APIView):
    @operation(
        "tools_list",
        inline_serializer(
            "ToolList", {"tools": serializers.ListField(child=serializers.DictField())}
        ),
        tags=["tools"],
        summary="The memory tools (OpenAI function-calling schemas)",
        description=(
            "Hand `tools` to any OpenAI-compatible chat API unchanged. `extract` (a text "
            "into atomic facts) is listed while the server has a language model."
        ),
    )
    def get(self, request: Request) -> Response:
        return Response({"tools": agent_tools.tools_offered()})


@extend_schema_field(
    {"oneOf": [{"type": "string"}, {"type": "object", "additionalProperties": True}]}
)
class ArgumentsField(serializers.JSONField):
    """A JSON object, or a string holding one (as OpenAI-style models emit arguments)."""


@extend_schema_serializer(component_name="FunctionCall")
class ToolCallSerializer(StrictSerializer):
    name = serializers.CharField(max_length=100, help_text="remember, recall, update_memory, ...")
    arguments = ArgumentsField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The tool's arguments as the model emitted them: a JSON string or an object.",
    )


_EXAMPLES = [
    body_example(
        "recall", {"name": "recall", "arguments": '{"query": "favourite editor", "top_k": 3}'}
    ),
    body_example(
        "remember", {"name": "remember", "arguments": {"content": "Uses Helix as their editor"}}
    ),
]


class ToolCallView(APIView):
    @body_action(
        "tools_call",
        ToolCallSerializer,
        inline_serializer(
            "ToolResult",
            {
                "name": serializers.CharField(),
                "ok": serializers.BooleanField(),
                "result": serializers.DictField(required=False),
                "error": serializers.DictField(required=False),
            },
        ),
        tags=["tools"],
        summary="Run one tool call",
        description=(
            "Forward a model's tool call unchanged (`function` of an OpenAI tool call: "
            "`name` and `arguments`, a JSON string or an object). Always answers 200 with "
            '`{"name", "ok": true, "result"}` or `{"name", "ok": false, "error": {"code", '
            '"message", "fields"?}}` for bad arguments, unknown tools or ids; send the '
            "body back to the model as the tool result."
        ),
        examples=_EXAMPLES,
    )
    def post(self, request: Request) -> Response:
        call = valid_body(ToolCallSerializer, request)
        result = agent_tools.tool_call(
            user=request.user, token=request.auth, context=request_context(request), **call
        )
        return Response({"name": call["name"], **result})
