"""How skill memory hears that a session is finished, and that an account is deleted."""

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.signals import pre_delete

from conversations import signals
from conversations.models import Session, ToolCall
from core.queue import enqueue_on_commit
from skills.services import contributions_erase


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


def _user_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    """An account deleted outright (the admin) takes its part of skill memory with it,
    as an account erase does: the links to it would otherwise go without the skills."""
    contributions_erase(user=instance)


def install() -> None:
    """Called once from SkillsConfig.ready()."""
    signals.session_finished.connect(_session_finished, dispatch_uid="gaia-skills-session")
    pre_delete.connect(_user_deleted, sender=get_user_model(), dispatch_uid="gaia-skills-user")
