"""Old dotted paths of tasks that moved to `learning.tasks`.

Queued tasks and schedule rows made before the move name these paths; they keep
working for one release (`setup_schedules` rewrites schedule rows to the new paths).
"""

from learning.tasks import (  # noqa: F401
    consolidate_session,
    consolidate_sweep,
    extract_pending_sweep,
    extract_turn,
)
