"""The memory tools an agent is offered (remember, recall, list_memories, update_memory,
forget, search_past_conversations) as OpenAI function-calling schemas, and `function_schema`, which
the tools of other apps are described with too. memory/agent_tools.py offers and runs them."""

from core.ids import ID_RANGE
from memory.models import CATEGORIES

PAGE_MAX = 1_000_000  # list_memories' pages: the offset stays a number every backend holds
_ISO = "ISO 8601 date or time, e.g. 2026-03-27T09:00:00+01:00 (no offset = user's time zone)"
_CATEGORY = {"type": "string", "enum": CATEGORIES}
_MIN_RELEVANCE = {
    "type": "number",
    "minimum": 0,
    "maximum": 1,
    "description": "Leave out weaker hits (0..1; default drops the clearly unrelated).",
}
_JUDGE = {
    "type": "boolean",
    "description": "false: faster, without the relevance judge (default true).",
}
_ID = {"type": "integer", **ID_RANGE, "description": "The memory id (from recall or remember)."}
_QUERIES = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Up to 4 other phrasings of the same question, fused with `query` into "
    "one ranking. Give them when you know words the question lacks: what the stored text "
    'would say ("dentist" for "who looks after my teeth"), names you know from the '
    'conversation (the partner\'s name for "my partner"), or a short hypothetical '
    'answer ("User\'s dentist is ..."). Leave out for a plain question.',
}


def function_schema(name: str, description: str, properties: dict, required: list[str]) -> dict:
    """One tool as an OpenAI function-calling schema; no argument beyond `properties`."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


_ITEM_FIELDS = {
    "category": {**_CATEGORY, "description": "What kind of memory (default fact)."},
    "domain": {"type": "string", "description": "Topic area, e.g. coding, health."},
    "context": {
        "type": "string",
        "description": "Scope such as work or personal (default global).",
    },
    "entity": {
        "type": "string",
        "description": "Who or what it is about, e.g. person:sarah_chen, project:gaia.",
    },
    "sensitive": {
        "type": "boolean",
        "description": "Private information (hidden unless asked for).",
    },
    "due_at": {"type": "string", "description": f"Deadline or reminder time: {_ISO}."},
    "pinned": {
        "type": "boolean",
        "description": "Never fades with disuse (e.g. the user's name); default false.",
    },
}
MEMORY_TOOLS: list[dict] = [
    function_schema(
        "remember",
        "Store a fact, preference, error, skill, note or reminder about the user for future "
        "conversations. One self-contained statement per call. The result's `outcome` is "
        "new, deduplicated (a memory said the same) or conflict: `conflicts_with` is an "
        "older memory it may contradict; if the user corrected it, update or forget that one.",
        {
            "content": {"type": "string", "description": "The statement to remember."},
            **_ITEM_FIELDS,
            "source_turn": {
                "type": "integer",
                **ID_RANGE,
                "description": "Id of the logged conversation turn it was learned from.",
            },
        },
        ["content"],
    ),
    function_schema(
        "recall",
        "Search long-term memory. Returns matching items, best first, with their ids (use "
        "them with update_memory or forget) and a relevance from 0 to 1; an empty list "
        'means nothing stored matches. Say times as the user does ("yesterday", "about '
        'a week ago"): they narrow the search, and `time_read` says the window read; '
        '"lately" or "last time" puts the newest of the matching items first; a time to '
        'come ("tomorrow", "next week") finds what is due then.',
        {
            "query": {
                "type": "string",
                "description": "The question, in the user's words (first person is fine).",
            },
            "queries": _QUERIES,
            "top_k": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "How many results (default 5).",
            },
            "category": _CATEGORY,
            "context": {"type": "string", "description": "Search this context plus global."},
            "entity": {"type": "string", "description": "Only items about this entity."},
            "include_sensitive": {
                "type": "boolean",
                "description": "Include private items; only when the user asks for them.",
            },
            "time_from": {"type": "string", "description": f"Stored at or after: {_ISO}."},
            "time_to": {"type": "string", "description": f"Stored at or before: {_ISO}."},
            "min_relevance": _MIN_RELEVANCE,
            "judge": _JUDGE,
        },
        ["query"],
    ),
    function_schema(
        "update_memory",
        "Change an existing memory by id; only the given fields change. After mentioning a "
        'time-sensitive item, set reminded_at to "now".',
        {
            "id": _ID,
            "content": {"type": "string", "description": "The corrected statement."},
            **_ITEM_FIELDS,
            "reminded_at": {"type": "string", "description": f'"now", or {_ISO}.'},
            "reason": {
                "type": "string",
                "description": "Why it changed (kept with the earlier version).",
            },
        },
        ["id"],
    ),
    function_schema(
        "list_memories",
        "List stored memories, newest change first, one page at a time (no search: use "
        "recall to look for something). Filters narrow it; `count` is how many match.",
        {
            "category": _CATEGORY,
            "context": {"type": "string", "description": "Only this context."},
            "entity": {"type": "string", "description": "Only items about this entity."},
            "include_sensitive": {
                "type": "boolean",
                "description": "Include private items; only when the user asks for them.",
            },
            "ordering": {
                "type": "string",
                "enum": ["-updated_at", "-created_at", "created_at", "-confidence", "-last_used"],
                "description": "Sort order (default -updated_at: newest change first).",
            },
            "page": {
                "type": "integer",
                "minimum": 1,
                "maximum": PAGE_MAX,
                "description": "Page number (default 1).",
            },
            "page_size": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "Items per page (default 20).",
            },
        },
        [],
    ),
    function_schema(
        "forget",
        "Forget memories (the user can restore them). Either one by `id` (use recall or "
        "list_memories to find it), or every item matching all the given filters: a scope "
        "(context, entity), an age (older_than) and categories; all of it when the user "
        'asks to wipe their memory: older_than "0h". With filters, try dry_run first: the '
        "answer's `count` says how many would go, `ids` which.",
        {
            "id": _ID,
            "context": {"type": "string", "description": "Every item of this context."},
            "entity": {"type": "string", "description": "Every item about this entity."},
            "older_than": {
                "type": "string",
                "description": 'Stored longer ago than this: "12h", "30d", "2w", "6m", "1y".',
            },
            "categories": {
                "type": "array",
                "items": _CATEGORY,
                "description": "Only items of these categories.",
            },
            "dry_run": {
                "type": "boolean",
                "description": "true: only count what would be forgotten (default false).",
            },
        },
        [],
    ),
    function_schema(
        "search_past_conversations",
        "Search earlier conversation turns by keywords, a time range, or both. Returns "
        "turns with their time and session id. Times said as people say them "
        '("yesterday", "last Tuesday") narrow the search; `time_read` says the window; '
        '"lately" puts the newest matching turns first.',
        {
            "query": {"type": "string", "description": "What to look for."},
            "queries": _QUERIES,
            "top_k": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "description": "How many turns (default 10).",
            },
            "session_id": {"type": "string", "description": "Only this session."},
            "role": {"type": "string", "enum": ["user", "assistant", "system", "tool"]},
            "time_from": {"type": "string", "description": f"Said at or after: {_ISO}."},
            "time_to": {"type": "string", "description": f"Said at or before: {_ISO}."},
            "min_relevance": _MIN_RELEVANCE,
            "judge": _JUDGE,
        },
        [],
    ),
]
