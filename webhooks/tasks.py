"""django-q2 tasks of webhooks: thin wrappers (ids in, idempotent)."""

from webhooks import delivery


def deliver_endpoint(endpoint_id: int) -> dict:
    return delivery.endpoint_deliver(endpoint_id=endpoint_id)


def deliver_due() -> int:
    return delivery.deliveries_sweep()
