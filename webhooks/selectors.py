"""Reads of webhooks: an owner's endpoints (a person's or an app's, never both) and their
deliveries. Another owner's endpoint is missing, the same answer as a missing id."""

from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet

from accounts.models import App
from webhooks.models import PING, Attempt, Delivery, Endpoint

RECENT = 20


def endpoint_list(*, user: Any = None, app: App | None = None) -> QuerySet[Endpoint]:
    """The endpoints of `app` when given, else of the person `user`; with how many
    deliveries wait for each (`waiting`)."""
    mine = Endpoint.objects.for_app(app) if app is not None else Endpoint.objects.for_user(user)
    waiting = Count("deliveries", filter=Q(deliveries__status=Delivery.PENDING))
    return mine.annotate(waiting=waiting).order_by("created_at", "pk")


def endpoint_get(*, endpoint_id: int, user: Any = None, app: App | None = None) -> Endpoint:
    """One endpoint of the owner; Endpoint.DoesNotExist for any other id."""
    return endpoint_list(user=user, app=app).get(pk=endpoint_id)


def delivery_list(*, endpoint: Endpoint, status: str | None = None) -> QuerySet[Delivery]:
    """The endpoint's deliveries, newest first, with their event and attempt log."""
    rows = endpoint.deliveries.select_related("event").prefetch_related(
        Prefetch("log", queryset=Attempt.objects.order_by("at", "pk"))
    )
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("-pk")


def recent_deliveries(*, endpoints: list[Endpoint], limit: int = RECENT) -> list[Delivery]:
    """The latest deliveries to any of `endpoints` (the web page's list)."""
    rows = Delivery.objects.filter(endpoint__in=endpoints).select_related("event", "endpoint")
    return list(rows.order_by("-pk")[:limit])


def is_ping(delivery: Delivery) -> bool:
    return delivery.event.kind == PING


def deliveries_waiting() -> int:
    """Every endpoint's deliveries waiting to be sent (the installation's backlog, for
    the operator's metrics)."""
    return Delivery.objects.filter(status=Delivery.PENDING).exclude(event__kind=PING).count()
