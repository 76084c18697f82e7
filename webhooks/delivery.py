"""Sending: the worker POSTs an endpoint's waiting deliveries strictly in order, signs
each, logs each attempt, and backs off, then pauses, when the receiver keeps failing.

One worker at a time sends one endpoint's queue (a lease on the endpoint row), and the
queue stops at the first delivery that fails or is not due yet: an item's later event is
never delivered before its earlier one. The sweep (`deliveries_sweep`, scheduled every
GAIA_WEBHOOK_SWEEP_INTERVAL minutes and queued at start-up) picks up whatever is due,
so retries and a worker's restart need nothing else.
"""

import base64
import binascii
import hashlib
import hmac
import json
import logging
import time
from datetime import timedelta
from typing import Any

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.outgoing import ModelServerError, RefusedAddressError, post_bytes
from core.queue import enqueue_now
from webhooks.models import PING, Attempt, Delivery, Endpoint, Event
from webhooks.services import DELIVER_TASK, SECRET_PREFIX, may_reach_private

log = logging.getLogger("gaia.background")
# Wait after the n-th failed attempt of a delivery (then the last, again and again).
BACKOFF = (
    timedelta(seconds=10),
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=6),
)
RUN_SECONDS = 60  # one task's share of the worker; the rest is queued again
USER_AGENT = "Gaia-Webhooks/1"
# The delivery log keeps the status and one of these, never what the receiver answered
# (it may echo the body, or be another service's bytes).
REFUSED = "refused: the host is not a public address"
REASONS = (
    (httpx.TimeoutException, "no answer in time"),
    (httpx.ConnectError, "could not connect"),
    (httpx.RemoteProtocolError, "the connection was closed or the answer was not HTTP"),
    (httpx.TransportError, "the connection failed"),
    (httpx.InvalidURL, "not a valid URL"),
)


def backoff(attempts: int) -> timedelta:
    """How long to wait after `attempts` failed attempts (1 -> 10 s, ... capped at 6 h)."""
    return BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1]


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The X-Gaia-Signature value: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>
    (kept for one release beside the Standard Webhooks headers)."""
    message = timestamp.encode("ascii") + b"." + body
    return "v1=" + hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def sign_standard(secret: str, message_id: str, timestamp: str, body: bytes) -> str | None:
    """The webhook-signature value of Standard Webhooks: v1,<base64 HMAC-SHA256 keyed with
    the secret's base64 bytes, of "<id>.<timestamp>.<body>">; None for a secret made
    before secrets were base64 that the standard's decoding cannot read (rotate it)."""
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX) + "==")
    except (binascii.Error, ValueError):
        return None
    if not key:
        return None
    message = f"{message_id}.{timestamp}.".encode("ascii") + body
    return "v1," + base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()


def reason(error: ModelServerError) -> str:
    """The fixed reason the log keeps for a failed send."""
    if isinstance(error, RefusedAddressError):
        return REFUSED
    for kind, text in REASONS:
        if isinstance(error.__cause__, kind):
            return text
    return "the request failed"


def body_of(event: Event) -> bytes:
    """What every receiver of `event` gets (the same bytes at every attempt)."""
    return json.dumps(
        {
            "id": f"evt_{event.pk}",
            "type": event.kind,
            "created_at": event.created_at.isoformat(),
            "user_id": event.external_id or None,
            "data": event.data,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")


def _headers(endpoint: Endpoint, delivery: Delivery, body: bytes) -> dict[str, str]:
    timestamp, message_id = str(int(time.time())), f"msg_{delivery.pk}"
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": message_id,  # the same on every retry: deduplicate on it
        "webhook-timestamp": timestamp,
        "X-Gaia-Event": delivery.event.kind,
        "X-Gaia-Delivery": str(delivery.pk),
        "X-Gaia-Timestamp": timestamp,
        "X-Gaia-Signature": sign(endpoint.secret, timestamp, body),
    }
    standard = sign_standard(endpoint.secret, message_id, timestamp, body)
    if standard:
        headers["webhook-signature"] = standard
    return headers


def _post(endpoint: Endpoint, delivery: Delivery) -> tuple[int | None, str, int]:
    """One POST: (status or None, a fixed reason when it failed, milliseconds)."""
    body = body_of(delivery.event)
    began = time.monotonic()
    status, error = None, ""
    try:
        status, _ = post_bytes(
            endpoint.url,
            body,
            headers=_headers(endpoint, delivery, body),
            deadline_seconds=settings.GAIA_WEBHOOK_TIMEOUT,
            allow_private=may_reach_private(endpoint=endpoint),
            max_bytes=0,
        )
        if not 200 <= status < 300:
            error = f"HTTP {status}"
    except ModelServerError as failure:
        error = reason(failure)
    return status, error, int((time.monotonic() - began) * 1000)


def _record(endpoint: Endpoint, delivery: Delivery, status: int | None, error: str, ms: int):
    """Log the attempt and move the delivery and the endpoint on; True when delivered."""
    now = timezone.now()
    delivered = not error
    with transaction.atomic():
        Attempt.objects.create(
            delivery=delivery, at=now, status_code=status, error=error, duration_ms=ms
        )
        attempts = delivery.attempts + 1
        fields: dict[str, Any] = {"attempts": attempts, "last_status_code": status}
        fields["last_error"] = error
        if delivered:
            fields.update(status=Delivery.DELIVERED, delivered_at=now)
        elif delivery.event.kind == PING:
            fields["status"] = Delivery.FAILED
        else:
            fields["next_attempt_at"] = now + backoff(attempts)
        Delivery.objects.filter(pk=delivery.pk).update(**fields)
        if delivery.event.kind == PING:
            return delivered
        mine = Endpoint.objects.filter(pk=endpoint.pk)
        if delivered:
            mine.update(failures=0, failing_since=None)
            return True
        mine.update(failures=F("failures") + 1, failing_since=Coalesce("failing_since", now))
        _pause_if_failing(endpoint.pk, now)
    return False


def _pause_if_failing(endpoint_id: int, now: Any) -> None:
    """Pause after GAIA_WEBHOOK_PAUSE_FAILURES failures in a row spanning at least
    GAIA_WEBHOOK_PAUSE_HOURS: waiting deliveries stay, for when the owner resumes it."""
    span = timedelta(hours=settings.GAIA_WEBHOOK_PAUSE_HOURS)
    failures = settings.GAIA_WEBHOOK_PAUSE_FAILURES
    Endpoint.objects.filter(
        pk=endpoint_id,
        paused_at__isnull=True,
        failures__gte=failures,
        failing_since__lte=now - span,
    ).update(
        paused_at=now,
        pause_reason=f"paused after {failures}+ failed attempts in a row; resume it when "
        "the receiver is back",
    )


def _lease(endpoint_id: int) -> bool:
    """Take the endpoint's queue for this worker (False: paused, gone, its app disabled,
    or another has it)."""
    now = timezone.now()
    free = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    until = now + timedelta(seconds=settings.GAIA_WEBHOOK_TIMEOUT + 30)
    return bool(
        Endpoint.objects.filter(free, pk=endpoint_id, paused_at__isnull=True)
        .exclude(app__disabled_at__isnull=False)
        .update(lease_until=until)
    )


def _next_due(endpoint_id: int) -> Delivery | None:
    """The endpoint's oldest waiting delivery, if it is due now (else None: in order)."""
    head = (
        Delivery.objects.filter(endpoint_id=endpoint_id, status=Delivery.PENDING)
        .exclude(event__kind=PING)
        .select_related("event")
        .order_by("pk")
        .first()
    )
    return head if head is not None and head.next_attempt_at <= timezone.now() else None


def endpoint_deliver(*, endpoint_id: int, retry_soon: bool = False) -> dict[str, int | str]:
    """Send the endpoint's due deliveries in order until one fails or none is due.
    With `retry_soon` (a worker's run), a delivery failing for the first time is tried
    again in this run once its 10 s are up, rather than at the next sweep.
    Idempotent: a second run meanwhile finds the queue taken and does nothing."""
    sent = failed = 0
    began = time.monotonic()
    while _lease(endpoint_id):
        try:
            while time.monotonic() - began < RUN_SECONDS:
                endpoint = Endpoint.objects.filter(pk=endpoint_id).first()
                delivery = _next_due(endpoint_id)
                if endpoint is None or endpoint.paused_at is not None or delivery is None:
                    break
                if _record(endpoint, delivery, *_post(endpoint, delivery)):
                    sent += 1
                elif failed or delivery.attempts or not retry_soon or not _retry_wait(began):
                    failed += 1
                    break
                else:  # the first retry is 10 s away: sooner than the sweep comes by
                    failed += 1
                _lease_renew(endpoint_id)
        finally:
            Endpoint.objects.filter(pk=endpoint_id).update(lease_until=None)
        # Something committed while the lease was held (its task found it taken) is due
        # now: go again. A failure or the time limit leaves the rest to the sweep.
        if failed or time.monotonic() - began >= RUN_SECONDS or _next_due(endpoint_id) is None:
            break
    if time.monotonic() - began >= RUN_SECONDS and _next_due(endpoint_id) is not None:
        enqueue_now(DELIVER_TASK, (endpoint_id,))
    return {"endpoint": endpoint_id, "delivered": sent, "failed": failed}


def _retry_wait(began: float) -> bool:
    """Sleep until a delivery that just failed for the first time is due again, when it
    is due sooner than the next sweep and the wait fits in the task's time limit (else
    False: the sweep sends it)."""
    wait = backoff(1).total_seconds()
    sweep = settings.GAIA_WEBHOOK_SWEEP_INTERVAL * 60
    used = time.monotonic() - began + wait + settings.GAIA_WEBHOOK_TIMEOUT + 5
    if wait >= sweep or used >= settings.Q_CLUSTER["timeout"]:
        return False
    time.sleep(wait + 0.05)
    return True


def _lease_renew(endpoint_id: int) -> None:
    until = timezone.now() + timedelta(seconds=settings.GAIA_WEBHOOK_TIMEOUT + 30)
    Endpoint.objects.filter(pk=endpoint_id).update(lease_until=until)


def deliveries_sweep() -> int:
    """Queue a delivery run for every active endpoint with a due delivery and a free
    queue (retries, and whatever a stopped worker left); returns how many."""
    now = timezone.now()
    due = (
        Delivery.objects.filter(
            status=Delivery.PENDING,
            next_attempt_at__lte=now,
            endpoint__paused_at__isnull=True,
        )
        .filter(Q(endpoint__lease_until__isnull=True) | Q(endpoint__lease_until__lt=now))
        .exclude(event__kind=PING)
        .exclude(endpoint__app__disabled_at__isnull=False)  # held until it is enabled
        .values_list("endpoint_id", flat=True)
        .distinct()
    )
    ids = sorted(set(due))
    for endpoint_id in ids:
        enqueue_now(DELIVER_TASK, (endpoint_id,))
    return len(ids)


def ping_send(*, endpoint: Endpoint) -> Delivery:
    """POST a `ping` event to the endpoint now, outside its queue (also when paused),
    and log it like any delivery; returns the delivery with its outcome."""
    with transaction.atomic():
        event = Event.objects.create(
            kind=PING, data={"endpoint": endpoint.pk, "message": "A test event from Gaia."}
        )
        delivery = Delivery.objects.create(endpoint=endpoint, event=event)
    _record(endpoint, delivery, *_post(endpoint, delivery))
    delivery.refresh_from_db()
    return delivery
