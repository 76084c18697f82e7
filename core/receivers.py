"""What core registers with django-q2 at start-up (its signals module imports its models)."""

from django_q.signals import post_spawn

from core.queue import lower_worker_priority


def install() -> None:
    """Called once from CoreConfig.ready()."""
    post_spawn.connect(lower_worker_priority, dispatch_uid="gaia-worker-nice")
