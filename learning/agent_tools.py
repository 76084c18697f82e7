"""Learning's part of what an agent is offered: the `extract` tool, while a language
model is configured, registered with memory's agent surface at start-up (`install`,
from LearningConfig.ready()), so memory imports nothing of learning."""

from typing import Any

from rest_framework import serializers

from core.api.serializers import StrictSerializer
from learning.extract_text import TEXT_MAX, text_extract
from learning.llm import LLMError, llm_configured
from memory.agent_tools import Caller, ToolError, function_schema, tool_register, valid_arguments

EXTRACT_TOOL = function_schema(
    "extract",
    "Decompose a text (notes, a document, a task's output, a long message) into atomic, "
    "self-contained facts about the user; with store=true each is remembered. Needs the "
    "server's language model.",
    {
        "text": {"type": "string", "maxLength": TEXT_MAX, "description": "The text to read."},
        "store": {
            "type": "boolean",
            "description": "Remember the facts (default false: only return them).",
        },
        "context": {
            "type": "string",
            "description": "Scope of the stored facts, e.g. work (default global).",
        },
    },
    ["text"],
)


class _ExtractArguments(StrictSerializer):
    text = serializers.CharField(max_length=TEXT_MAX)
    store = serializers.BooleanField(default=False)
    context = serializers.CharField(max_length=100, required=False)


def extract(user: Any, arguments: dict, caller: Caller) -> dict:
    """The `extract` tool: a text into atomic facts, stored when asked."""
    data = valid_arguments(_ExtractArguments, arguments, user)
    data["context"] = data.get("context") or caller.active_context
    try:
        return text_extract(user=user, agent=caller.agent, **data)
    except LLMError as error:
        raise ToolError("llm_unavailable", f"The language model failed ({error.kind}).") from None


def install() -> None:
    """Offer `extract` to agents while a language model is configured."""
    tool_register(schema=EXTRACT_TOOL, handler=extract, when=llm_configured)
