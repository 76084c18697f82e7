"""Old dotted paths of tasks that moved to `learning.tasks` and `privacy.tasks`.

Queued tasks and schedule rows made before the move name these paths; they keep
working for one release (`setup_schedules` rewrites schedule rows to the new paths).
"""

from learning.tasks import (  # noqa: F401
    decay_all,
    profile_refresh,
    reconcile_all,
    reconcile_user,
    tool_errors_sync,
)
from privacy.tasks import prune_all  # noqa: F401
