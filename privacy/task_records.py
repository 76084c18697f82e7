"""django-q2 task payloads and task records that name a user's rows.

Tasks take ids (turn, session or user); TASK_SUBJECTS says which, per task function, and
tests/security/test_erase_user.py fails when a task module gains a function missing here.
An erase removes:

- queued payloads: with the ORM broker, OrmQ rows (signed pickles, decoded with
  django-q2's SignedPackage); with Redis, the matching entries of the cluster's list
  (LREM). A task a worker has already taken cannot be recalled; it finds its rows gone
  and does nothing (every task is idempotent and reads the database, not the payload).
- finished task records (django_q Task rows, kept up to Q_CLUSTER save_limit): their
  arguments, and their results, which can quote consolidated text.
"""

import logging
from dataclasses import dataclass, field
from typing import Any

from django_q.brokers import get_broker
from django_q.brokers.orm import ORM
from django_q.brokers.redis_broker import Redis
from django_q.models import OrmQ, Task
from django_q.signing import SignedPackage

log = logging.getLogger("gaia.erasure")

_SUBJECTS = {
    "learning.tasks.extract_turn": "turn",
    "learning.tasks.consolidate_session": "session",
    "learning.tasks.extract_pending_sweep": None,
    "learning.tasks.consolidate_sweep": None,
    "learning.tasks.reconcile_user": "user",
    "learning.tasks.profile_refresh": "user",
    "learning.tasks.tool_errors_sync": "user",
    "learning.tasks.reconcile_all": None,
    "learning.tasks.decay_all": None,
    "privacy.tasks.prune_all": None,
    # an import job's id: erasing the user deletes the job, and the task then does nothing
    "memory.tasks.import_run": None,
    "memory.tasks.imports_resume": None,
}
# The paths these tasks had before the apps were split (still queued on an upgraded
# install, and still importable for one release).
_OLD_PATHS = {
    "conversations.tasks.extract_turn": "learning.tasks.extract_turn",
    "conversations.tasks.consolidate_session": "learning.tasks.consolidate_session",
    "conversations.tasks.extract_pending_sweep": "learning.tasks.extract_pending_sweep",
    "conversations.tasks.consolidate_sweep": "learning.tasks.consolidate_sweep",
    "memory.tasks.reconcile_user": "learning.tasks.reconcile_user",
    "memory.tasks.profile_refresh": "learning.tasks.profile_refresh",
    "memory.tasks.tool_errors_sync": "learning.tasks.tool_errors_sync",
    "memory.tasks.reconcile_all": "learning.tasks.reconcile_all",
    "memory.tasks.decay_all": "learning.tasks.decay_all",
    "memory.tasks.prune_all": "privacy.tasks.prune_all",
}
TASK_SUBJECTS = {**_SUBJECTS, **{old: _SUBJECTS[new] for old, new in _OLD_PATHS.items()}}


# Tasks whose results can quote an item's text (a consolidation lists its facts).
QUOTING_TASKS = ("learning.tasks.consolidate_session", "conversations.tasks.consolidate_session")


@dataclass
class Subjects:
    """Ids whose tasks go: a whole user, or some of their turns, sessions and items."""

    user: set[int] = field(default_factory=set)
    turn: set[int] = field(default_factory=set)
    session: set[int] = field(default_factory=set)
    item: set[int] = field(default_factory=set)


def _func_name(func: Any) -> str:
    if isinstance(func, str):
        return func
    return f"{getattr(func, '__module__', '')}.{getattr(func, '__name__', '')}"


def _first_arg(args: Any, kwargs: Any) -> Any:
    if args:
        return args[0]
    return next(iter((kwargs or {}).values()), None)


def _mentions_item(result: Any, item_ids: set[int]) -> bool:
    """Whether a task result names one of the items (consolidation lists its facts)."""
    if isinstance(result, dict):
        for key, value in result.items():
            if key in ("id", "item", "note_id") and value in item_ids:
                return True
            if _mentions_item(value, item_ids):
                return True
    elif isinstance(result, (list, tuple)):
        return any(_mentions_item(value, item_ids) for value in result)
    return False


def names_subject(func: Any, args: Any, kwargs: Any, subjects: Subjects) -> bool:
    kind = TASK_SUBJECTS.get(_func_name(func))
    if kind is None:
        return False
    value = _first_arg(args, kwargs)
    return isinstance(value, int) and value in getattr(subjects, kind)


def queued_tasks_erase(subjects: Subjects, *, broker: Any = None) -> int:
    """Remove queued payloads naming the subjects; returns how many."""
    broker = broker or get_broker()
    if isinstance(broker, ORM):
        doomed = [row.pk for row in OrmQ.objects.all() if _payload_names(row.payload, subjects)]
        OrmQ.objects.filter(pk__in=doomed).delete()
        return len(doomed)
    if isinstance(broker, Redis):
        removed = 0
        for payload in broker.connection.lrange(broker.list_key, 0, -1):
            if _payload_names(payload, subjects):
                removed += broker.connection.lrem(broker.list_key, 0, payload)
        return removed
    log.warning("erase: queued tasks of broker %s cannot be inspected", type(broker).__name__)
    return 0


def _payload_names(payload: Any, subjects: Subjects) -> bool:
    try:
        task = SignedPackage.loads(payload)
    except Exception:  # not ours to judge: a foreign or corrupt payload stays
        return False
    if not isinstance(task, dict):
        return False
    return names_subject(task.get("func"), task.get("args"), task.get("kwargs"), subjects)


def task_records_erase(subjects: Subjects) -> int:
    """Delete finished task records naming the subjects or quoting their items."""
    doomed = []
    named = subjects.user or subjects.turn or subjects.session
    funcs = list(TASK_SUBJECTS) if named else list(QUOTING_TASKS)
    records = Task.objects.filter(func__in=funcs).only("id", "func", "args", "kwargs", "result")
    for record in records.iterator(chunk_size=200):
        if names_subject(record.func, record.args, record.kwargs, subjects) or (
            subjects.item and _mentions_item(record.result, subjects.item)
        ):
            doomed.append(record.pk)
    for start in range(0, len(doomed), 500):
        Task.objects.filter(pk__in=doomed[start : start + 500]).delete()
    return len(doomed)


def tasks_erase(subjects: Subjects) -> dict[str, int]:
    return {
        "queued_tasks": queued_tasks_erase(subjects),
        "task_records": task_records_erase(subjects),
    }
