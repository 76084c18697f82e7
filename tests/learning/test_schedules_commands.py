"""Schedules created idempotently from settings; the job commands."""

from datetime import timedelta
from importlib import import_module
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from django_q.models import Schedule

from conversations.models import Turn
from conversations.services.recording import turn_append
from learning.schedules import SCHEDULES, STARTUP_MAINTENANCE, STARTUP_SWEEPS
from memory.models import KnowledgeItem
from memory.services import memory_create
from privacy.task_records import OLD_PATHS as RECORDED_OLD_PATHS
from privacy.task_records import TASK_SUBJECTS
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_setup_schedules_is_idempotent_and_follows_the_settings(settings):
    run("setup_schedules")
    run("setup_schedules")
    rows = {s.name: s for s in Schedule.objects.all()}
    assert len(rows) == len(SCHEDULES)
    assert rows["gaia: decay"].func == "learning.tasks.decay_all"
    assert rows["gaia: decay"].minutes == settings.GAIA_DECAY_INTERVAL
    assert rows["gaia: backfill embeddings"].func == "retrieval.tasks.backfill_embeddings"
    settings.GAIA_DECAY_INTERVAL = 60
    settings.GAIA_PRUNE_INTERVAL = 0
    assert "gaia: decay: updated, every 60 min" in run("setup_schedules")
    names = set(Schedule.objects.values_list("name", flat=True))
    assert "gaia: prune" not in names and Schedule.objects.get(name="gaia: decay").minutes == 60


def test_a_changed_interval_moves_the_stored_next_run(settings):
    settings.GAIA_RECONCILE_INTERVAL = 1440
    run("setup_schedules")
    row = Schedule.objects.get(name="gaia: reconcile")
    Schedule.objects.filter(pk=row.pk).update(next_run=timezone.now() + timedelta(hours=23))
    settings.GAIA_RECONCILE_INTERVAL = 30  # restarted with a shorter interval
    before = timezone.now()
    assert "gaia: reconcile: updated, every 30 min" in run("setup_schedules")
    moved = Schedule.objects.get(pk=row.pk).next_run
    assert before + timedelta(minutes=30) <= moved <= timezone.now() + timedelta(minutes=30)
    run("setup_schedules")  # unchanged settings: the next run stays where it is
    assert Schedule.objects.get(pk=row.pk).next_run == moved


def test_every_scheduled_and_queued_task_path_names_a_task():
    paths = {func for _, func, _ in SCHEDULES} | set(STARTUP_SWEEPS)
    paths |= set(TASK_SUBJECTS) - set(RECORDED_OLD_PATHS)  # old records name gone paths
    paths |= {func for func, _ in STARTUP_MAINTENANCE}
    for path in paths:
        module, name = path.rsplit(".", 1)
        assert module.endswith(".tasks") and callable(getattr(import_module(module), name)), path


# Rows and queued payloads written before the apps were split name these paths.
OLD_PATHS = {
    "gaia: extract pending turns": "conversations.tasks.extract_pending_sweep",
    "gaia: consolidate idle sessions": "conversations.tasks.consolidate_sweep",
    "gaia: reconcile": "memory.tasks.reconcile_all",
    "gaia: decay": "memory.tasks.decay_all",
    "gaia: prune": "memory.tasks.prune_all",
    "gaia: backfill embeddings": "memory.embedding.tasks.backfill_embeddings",
}


def test_setup_schedules_rewrites_rows_that_name_the_old_task_paths():
    for name, func in OLD_PATHS.items():
        Schedule.objects.create(name=name, func=func, schedule_type=Schedule.MINUTES, minutes=5)
    run("setup_schedules")
    rows = dict(Schedule.objects.values_list("name", "func"))
    assert rows == {name: func for name, func, _ in SCHEDULES}


def test_the_old_task_paths_are_gone_after_their_release():
    for old in [*OLD_PATHS.values(), "conversations.tasks.extract_turn"]:
        module, name = old.rsplit(".", 1)
        try:
            found = getattr(import_module(module), name, None)
        except ImportError:
            found = None
        assert found is None, old


def test_prune_needs_yes_or_dry_run(alice):
    with pytest.raises(CommandError):
        run("memory_prune")
    assert "[1/1] alice: turns=0" in run("memory_prune", "--dry-run", "--user", "alice")


def test_decay_command_reports_progress_per_user(alice, bob):
    item = memory_create(user=alice, content="User once visited Oslo")
    KnowledgeItem.objects.filter(pk=item.pk).update(
        created_at=timezone.now() - timedelta(days=60),
        updated_at=timezone.now() - timedelta(days=60),
    )
    out = run("memory_decay", "--dry-run")
    assert "Dry run" in out and "[1/2] alice: confidence_decayed=1" in out
    assert KnowledgeItem.objects.get(pk=item.pk).confidence == 0.7
    run("memory_decay", "--user", "alice")
    assert round(KnowledgeItem.objects.get(pk=item.pk).confidence, 2) == 0.63


def test_llm_commands_refuse_to_run_without_an_llm_but_dry_runs_work(no_llm, alice):
    for command in ("memory_reconcile", "memory_consolidate", "memory_extract_pending"):
        with pytest.raises(CommandError, match="No LLM"):
            run(command)
        run(command, "--dry-run")


def test_extract_pending_processes_the_backlog_with_progress(fake_llm, alice, bob):
    for user in (alice, bob):
        turn_append(user=user, session_id="s", role="user", content="I play chess every Sunday")
    fake_llm.then(f.answer({"operations": [{"op": "add", "content": "User plays chess"}]}))
    out = run("memory_extract_pending", "--user", "alice")
    assert "1 pending turn(s)." in out and "[1/1] turn" in out
    assert KnowledgeItem.objects.for_user(alice).count() == 1
    assert Turn.objects.for_user(bob).get().extraction_status == "pending"


def test_extract_pending_can_retry_failed_turns(fake_llm, alice):
    turn = turn_append(user=alice, session_id="s", role="user", content="I play chess on Sundays")
    Turn.objects.filter(pk=turn.pk).update(extraction_status="failed", extraction_attempts=3)
    assert "0 pending" in run("memory_extract_pending")
    run("memory_extract_pending", "--retry-failed")
    assert Turn.objects.get(pk=turn.pk).extraction_status == "done"


def test_consolidate_command_lists_and_runs_due_sessions(fake_llm, alice):
    when = timezone.now() - timedelta(hours=1)
    for n in range(5):
        turn_append(user=alice, session_id="old", role="user", content=f"line {n}", timestamp=when)
    assert "[1/1] alice/old: open_turns=5" in run("memory_consolidate", "--dry-run")
    fake_llm.then(f.answer({"summary": "Lines.", "facts": []}))
    assert "status=done" in run("memory_consolidate")
