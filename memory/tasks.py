"""django-q2 tasks of the memory app (thin wrappers over memory.import_jobs), and old
dotted paths of tasks that moved to `learning.tasks` and `privacy.tasks`.

Queued tasks and schedule rows made before the move name the old paths; they keep
working for one release (`setup_schedules` rewrites schedule rows to the new paths).
"""

from learning.tasks import (  # noqa: F401
    decay_all,
    profile_refresh,
    reconcile_all,
    reconcile_user,
    tool_errors_sync,
)
from memory import import_jobs
from privacy.tasks import prune_all  # noqa: F401


def import_run(job_id: int) -> str:
    """One slice of a large import (it queues the next itself)."""
    return import_jobs.import_job_run(job_id=job_id)


def imports_resume() -> int:
    """Periodic: queue again the imports whose worker stopped."""
    return import_jobs.imports_resume()
