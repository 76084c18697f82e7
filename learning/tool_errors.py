"""Tool errors: a failed tool call becomes an `error` item (source error_auto, entity
tool:<name>) so the agent can avoid it next time. A lesson retires (is forgotten: soft,
restorable) only on evidence: when the same call, the same tool with the same arguments,
later succeeds; lessons of that tool with the same error signature retire with it. A
success of the tool with other arguments leaves the lesson alone.

Each lesson keeps its call's signature (`call_signature`: tool and arguments) and its
error's (`error_signature`: the message with numbers, ids and paths blanked) in its
metadata; a retired one keeps why (`retired_reason`, `retired_by_call`, `retired_at`).
The job looks at the database, not at the event that queued it: the latest call of the
tool decides. So tasks running late or out of order, or twice, end the same way.
"""

import hashlib
import json
import re
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.selectors import memory_on
from conversations.models import ToolCall
from core.queue import enqueue_on_commit
from memory.models import KnowledgeItem
from memory.services import memory_create, memory_forget, memory_update

ERROR_CHARS = 500
_VARIABLE = re.compile(r"0x[0-9a-f]+|\d+|'[^']*'|\"[^\"]*\"|(?:/[\w.-]+)+", re.IGNORECASE)


def tool_entity(tool_name: str) -> str:
    return f"tool:{tool_name.strip().lower()}"[:200]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:32]


def call_signature(tool_name: str, args: Any) -> str:
    """Same tool and same arguments (key order and spacing aside) give the same value."""
    return _digest(json.dumps([tool_name.strip().lower(), args], sort_keys=True, default=str))


def error_signature(tool_name: str, error: str) -> str:
    """The error's shape: numbers, quoted values and paths blanked, case folded."""
    return _digest(f"{tool_name.lower()}\n{_VARIABLE.sub('#', error.strip().lower())[:300]}")


def _error_items(user: Any, tool_name: str):
    return (
        KnowledgeItem.objects.for_user(user)
        .active()
        .filter(category="error", source="error_auto", entity=tool_entity(tool_name))
    )


def tool_call_recorded(call: ToolCall) -> None:
    """Queue the sync after commit: always for a failure, for a success only when an
    error item of that tool is active (so ordinary successes cost nothing)."""
    if not call.success or _error_items(call.owner, call.tool_name).exists():
        enqueue_on_commit("learning.tasks.tool_errors_sync", call.owner_id, call.tool_name)


def _signatures(user: Any, item: KnowledgeItem) -> tuple[str, str]:
    """A lesson's call and error signatures (older lessons: from the call they name)."""
    meta = item.metadata or {}
    if meta.get("call_signature"):
        return meta["call_signature"], meta.get("error_signature", "")
    call = ToolCall.objects.for_user(user).filter(pk=meta.get("tool_call_id") or 0).first()
    if call is None:
        return "", ""
    return call_signature(call.tool_name, call.args), error_signature(call.tool_name, call.error)


def _retire(user: Any, latest: ToolCall) -> dict[str, Any]:
    """Retire the lessons of the call that just succeeded, and their error's kin."""
    lessons = [(item, *_signatures(user, item)) for item in _error_items(user, latest.tool_name)]
    same_call = call_signature(latest.tool_name, latest.args)
    errors = {err for _, sig, err in lessons if sig == same_call and err}
    retired = [(item, sig) for item, sig, err in lessons if sig == same_call or err in errors]
    for item, sig in retired:
        reason = (
            "the same call later succeeded"
            if sig == same_call
            else "a call that failed with the same error later succeeded"
        )
        memory_update(
            user=user,
            item_id=item.pk,
            source="error_auto",
            metadata={
                **item.metadata,
                "retired_reason": reason,
                "retired_by_call": latest.pk,
                "retired_at": timezone.now().isoformat(),
            },
        )
        memory_forget(user=user, item_id=item.pk)
    return {"status": "retired" if retired else "kept", "items": len(retired)}


def tool_errors_sync(*, user_id: int, tool_name: str) -> dict[str, Any]:
    """Make the error items of one tool match its latest call."""
    user = get_user_model().objects.get(pk=user_id)
    latest = (
        ToolCall.objects.for_user(user)
        .filter(tool_name=tool_name)
        .select_related("session")
        .order_by("-timestamp", "-pk")
        .first()
    )
    if latest is None:
        return {"status": "no calls"}
    if latest.success:
        return _retire(user, latest)
    if not memory_on(user):
        return {"status": "skipped", "reason": "memory is turned off"}
    detail = (latest.error or latest.result_summary or "no error message").strip()
    fields = {
        "user": user,
        "category": "error",
        "source": "error_auto",
        "entity": tool_entity(tool_name),
        "context": latest.session.context if latest.session else "global",
        "agent": latest.agent_id,
        "metadata": {
            "tool_call_id": latest.pk,
            "call_signature": call_signature(tool_name, latest.args),
            "error_signature": error_signature(tool_name, detail),
        },
    }
    try:
        item = memory_create(content=f"Tool {tool_name} failed: {detail[:ERROR_CHARS]}", **fields)
    except ValidationError:  # e.g. the error text quoted a credential: keep the fact only
        item = memory_create(content=f"Tool {tool_name} failed (error text withheld).", **fields)
    return {"status": "recorded", "item": item.pk}
