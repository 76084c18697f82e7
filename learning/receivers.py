"""How learning hears about new conversation data, and what it registers at start-up."""

import contextlib
from collections.abc import Iterator
from typing import Any

from conversations import signals
from conversations.models import ToolCall, Turn
from core.server import health
from learning.extraction import extraction_enqueue
from learning.llm import checks  # noqa: F401  (registers the system check)
from learning.llm.status import llm_health
from learning.tool_errors import tool_call_recorded


def _turn_pending(sender: Any, turn: Turn, **kwargs: Any) -> None:
    extraction_enqueue(turn)  # queued on commit, never run inline


def _tool_call_logged(sender: Any, call: ToolCall, **kwargs: Any) -> None:
    tool_call_recorded(call)  # a failure becomes an error item (queued on commit)


@contextlib.contextmanager
def extraction_queueing_paused() -> Iterator[None]:
    """Turns stored inside are not queued for extraction: the caller extracts them itself
    and measures it (`memory_eval extraction`), without a worker racing it."""
    signals.turn_pending.disconnect(dispatch_uid="gaia-learning-turn")
    try:
        yield
    finally:
        signals.turn_pending.connect(_turn_pending, dispatch_uid="gaia-learning-turn")


def install() -> None:
    """Called once from LearningConfig.ready()."""
    signals.turn_pending.connect(_turn_pending, dispatch_uid="gaia-learning-turn")
    signals.tool_call_logged.connect(_tool_call_logged, dispatch_uid="gaia-learning-tool-call")
    health.register("llm", llm_health)
