"""How skill memory hears that a session is finished."""

from typing import Any

from conversations import signals
from conversations.models import Session, ToolCall
from core.queue import enqueue_on_commit


def _session_finished(sender: Any, session: Session, **kwargs: Any) -> None:
    """A finished session in which a typed agent used tools is read for skills (queued on
    commit, never run inline)."""
    typed = ToolCall.objects.filter(
        owner_id=session.owner_id, session=session, agent__agent_type__isnull=False
    )
    if typed.exists():
        enqueue_on_commit(
            "skills.tasks.learn_skills", session.pk, dedupe_key=f"skills:{session.pk}"
        )


def install() -> None:
    """Called once from SkillsConfig.ready()."""
    signals.session_finished.connect(_session_finished, dispatch_uid="gaia-skills-session")
