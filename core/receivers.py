"""What core registers with django-q2 at start-up (its signals module imports its models)."""

from django_q.signals import post_execute_in_worker, post_spawn, pre_enqueue, pre_execute

from core.queue import lower_worker_priority
from core.server.request_id import task_begin, task_carry, task_end


def install() -> None:
    """Called once from CoreConfig.ready()."""
    post_spawn.connect(lower_worker_priority, dispatch_uid="gaia-worker-nice")
    pre_enqueue.connect(task_carry, dispatch_uid="gaia-task-request-id")
    pre_execute.connect(task_begin, dispatch_uid="gaia-task-request-id")
    post_execute_in_worker.connect(task_end, dispatch_uid="gaia-task-request-id")
