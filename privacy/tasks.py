"""django-q2 tasks of the privacy app: thin wrappers over its services."""

from privacy import retention


def prune_all() -> dict:
    return retention.prune_everyone()
