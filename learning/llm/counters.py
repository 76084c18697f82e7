"""Count every LLM outcome persistently, so stats and health see failures in any process."""

import logging
from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from learning.models import LLMCounter

log = logging.getLogger("gaia.llm")
OK = "ok"


def llm_count(kind: str, *, user: Any = None, message: str = "") -> None:
    """Add one to the (user, kind) counter; never raises (counting must not break work)."""
    owner_id = getattr(user, "pk", None)
    now = timezone.now()
    if kind != OK:
        log.warning("LLM failure (%s) for user %s: %s", kind, owner_id, message)
    try:
        with transaction.atomic():
            updated = LLMCounter.objects.filter(owner_id=owner_id, kind=kind).update(
                count=F("count") + 1, last_at=now, last_message=message[:500]
            )
            if not updated:
                LLMCounter.objects.create(
                    owner_id=owner_id,
                    kind=kind,
                    count=1,
                    first_at=now,
                    last_at=now,
                    last_message=message[:500],
                )
    except DatabaseError:
        log.exception("could not count an LLM %s outcome", kind)


def llm_counts(*, user: Any = None, since: Any = None) -> dict[str, Any]:
    """Totals per kind (one user's, or all when user is None) and the last failure."""
    rows = LLMCounter.objects.all()
    if user is not None:
        rows = rows.filter(owner_id=user.pk)
    if since is not None:
        rows = rows.filter(last_at__gte=since)
    per_kind = {
        row["kind"]: row["n"]
        for row in rows.values("kind").annotate(n=Sum("count")).order_by("kind")
    }
    failures = {k: n for k, n in per_kind.items() if k != OK}
    last = (
        rows.filter(~Q(kind=OK))
        .order_by("-last_at")
        .values("kind", "last_at", "last_message")
        .first()
    )
    return {
        "calls_ok": per_kind.get(OK, 0),
        "failures": failures,
        "failures_total": sum(failures.values()),
        "last_failure": (
            {
                "kind": last["kind"],
                "at": last["last_at"].isoformat(),
                "message": last["last_message"],
            }
            if last
            else None
        ),
    }
