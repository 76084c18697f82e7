"""Every write to webhooks: endpoints (create, change, secret, pause, resume, delete),
events into the outbox (`events_emit`, inside the caller's transaction), and what
erasure and retention remove. Sending is `webhooks.delivery`.
"""

import base64
import secrets
import socket
from collections.abc import Iterable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import App
from accounts.people import person_of
from core.outgoing import is_public
from core.queue import enqueue_on_commit
from core.validation import clean_short
from webhooks.models import EVENTS, Attempt, Delivery, Endpoint, Event

SECRET_PREFIX = "whsec_"
DELIVER_TASK = "webhooks.tasks.deliver_endpoint"
URL_MAX = 2000
MAX_ENDPOINTS = 20  # per person or app
ERASED = "user.erased"
ERASED_REASON = "failed (the reason went with an erased item)"


def _new_secret() -> str:
    """whsec_ and 32 random bytes in base64: the Standard Webhooks secret format."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def may_reach_private(*, user: Any = None, endpoint: Endpoint | None = None) -> bool:
    """Whether an endpoint (or a new one of `user`) may be sent to loopback, private or
    link-local addresses: a staff member's own always; a person's or an app's only when
    the operator turned GAIA_WEBHOOK_ALLOW_PRIVATE on (docs/webhooks.md)."""
    if settings.GAIA_WEBHOOK_ALLOW_PRIVATE:
        return True
    owner = endpoint.owner if endpoint is not None and endpoint.owner_id else user
    return bool(getattr(owner, "is_staff", False))


def host_is_private(host: str) -> bool:
    """True when `host` is, or now resolves to, a non-public address. A first check, for
    a clear answer to the owner (a name that does not resolve yet passes); the rule that
    holds is checked on the address each delivery connects to (core/outgoing.py)."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    return not all(is_public(info[4][0]) for info in infos)


def clean_url(value: Any, *, allow_private: bool) -> str:
    """An http(s) URL with a host and no credentials in it; a loopback or private host
    only when `allow_private` (may_reach_private)."""
    url = clean_short(value, field="url", limit=URL_MAX).strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a bad port)
    except ValueError:  # "http://[::1", "http://host:99999"
        raise ValidationError({"url": "Not a valid URL."}, code="invalid") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url):
        raise ValidationError({"url": "An http:// or https:// URL with a host."}, code="invalid")
    if parts.username or parts.password:
        raise ValidationError(
            {"url": "No credentials in the URL: verify the signature instead."}, code="invalid"
        )
    if not allow_private and host_is_private(parts.hostname):
        raise ValidationError(
            {"url": "This server sends webhooks to public addresses only."}, code="private"
        )
    return url


def clean_events(value: Any) -> list[str]:
    """A non-empty list of known event names ("*" for all of them), in EVENTS order."""
    if value == "*" or value == ["*"]:
        return list(EVENTS)
    if not isinstance(value, list | tuple) or not value:
        raise ValidationError({"events": "A non-empty list of event names."}, code="invalid")
    unknown = sorted({str(v) for v in value} - set(EVENTS))
    if unknown:
        raise ValidationError(
            {"events": f"Unknown: {', '.join(unknown)}. Known: {', '.join(EVENTS)}."},
            code="invalid",
        )
    return [name for name in EVENTS if name in value]


def endpoint_create(
    *, url: Any, events: Any, user: Any = None, app: App | None = None, description: Any = ""
) -> tuple[Endpoint, str]:
    """A new endpoint of one person (`user`) or one app; returns it and its signing
    secret, which is shown this once (it can be rotated, never read again)."""
    if (user is None) == (app is None):
        raise ValueError("an endpoint belongs to a person or to an app")
    mine = Endpoint.objects.for_app(app) if app is not None else Endpoint.objects.for_user(user)
    if mine.count() >= MAX_ENDPOINTS:
        raise ValidationError(f"At most {MAX_ENDPOINTS} endpoints.", code="limit")
    secret = _new_secret()
    endpoint = Endpoint.objects.create(
        owner=user,
        app=app,
        url=clean_url(url, allow_private=may_reach_private(user=user)),
        events=clean_events(events),
        description=clean_short(description or "", field="description", limit=200),
        secret=secret,
    )
    return endpoint, secret


def endpoint_update(
    *, endpoint: Endpoint, url: Any = None, events: Any = None, description: Any = None
) -> Endpoint:
    """Change the given fields; events already queued keep going to the endpoint."""
    if url is not None:
        endpoint.url = clean_url(url, allow_private=may_reach_private(endpoint=endpoint))
    if events is not None:
        endpoint.events = clean_events(events)
    if description is not None:
        endpoint.description = clean_short(description, field="description", limit=200)
    endpoint.save(update_fields=["url", "events", "description"])
    return endpoint


def endpoint_rotate_secret(*, endpoint: Endpoint) -> str:
    """A new signing secret, used from the next attempt on; returns it (shown once)."""
    endpoint.secret = _new_secret()
    endpoint.save(update_fields=["secret"])
    return endpoint.secret


def endpoint_pause(*, endpoint: Endpoint, reason: str = "paused by its owner") -> Endpoint:
    """Stop sending; events keep being queued for it and go out once it is resumed."""
    if endpoint.paused_at is None:
        endpoint.paused_at = timezone.now()
        endpoint.pause_reason = reason[:300]
        endpoint.save(update_fields=["paused_at", "pause_reason"])
    return endpoint


def endpoint_resume(*, endpoint: Endpoint) -> Endpoint:
    """Send again, starting now with the oldest event still waiting."""
    now = timezone.now()
    with transaction.atomic():
        Endpoint.objects.filter(pk=endpoint.pk).update(
            paused_at=None, pause_reason="", failures=0, failing_since=None
        )
        endpoint.deliveries.filter(status=Delivery.PENDING).update(next_attempt_at=now)
        enqueue_on_commit(DELIVER_TASK, endpoint.pk)
    endpoint.refresh_from_db()
    return endpoint


def endpoint_delete(*, endpoint: Endpoint) -> None:
    """Delete the endpoint with its deliveries and their log; events nobody else is
    waiting for go too."""
    with transaction.atomic():
        events = list(endpoint.deliveries.values_list("event_id", flat=True))
        endpoint.delete()
        _orphans_delete(events)


def _orphans_delete(event_ids: Iterable[int]) -> int:
    ids = list(event_ids)
    if not ids:
        return 0
    kept = Delivery.objects.filter(event_id__in=ids).values_list("event_id", flat=True)
    return Event.objects.filter(pk__in=ids).exclude(pk__in=kept).delete()[0]


def _listening(user: Any) -> list[Endpoint]:
    """The endpoints that receive `user`'s events: their own and their app's (not while
    the app is disabled: it is told nothing of what happens meanwhile)."""
    mine = Q(owner_id=user.pk) | Q(app__people__user_id=user.pk, app__disabled_at__isnull=True)
    return list(Endpoint.objects.filter(mine).only("pk", "events").order_by("pk"))


def events_emit(*, user: Any, events: list[tuple[str, int | None, dict]]) -> int:
    """Queue events about `user`'s memory, inside the caller's transaction: each is
    (kind, item id or None, the data the receivers get: only `user`'s). A rolled-back
    change sends nothing; a committed one is delivered. Returns how many deliveries."""
    if not events or getattr(user, "pk", None) is None:
        return 0
    endpoints = _listening(user)
    if not endpoints:
        return 0
    person = person_of(user)
    external_id = person.external_id if person is not None else ""
    now = timezone.now()
    wanted = [(entry, [e for e in endpoints if entry[0] in e.events]) for entry in events]
    wanted = [(entry, targets) for entry, targets in wanted if targets]
    if not wanted:
        return 0
    rows = Event.objects.bulk_create(
        Event(
            kind=kind,
            subject_id=user.pk,
            external_id=external_id,
            item_id=item_id,
            data=data,
            created_at=now,
        )
        for (kind, item_id, data), _ in wanted
    )
    deliveries = [
        Delivery(endpoint_id=endpoint.pk, event=event, next_attempt_at=now, created_at=now)
        for event, (_, targets) in zip(rows, wanted, strict=True)
        for endpoint in targets
    ]
    Delivery.objects.bulk_create(deliveries)
    for endpoint_id in sorted({d.endpoint_id for d in deliveries}):
        enqueue_on_commit(DELIVER_TASK, endpoint_id)
    return len(deliveries)


def item_events_redact(*, user: Any, item_ids: Iterable[int]) -> int:
    """Drop what earlier events said about erased items (delivered or not): only the
    item's id stays, so the outbox and its log keep none of the erased text."""
    ids = list(item_ids)
    if not ids or getattr(user, "pk", None) is None:
        return 0
    mine = Event.objects.filter(subject_id=user.pk)
    changed = 0
    for event in mine.filter(item_id__in=ids).only("pk", "item_id"):
        changed += mine.filter(pk=event.pk).update(data={"item": {"id": event.item_id}})
    # A conflict.found about another item quotes the erased one as `conflicts_with`.
    for event in mine.filter(kind="conflict.found", data__conflicts_with__id__in=ids):
        event.data["conflicts_with"] = {"id": event.data["conflicts_with"]["id"]}
        changed += mine.filter(pk=event.pk).update(data=event.data)
    _log_blank(mine.filter(item_id__in=ids))
    return changed


def _log_blank(events: Any) -> None:
    """Whatever an attempt at these events kept beyond its status goes (a log written
    before the log kept fixed reasons only may quote the receiver's answer)."""
    deliveries = Delivery.objects.filter(event__in=events)
    Attempt.objects.filter(delivery__in=deliveries).exclude(error="").update(error=ERASED_REASON)
    deliveries.exclude(last_error="").update(last_error=ERASED_REASON)


def user_webhooks_erase(*, user: Any, erased: dict[str, int]) -> dict[str, int]:
    """A person's whole erase: their own endpoints go, and every event about them
    (delivered or waiting, with its log); then their app's endpoints are told
    `user.erased` (with `erased`, the counts), so the app drops what it kept of them."""
    with transaction.atomic():
        endpoints = Endpoint.objects.for_user(user).delete()[1].get(Endpoint._meta.label, 0)
        events = Event.objects.filter(subject_id=user.pk).delete()[1].get(Event._meta.label, 0)
        events_emit(user=user, events=[(ERASED, None, {"erased": erased})])
    return {"webhook_endpoints": endpoints, "webhook_events": events}


def deliveries_prune(*, now: Any = None) -> int:
    """Deliveries older than GAIA_WEBHOOK_KEEP_DAYS go, with their log and events:
    delivered ones, failed pings, and waiting ones that kept failing (attempted at least
    once, never delivered); returns how many deliveries."""
    before = (now or timezone.now()) - timedelta(days=settings.GAIA_WEBHOOK_KEEP_DAYS)
    old = Delivery.objects.filter(
        Q(status=Delivery.DELIVERED, delivered_at__lt=before)
        | Q(status=Delivery.FAILED, created_at__lt=before)
        | Q(status=Delivery.PENDING, attempts__gt=0, created_at__lt=before)
    )
    total = 0
    while True:
        with transaction.atomic():
            chunk = list(old.values_list("pk", "event_id")[:500])
            if not chunk:
                return total
            Delivery.objects.filter(pk__in=[pk for pk, _ in chunk]).delete()
            _orphans_delete({event for _, event in chunk})
        total += len(chunk)
