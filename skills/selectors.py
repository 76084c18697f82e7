"""Reads of skill memory for a person's stats: the skills their agents helped learn."""

from typing import Any

from django.db.models import Avg, Count, Q, Sum

from skills.models import Skill, SkillContribution


def skill_stats(*, user: Any) -> dict[str, Any]:
    """Seed 001's skills_learned for `user`: the skills their agents taught or confirmed
    (not rejected), how many by agent type and by review status, their mean confidence."""
    mine = SkillContribution.objects.for_user(user).values_list("skill_id", flat=True)
    skills = Skill.objects.filter(pk__in=mine).exclude(status="rejected")
    by_type = skills.values("agent_type__name").annotate(n=Count("pk")).order_by("agent_type__name")
    by_status = skills.values("status").annotate(n=Count("pk")).order_by("status")
    mean = skills.aggregate(mean=Avg("confidence"))["mean"]
    return {
        "total": skills.count(),
        "by_agent_type": {row["agent_type__name"]: row["n"] for row in by_type},
        "by_status": {row["status"]: row["n"] for row in by_status},
        "avg_confidence": round(mean, 2) if mean is not None else None,
    }


def skill_type_stats() -> list[dict[str, Any]]:
    """For staff: per agent type, its skills by status, mean confidence of the approved
    ones and how often they were validated (the admin's skill analytics)."""
    rows = (
        Skill.objects.values("agent_type__name")
        .annotate(
            total=Count("pk"),
            approved=Count("pk", filter=Q(status="approved")),
            proposed=Count("pk", filter=Q(status="proposed")),
            avg_confidence=Avg("confidence", filter=Q(status="approved")),
            validations=Sum("times_validated"),
        )
        .order_by("agent_type__name")
    )
    return [
        {
            "agent_type": row["agent_type__name"],
            "total": row["total"],
            "approved": row["approved"],
            "proposed": row["proposed"],
            "avg_confidence": round(row["avg_confidence"], 2)
            if row["avg_confidence"] is not None
            else None,
            "validations": row["validations"] or 0,
        }
        for row in rows
    ]
