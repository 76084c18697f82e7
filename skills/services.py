"""Every change to skill memory: propose (or validate a known skill), review, validate,
decay, and take a user's contributions back.

A proposed skill that says what an existing skill of its type says (its embedding at
least SAME_SKILL near, or the same trigger) is not stored twice: an approved one is
validated (seed 001: +1, confidence up), a proposed one gains the contribution.
"""

from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Agent, AgentType
from conversations.models import Session
from retrieval.embedding import (
    EmbedderError,
    current_dim,
    current_model_id,
    from_bytes,
    get_embedder,
    to_bytes,
)
from skills.models import Skill, SkillContribution

SAME_SKILL = 0.92  # cosine of two wordings of one procedure (same trigger, same tools)
VALIDATION_GAIN = 0.1  # a validation moves confidence a tenth of the way to 1
DECAY_AFTER = timedelta(days=90)  # seed 001: not validated for 90 days ...
DECAY_FACTOR = 0.9  # ... loses 10% of its confidence, once per 90 idle days
TEXT_MAX = 2000


def skill_text(skill: Skill | dict[str, Any]) -> str:
    """What a skill is searched by: its trigger, then its procedure."""
    get = skill.get if isinstance(skill, dict) else lambda name: getattr(skill, name)
    return f"{get('trigger')}\n{get('procedure')}"


def embed(texts: list[str]) -> np.ndarray | None:
    """Unit vectors of `texts`, or None when the embedder is unavailable."""
    try:
        vectors = np.asarray(get_embedder().embed(texts), dtype=np.float32)
    except EmbedderError:
        return None
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def vectors_of(skills: list[Skill]) -> tuple[list[Skill], np.ndarray]:
    """The skills with a vector of the current model, and those vectors (rows)."""
    model, dim = current_model_id(), current_dim()
    kept, rows = [], []
    for skill in skills:
        vector = from_bytes(skill.embedding, dim) if skill.embedding_model == model else None
        if vector is not None:
            kept.append(skill)
            rows.append(vector)
    return kept, (np.vstack(rows) if rows else np.zeros((0, dim), dtype=np.float32))


def _clean(fields: dict[str, Any]) -> dict[str, Any]:
    for name in ("trigger", "procedure"):
        if not str(fields.get(name) or "").strip():
            raise ValidationError({name: "A skill needs a trigger and a procedure."})
    cleaned = {
        k: (str(v).strip()[:TEXT_MAX] if isinstance(v, str) else v) for k, v in fields.items()
    }
    cleaned["confidence"] = min(1.0, max(0.0, float(fields.get("confidence", 0.5))))
    return cleaned


def _same(agent_type: AgentType, fields: dict[str, Any], vector: np.ndarray | None) -> Skill | None:
    """The proposed or approved skill of the type that says the same, if any."""
    known = list(Skill.objects.filter(agent_type=agent_type).exclude(status="rejected"))
    trigger = fields["trigger"].strip().lower()
    for skill in known:
        if skill.trigger.strip().lower() == trigger:
            return skill
    if vector is None:
        return None
    kept, rows = vectors_of(known)
    if not kept:
        return None
    scores = rows @ vector
    best = int(np.argmax(scores))
    return kept[best] if scores[best] >= SAME_SKILL else None


def skill_propose(
    *,
    agent_type: AgentType,
    fields: dict[str, Any],
    scrubbed: int,
    contributor: Any,
    session: Session,
) -> tuple[Skill, str]:
    """Store a scrubbed skill learned from `contributor`'s `session`; returns the skill and
    what happened: "proposed", "approved" (the type approves on its own), "validated" (an
    approved skill says the same) or "seconded" (a proposed one does)."""
    fields = _clean(fields)
    vectors = embed([skill_text(fields)])
    vector = vectors[0] if vectors is not None else None
    now = timezone.now()
    with transaction.atomic():
        same = _same(agent_type, fields, vector)
        if same is not None and same.status == "approved":
            skill_validate(skill=same, when=now)
            same.refresh_from_db()
            return same, "validated"
        if same is not None:
            Skill.objects.filter(pk=same.pk).update(
                sessions_learned_from=F("sessions_learned_from") + 1
            )
            SkillContribution.objects.create(owner=contributor, skill=same, session=session)
            same.refresh_from_db()
            return same, "seconded"
        approved = agent_type.auto_approve_skills
        skill = Skill.objects.create(
            agent_type=agent_type,
            scrubbed=scrubbed,
            status="approved" if approved else "proposed",
            learned_at=now,
            last_validated_at=now,
            reviewed_at=now if approved else None,
            embedding=to_bytes(vector) if vector is not None else None,
            embedding_model=current_model_id() if vector is not None else "",
            **fields,
        )
        if not approved:  # an approved skill keeps no link to a user
            SkillContribution.objects.create(owner=contributor, skill=skill, session=session)
    return skill, "approved" if approved else "proposed"


def skill_review(*, skill_id: int, reviewer: Any, approve: bool) -> Skill:
    """Approve or reject a skill (staff only); either way it keeps no link to the users
    it came from."""
    if not getattr(reviewer, "is_staff", False) or not reviewer.is_active:
        raise PermissionDenied("Only staff review skills.")
    with transaction.atomic():
        skill = Skill.objects.select_for_update().get(pk=skill_id)
        skill.status = "approved" if approve else "rejected"
        skill.reviewed_by, skill.reviewed_at = reviewer, timezone.now()
        if approve:
            skill.last_validated_at = skill.reviewed_at
        skill.save()
        SkillContribution.objects.filter(skill=skill).delete()
    return skill


def skill_validate(*, skill: Skill, when: datetime | None = None) -> int:
    """The skill proved useful again: +1, confidence up, its decay clock restarts."""
    return Skill.objects.filter(pk=skill.pk, status="approved").update(
        times_validated=F("times_validated") + 1,
        confidence=F("confidence") + (1 - F("confidence")) * VALIDATION_GAIN,
        last_validated_at=when or timezone.now(),
    )


def skill_validate_for(*, agent: Agent | None, skill_id: int) -> Skill:
    """An agent says one of its type's approved skills worked (others: DoesNotExist)."""
    skill = Skill.objects.for_agent(agent).get(pk=skill_id)
    skill_validate(skill=skill)
    skill.refresh_from_db()
    return skill


def skills_decay(*, now: datetime | None = None) -> int:
    """Approved skills not validated (nor decayed) for DECAY_AFTER lose 10% confidence."""
    now = now or timezone.now()
    idle = now - DECAY_AFTER
    due = Skill.objects.filter(status="approved", last_validated_at__lt=idle).exclude(
        decayed_at__gte=idle
    )
    return due.update(confidence=F("confidence") * DECAY_FACTOR, decayed_at=now)


def contributions_erase(*, user: Any) -> dict[str, int]:
    """Take `user`'s part back from skills still under review: a proposed skill learned
    only from their sessions goes; from others' too, it loses their contribution."""
    mine = SkillContribution.objects.for_user(user)
    skill_ids = set(mine.values_list("skill_id", flat=True))
    others = set(
        SkillContribution.objects.filter(skill_id__in=skill_ids)
        .exclude(owner_id=user.pk)
        .values_list("skill_id", flat=True)
    )
    proposed = Skill.objects.filter(pk__in=skill_ids - others, status="proposed")
    alone = list(proposed.values_list("pk", flat=True))
    with transaction.atomic():
        dropped = mine.count()
        removed = Skill.objects.filter(pk__in=alone).delete()[1].get(Skill._meta.label, 0)
        mine.delete()
    return {"skills_proposed": removed, "skill_contributions": dropped}
