"""Seed 000's start-up maintenance: decay, reconcile, consolidate and prune, in that
order, one after another, each skipped when it ran within its interval (or is off)."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Task

from learning.schedules import startup_maintenance

pytestmark = pytest.mark.django_db
ORDER = [
    "learning.tasks.decay_all",
    "learning.tasks.reconcile_all",
    "learning.tasks.consolidate_sweep",
    "privacy.tasks.prune_all",
]


def ran(func: str, minutes_ago: int, success: bool = True) -> None:
    stopped = timezone.now() - timedelta(minutes=minutes_ago)
    Task.objects.create(
        id=f"{func}-{minutes_ago}-{success}"[:32],
        name=f"run of {func}"[:100],
        func=func,
        started=stopped - timedelta(seconds=3),
        stopped=stopped,
        success=success,
    )


@pytest.fixture
def chained(monkeypatch):
    chains: list = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: None)
    monkeypatch.setattr("django_q.tasks.async_chain", lambda chain: chains.append(list(chain)))
    return chains


def test_on_a_fresh_install_every_step_runs_in_seed_000s_order(chained):
    call_command("setup_schedules", "--startup", stdout=StringIO())
    [chain] = chained
    assert [func for func, _, _ in chain] == ORDER
    assert [kwargs["task_name"] for _, _, kwargs in chain][0] == "startup:decay_all"


def test_a_step_that_ran_within_its_interval_is_skipped(chained, settings):
    settings.GAIA_DECAY_INTERVAL = 24 * 60
    settings.GAIA_PRUNE_INTERVAL = 24 * 60
    ran("learning.tasks.decay_all", minutes_ago=30)  # recent: skipped
    ran("privacy.tasks.prune_all", minutes_ago=2 * 24 * 60)  # long ago: runs
    ran("learning.tasks.reconcile_all", minutes_ago=1, success=False)  # failed: runs
    out = StringIO()
    call_command("setup_schedules", "--startup", stdout=out)
    [chain] = chained
    assert [func for func, _, _ in chain] == ORDER[1:]
    assert "skipped start-up learning.tasks.decay_all" in out.getvalue()


def test_a_step_switched_off_does_not_run_at_start_either(settings):
    settings.GAIA_RECONCILE_INTERVAL = 0
    due, skipped = startup_maintenance()
    assert due == [ORDER[0], *ORDER[2:]] and skipped == [ORDER[1]]


def test_nothing_is_chained_when_every_step_ran_recently(chained):
    for func in ORDER:
        ran(func, minutes_ago=1)
    call_command("setup_schedules", "--startup", stdout=StringIO())
    assert chained == []
