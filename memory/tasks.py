"""django-q2 tasks of the memory app: thin wrappers over memory.import_jobs."""

from core.erasing import held_during_erase
from memory import import_jobs
from memory.selectors import import_job_owner_id


@held_during_erase(import_job_owner_id)
def import_run(job_id: int) -> str:
    """One slice of a large import (it queues the next itself)."""
    return import_jobs.import_job_run(job_id=job_id)


def imports_resume() -> int:
    """Periodic: queue again the imports whose worker stopped."""
    return import_jobs.imports_resume()
