"""Reads of findings, always scoped to one user."""

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet

from core.text import check_text
from discovery.models import STATUSES, Finding


def findings_list(*, user: Any, status: str = "pending", scanner: str | None = None) -> QuerySet:
    """The user's findings with `status` ('all' for every status), oldest first."""
    findings = Finding.objects.for_user(user).select_related("knowledge")
    if status != "all":
        if status not in STATUSES:
            raise ValidationError(
                {"status": f"Use one of: {', '.join([*STATUSES, 'all'])}."}, code="invalid"
            )
        findings = findings.filter(status=status)
    if scanner:
        check_text(scanner, field="scanner")  # a NUL in the query string: 400 on every backend
        findings = findings.filter(scanner=scanner)
    return findings.order_by("created_at", "pk")


def findings_counts(*, user: Any) -> dict[str, int]:
    """Number of the user's findings per status."""
    rows = Finding.objects.for_user(user).values("status").order_by().annotate(n=Count("pk"))
    return dict.fromkeys(STATUSES, 0) | {row["status"]: row["n"] for row in rows}
