"""manage.py discover: consent, progress per scanner, summary, dry run, reset."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.services import user_settings_update
from discovery import services
from discovery.models import Finding
from memory.models import KnowledgeItem
from tests.discovery.fakehome import SECRET

pytestmark = pytest.mark.django_db


def discover(*args: str) -> str:
    out = StringIO()
    call_command("discover", *args, stdout=out)
    return out.getvalue()


def scan_args(fake, *extra: str) -> list[str]:
    return ["--user", "alice", "--home", str(fake.home), "--roots", str(fake.src),
            "--system-root", str(fake.system), "--days", "3650", *extra]  # fmt: skip


def test_it_refuses_to_scan_without_consent(alice, fake):
    with pytest.raises(CommandError, match="Discovery is off for 'alice'"):
        discover(*scan_args(fake))
    with pytest.raises(CommandError, match="No user 'nobody'"):
        discover("--user", "nobody")
    assert not Finding.objects.exists()


def test_it_scans_and_stores_proposals_with_progress_and_a_summary(consenting, fake):
    output = discover(*scan_args(fake))
    for name in ("projects", "git", "manifests", "apps", "bookmarks", "history", "email"):
        assert f"{name}: " in output
    assert Finding.objects.filter(owner=consenting, status="pending").count() == 31
    assert "Proposed 31 new finding(s) from 31 found" in output
    assert SECRET not in output
    assert Finding.objects.get(content="Often visits old-site.example").sensitive
    assert not KnowledgeItem.objects.exists()
    again = discover(*scan_args(fake))
    assert "Proposed 0 new finding(s) from 31 found; skipped 31 duplicate" in again


def test_a_dry_run_prints_findings_and_stores_nothing(consenting, fake):
    output = discover(*scan_args(fake, "--dry-run", "--sources", "email", "git"))
    assert "[email] Uses the e-mail address alice@example.org (Thunderbird, git) [sensitive]" in (
        output
    )
    assert "[git] Uses the name 'Alice Example' for git commits" in output
    assert "projects:" not in output
    assert "Dry run: 5 finding(s), nothing stored." in output
    assert not Finding.objects.exists()


def test_a_failing_scanner_is_reported_and_the_others_are_stored(consenting, fake, monkeypatch):
    from discovery import scanners

    def explode(ctx, state):
        raise OSError("disk on fire")
        yield

    monkeypatch.setitem(
        scanners.SCANNERS, "git", scanners.Scanner(name="git", description="", scan=explode)
    )
    output = discover(*scan_args(fake, "--sources", "git", "email"))
    assert "git: failed (OSError: disk on fire)" in output
    assert "failed scanners: git" in output
    assert Finding.objects.filter(scanner="email").count() == 2


def test_reset_asks_for_yes_then_erases(consenting, fake):
    finding = services.finding_propose_many(
        user=consenting, findings=[{"content": "Programs in Rust", "scanner": "projects"}]
    ).created[0]
    services.finding_approve(user=consenting, finding_id=finding.pk)
    output = discover("--user", "alice", "--reset")
    assert "Would erase 1 discovery item(s) and 1 finding(s) of 'alice'" in output
    assert KnowledgeItem.objects.count() == 1
    user_settings_update(user=consenting, discovery_consent=False)
    output = discover("--user", "alice", "--reset", "--yes")
    assert "Erased 1 discovery item(s) and cleared 1 finding(s) of 'alice'." in output
    assert not KnowledgeItem.objects.exists() and not Finding.objects.exists()
