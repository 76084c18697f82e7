"""Every change to skill memory: propose (or validate a known skill), review, validate,
decay, trust an agent, and take a person's contributions back.

A proposed skill that says what an existing skill of its type says (its embedding at
least SAME_SKILL near, or the same trigger) is not stored twice: an approved one is
validated (seed 001: +1, confidence up), a proposed one gains the contribution.

Review cannot be skipped by the people whose skills are reviewed: a skill is approved
without staff only when its type approves skills on its own *and* staff trusted the
proposing agent in that type (`agent_trust`); each person's agents propose at most
PROPOSALS_PER_DAY skills to a type a day, at a confidence of at most PROPOSED_CONFIDENCE
(whatever the model said); and a person counts once per skill, so saying again that a
skill worked does not raise its confidence again.
"""

from dataclasses import dataclass
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
from skills.models import Skill, SkillContribution, SkillWord, TrustedAgent
from skills.personal import personal_terms, scrubber_for
from skills.prompts import LIST_FIELDS, TEXT_FIELDS, TEXT_MAX
from skills.scrub import Terms
from skills.words import word_digest

SAME_SKILL = 0.92  # cosine of two wordings of one procedure (same trigger, same tools)
VALIDATION_GAIN = 0.1  # a validation moves confidence a tenth of the way to 1
DECAY_AFTER = timedelta(days=90)  # seed 001: not validated for 90 days ...
DECAY_FACTOR = 0.9  # ... loses 10% of its confidence, once per 90 idle days
PROPOSALS_PER_DAY = 10  # new or seconded skills one person's agents propose to one type
PROPOSAL_WINDOW = timedelta(days=1)
PROPOSED_CONFIDENCE = 0.5  # the most a proposal starts with; validations by others raise it
WORDS_MAX = 2000  # words of one session's proposals counted as taught


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
    try:
        confidence = float(fields.get("confidence", PROPOSED_CONFIDENCE))
    except (TypeError, ValueError):
        confidence = PROPOSED_CONFIDENCE
    cleaned["confidence"] = min(PROPOSED_CONFIDENCE, max(0.0, confidence))
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


def proposals_recent(*, owner_id: int, agent_type: AgentType, now: datetime) -> int:
    """How many skills one person's agents proposed (or taught again) to a type lately."""
    return SkillContribution.objects.filter(
        owner_id=owner_id,
        skill__agent_type=agent_type,
        kind__in=("learned", "seconded"),
        created_at__gte=now - PROPOSAL_WINDOW,
    ).count()


def agent_trusted(agent: Agent) -> bool:
    """Whether staff let `agent`'s skills skip review in the type it is now of."""
    return (
        agent.agent_type_id is not None
        and TrustedAgent.objects.filter(agent=agent, agent_type_id=agent.agent_type_id).exists()
    )


def _contribute(skill: Skill, owner_id: int, kind: str, **details: Any) -> bool:
    """Record a person's part in `skill`; False when they already have one (at most one
    per person and skill, also when two of their sessions race)."""
    _, created = SkillContribution.objects.get_or_create(
        skill=skill, owner_id=owner_id, defaults={"kind": kind, **details}
    )
    return created


def skill_propose(
    *, agent: Agent, session: Session, fields: dict[str, Any], scrubbed: int
) -> tuple[Skill | None, str]:
    """Store a scrubbed skill learned from the `session` of `agent` (an instance of a
    type); returns the skill and what happened: "proposed", "approved" (the type
    approves on its own and staff trusted the agent), "validated" (an approved skill
    says the same), "seconded" (a proposed one does), "known" (this person already
    counted for that skill) or "limited" (no skill: PROPOSALS_PER_DAY reached)."""
    agent_type = agent.agent_type
    fields = _clean(fields)
    vectors = embed([skill_text(fields)])
    vector = vectors[0] if vectors is not None else None
    now = timezone.now()
    mine = {"session": session, "agent": agent, "created_at": now}
    with transaction.atomic():
        same = _same(agent_type, fields, vector)
        if same is not None and same.contributions.filter(owner_id=session.owner_id).exists():
            return same, "known"
        if same is not None and same.status == "approved":
            if _contribute(same, session.owner_id, "validated", **mine):
                _validate(same, now)
            same.refresh_from_db()
            return same, "validated"
        if proposals_recent(owner_id=session.owner_id, agent_type=agent_type, now=now) >= (
            PROPOSALS_PER_DAY
        ):
            return None, "limited"
        if same is not None:
            if _contribute(same, session.owner_id, "seconded", **mine):
                Skill.objects.filter(pk=same.pk).update(
                    sessions_learned_from=F("sessions_learned_from") + 1
                )
            same.refresh_from_db()
            return same, "seconded"
        approved = agent_type.auto_approve_skills and agent_trusted(agent)
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
        _contribute(skill, session.owner_id, "learned", **mine)
    return skill, "approved" if approved else "proposed"


def _staff(user: Any) -> bool:
    return bool(getattr(user, "is_staff", False) and getattr(user, "is_active", False))


def skill_review(*, skill_id: int, reviewer: Any, approve: bool) -> Skill:
    """Approve or reject a skill (active staff only). It keeps its links to the people
    it came from, so their erase still reaches it."""
    if not _staff(reviewer):
        raise PermissionDenied("Only staff review skills.")
    with transaction.atomic():
        skill = Skill.objects.select_for_update().get(pk=skill_id)
        skill.status = "approved" if approve else "rejected"
        skill.reviewed_by, skill.reviewed_at = reviewer, timezone.now()
        if approve:
            skill.last_validated_at = skill.reviewed_at
        skill.save()
    return skill


def _validate(skill: Skill, when: datetime) -> int:
    """The skill proved useful again: +1, confidence up, its decay clock restarts."""
    return Skill.objects.filter(pk=skill.pk, status="approved").update(
        times_validated=F("times_validated") + 1,
        confidence=F("confidence") + (1 - F("confidence")) * VALIDATION_GAIN,
        last_validated_at=when,
    )


def skill_validate_for(*, agent: Agent | None, skill_id: int) -> Skill:
    """An agent says one of its type's approved skills worked (others: DoesNotExist).
    Its person counts once per skill: saying it again changes nothing."""
    skill = Skill.objects.for_agent(agent).get(pk=skill_id)
    now = timezone.now()
    with transaction.atomic():
        if _contribute(skill, agent.owner_id, "validated", agent=agent, created_at=now):
            _validate(skill, now)
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


def agent_trust(*, agent: Agent, by: Any) -> TrustedAgent:
    """Staff let `agent`'s skills skip review in the type it is of (they are approved at
    once while the type approves skills on its own). Only active staff decide this."""
    if not _staff(by):
        raise PermissionDenied("Only staff decide which agents' skills skip review.")
    if agent.agent_type_id is None:
        raise ValidationError({"agent": "The agent is of no type."})
    trusted, _ = TrustedAgent.objects.get_or_create(
        agent=agent, agent_type_id=agent.agent_type_id, defaults={"granted_by": by}
    )
    return trusted


@dataclass(frozen=True)
class ContributionsErased:
    counts: dict[str, int]
    deleted_skills: list[int]  # their admin log lines go too (privacy)


def _rescrub(skill: Skill, user: Any, terms: Terms) -> bool | None:
    """`skill` scrubbed again with `user`'s personal `terms`: None when its trigger held
    any of them (the skill must go), else whether the text changed."""
    scrubber = scrubber_for(
        user=user, terms=terms, agent_type=skill.agent_type, tool_names=skill.tools_used
    )
    names = [*TEXT_FIELDS, *LIST_FIELDS]
    changed, in_trigger = scrubber.skill({name: getattr(skill, name) for name in names})
    if in_trigger:
        return None
    if all(getattr(skill, name) == value for name, value in changed.items()):
        return False
    vectors = embed([skill_text(changed)])
    Skill.objects.filter(pk=skill.pk).update(
        **changed,
        scrubbed=F("scrubbed") + scrubber.replaced,
        embedding=to_bytes(vectors[0]) if vectors is not None else None,
        embedding_model=current_model_id() if vectors is not None else "",
    )
    return True


def contributions_erase(*, user: Any) -> ContributionsErased:
    """Take `user`'s part out of skill memory, whatever each skill's status: a skill
    whose text came from their session goes, unless others taught it or said it worked
    too: then it is scrubbed again with everything of theirs (and goes if its trigger
    held any of it). Either way their count goes (sessions it was learned from, times
    validated)."""
    mine = list(SkillContribution.objects.for_user(user).select_related("skill__agent_type"))
    session_ids = {c.session_id for c in mine if c.session_id is not None}
    terms: Terms | None = None  # read once, when a skill needs them
    counts = {"skills": 0, "skills_rescrubbed": 0, "skill_contributions": len(mine)}
    deleted: list[int] = []
    with transaction.atomic():
        for contribution in mine:
            skill = contribution.skill
            if contribution.kind == "learned":
                others = skill.contributions.exclude(owner_id=user.pk).exists()
                if others and terms is None:
                    sessions = Session.objects.for_user(user).filter(pk__in=session_ids)
                    terms = personal_terms(user, sessions)
                outcome = _rescrub(skill, user, terms) if others and terms else None
                if outcome is None:
                    deleted.append(skill.pk)
                    continue
                counts["skills_rescrubbed"] += int(outcome)
            if contribution.kind == "validated":
                Skill.objects.filter(pk=skill.pk, times_validated__gt=0).update(
                    times_validated=F("times_validated") - 1
                )
            else:
                Skill.objects.filter(pk=skill.pk, sessions_learned_from__gt=1).update(
                    sessions_learned_from=F("sessions_learned_from") - 1
                )
        SkillContribution.objects.for_user(user).delete()
        counts["skill_words"] = SkillWord.objects.for_user(user).delete()[0]
        counts["skills"] = (
            Skill.objects.filter(pk__in=deleted).delete()[1].get(Skill._meta.label, 0)
        )
    return ContributionsErased(counts, deleted)


def skill_words_record(*, owner_id: int, agent_type: AgentType, words_taught: set[str]) -> int:
    """Count `words_taught` (lower case) as taught to `agent_type` by one person: a
    digest per word and person (skills.models.SkillWord). Returns how many were new."""
    rows = [
        SkillWord(owner_id=owner_id, agent_type=agent_type, digest=word_digest(word))
        for word in sorted(words_taught)[:WORDS_MAX]
    ]
    before = SkillWord.objects.filter(owner_id=owner_id, agent_type=agent_type).count()
    SkillWord.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    return SkillWord.objects.filter(owner_id=owner_id, agent_type=agent_type).count() - before
