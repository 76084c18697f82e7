"""django-q2 tasks of webhooks: thin wrappers (ids in, idempotent)."""

from django.conf import settings

from webhooks import delivery


def deliver_endpoint(endpoint_id: int) -> dict:
    # A worker waits for a first retry; tasks run inline (GAIA_SYNC_TASKS) never do.
    retry_soon = not settings.Q_CLUSTER.get("sync")
    return delivery.endpoint_deliver(endpoint_id=endpoint_id, retry_soon=retry_soon)


def deliver_due() -> int:
    return delivery.deliveries_sweep()
