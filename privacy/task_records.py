"""django-q2 task payloads and task records that name a user's rows.

Tasks take ids (turn, session or user); TASK_SUBJECTS says which argument holds which,
per task function, and tests/security/test_task_registry.py fails when a task function,
or a task path named in the code or the schedules, is missing here.
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


@dataclass(frozen=True)
class Names:
    """Which argument of a task holds which kind of id (an erase matches on it); a task
    whose arguments name no one (a sweep, an import job's id) declares `Names()`."""

    user: int | None = None
    turn: int | None = None
    session: int | None = None

    def positions(self) -> list[tuple[str, int]]:
        return [
            (kind, at)
            for kind in ("user", "turn", "session")
            if (at := getattr(self, kind)) is not None
        ]


NOBODY = Names()
# Every task function of every app, by the dotted path it is queued under: declared once,
# here. tests/security/test_task_registry.py finds every function of every `tasks.py` and
# every task path in the code and schedules, and fails on one missing here.
_DECLARED = {
    "learning.tasks.extract_turn": Names(turn=0),
    "learning.tasks.consolidate_session": Names(session=0),
    "learning.tasks.extract_pending_sweep": NOBODY,
    "learning.tasks.consolidate_sweep": NOBODY,
    "learning.tasks.reconcile_user": Names(user=0),
    "learning.tasks.profile_refresh": Names(user=0),
    "learning.tasks.tool_errors_sync": Names(user=0),
    "learning.tasks.reconcile_all": NOBODY,
    "learning.tasks.decay_all": NOBODY,
    "privacy.tasks.prune_all": NOBODY,
    # an import job's id: erasing the user deletes the job, and the task then does nothing
    "memory.tasks.import_run": NOBODY,
    "memory.tasks.imports_resume": NOBODY,
    "skills.tasks.learn_skills": Names(session=0),
    "skills.tasks.decay_skills": NOBODY,
    # (corpus name, owner id, row ids): the owner names the person
    "retrieval.tasks.embed_rows_task": Names(user=1),
    "retrieval.tasks.backfill_embeddings": NOBODY,
    "retrieval.tasks.backfill_until_done": NOBODY,
    # an endpoint's id (a person's or an app's endpoint, not a memory row): the task sends
    # what the endpoint's outbox holds when it runs
    "webhooks.tasks.deliver_endpoint": NOBODY,
    "webhooks.tasks.deliver_due": NOBODY,
}
# The paths these tasks had before the apps were split. No module offers them any more
# (`setup_schedules` rewrote the schedule rows to the new paths a release ago), but
# django-q2's records of tasks run back then still name them, and erasing a person
# scrubs those records too: the same declaration as the new path.
OLD_PATHS = {
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
    "memory.embedding.tasks.embed_rows_task": "retrieval.tasks.embed_rows_task",
    "memory.embedding.tasks.backfill_embeddings": "retrieval.tasks.backfill_embeddings",
    "memory.embedding.tasks.backfill_until_done": "retrieval.tasks.backfill_until_done",
}
TASK_SUBJECTS: dict[str, Names] = {
    **_DECLARED,
    **{old: _DECLARED[new] for old, new in OLD_PATHS.items()},
}
# Tasks whose results can quote an item's text (a consolidation lists its facts).
QUOTING_TASKS = ("learning.tasks.consolidate_session", "conversations.tasks.consolidate_session")


def undeclared(registry: dict[str, Names], paths: Any) -> list[str]:
    """The task paths in `paths` that `registry` does not declare (the registry test)."""
    return sorted(path for path in paths if path not in registry)


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


def _arg(args: Any, kwargs: Any, at: int) -> Any:
    """The argument at position `at`; passed by keyword, the keywords in their order."""
    args = tuple(args or ())
    if at < len(args):
        return args[at]
    rest = list((kwargs or {}).values())
    return rest[at - len(args)] if at - len(args) < len(rest) else None


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
    """Whether a task (queued payload or record) names one of the subjects' ids."""
    names = TASK_SUBJECTS.get(_func_name(func))
    if names is None:
        return False
    for kind, at in names.positions():
        value = _arg(args, kwargs, at)
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and value in getattr(subjects, kind)
        ):
            return True
    return False


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
    naming = [path for path, names in TASK_SUBJECTS.items() if names.positions()]
    funcs = naming + list(QUOTING_TASKS) if named else list(QUOTING_TASKS)
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
