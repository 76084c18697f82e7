"""Findings: consent, proposals, re-scan dedup, approval into memory, rejection, reset."""

import pytest
from django.core.exceptions import ValidationError

from accounts.services import user_settings_update
from discovery import services
from discovery.models import Finding
from memory import services as memory
from memory.models import KnowledgeItem
from privacy import services as privacy_services

pytestmark = pytest.mark.django_db


def proposal(content: str, **fields) -> dict:
    return {"content": content, "scanner": "projects", "context": "work", **fields}


def test_it_refuses_everything_until_the_user_consents(alice):
    with pytest.raises(services.ConsentRequired, match="Discovery is off"):
        services.finding_propose_many(user=alice, findings=[proposal("Programs in Rust")])
    user_settings_update(user=alice, discovery_consent=True)
    finding = services.finding_propose_many(user=alice, findings=[proposal("Programs in Rust")])
    user_settings_update(user=alice, discovery_consent=False)
    for action in (services.finding_approve, services.finding_reject):
        with pytest.raises(services.ConsentRequired):
            action(user=alice, finding_id=finding.created[0].pk)
    assert not Finding.objects.exclude(status="pending").exists()
    assert not KnowledgeItem.objects.exists()


def test_it_stores_proposals_as_pending_findings_with_confidence_0_4(consenting):
    result = services.finding_propose_many(
        user=consenting,
        findings=[
            proposal("Programs in Rust", category="skill", entity="Project:Tool"),
            {"content": "Often visits example.org", "scanner": "history", "sensitive": False},
        ],
    )
    assert result.as_dict() == {
        "created": 2,
        "skipped": {"duplicate": 0, "rejected": 0, "approved": 0, "stored": 0, "refused": 0},
    }
    rust, site = sorted(result.created, key=lambda f: f.pk)
    assert (rust.category, rust.context, rust.entity, rust.status) == (
        "skill", "work", "project:tool", "pending"
    )  # fmt: skip
    assert rust.confidence == pytest.approx(0.4) and rust.scanner == "projects"
    assert site.sensitive is True and site.context == "global"
    assert not KnowledgeItem.objects.exists()


def test_a_malformed_finding_fails_the_whole_batch_and_names_it(consenting):
    with pytest.raises(ValidationError) as error:
        services.finding_propose_many(
            user=consenting,
            findings=[proposal("fine"), proposal("x", category="profile"), proposal("")],
        )
    assert set(error.value.message_dict) == {"findings[1].category"}
    for bad, key in (
        ({"content": "x", "scanner": "mailbodies"}, "findings[0].scanner"),
        ({"content": "x", "scanner": "git", "approved": True}, "findings[0].approved"),
        ({"content": " ", "scanner": "git"}, "findings[0].content"),
        ({"content": "x", "scanner": "git", "sensitive": "yes"}, "findings[0].sensitive"),
        ("just text", "findings[0]"),
    ):
        with pytest.raises(ValidationError) as error:
            services.finding_propose_many(user=consenting, findings=[bad])
        assert list(error.value.message_dict) == [key]
    with pytest.raises(ValidationError):
        services.finding_propose_many(user=consenting, findings={"content": "x"})
    assert not Finding.objects.exists()


def test_a_rescan_does_not_repropose_pending_rejected_approved_or_stored_facts(consenting):
    first = services.finding_propose_many(
        user=consenting,
        findings=[proposal("Programs in Rust"), proposal("Programs in Go"),
                  proposal("Programs in Zig"), proposal("Programs in Rust!")],
    )  # fmt: skip
    assert len(first.created) == 3 and first.duplicate == 1
    rust, go, zig = sorted(first.created, key=lambda f: f.pk)
    services.finding_reject(user=consenting, finding_id=go.pk)
    services.finding_approve(user=consenting, finding_id=zig.pk)
    memory.memory_create(user=consenting, content="Uses the e-mail address a@b.org (git)")
    again = services.finding_propose_many(
        user=consenting,
        findings=[
            proposal("programs in rust"),
            proposal("Programs in  Go."),
            proposal("Programs in Zig"),
            {"content": "Uses the e-mail address a@b.org (git)", "scanner": "email",
             "context": "global"},
            proposal("Programs in Elixir"),
        ],
    )  # fmt: skip
    assert again.as_dict() == {
        "created": 1,
        "skipped": {"duplicate": 1, "rejected": 1, "approved": 1, "stored": 1, "refused": 0},
    }
    assert again.created[0].content == "Programs in Elixir"
    assert Finding.objects.count() == 4


def test_credential_shaped_findings_are_refused_and_not_kept(consenting):
    result = services.finding_propose_many(
        user=consenting,
        findings=[proposal("Remote https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/x")],
    )
    assert result.refused == 1 and not Finding.objects.exists()


def test_approving_creates_knowledge_with_source_discovery_and_confidence_0_4(consenting):
    finding = services.finding_propose_many(
        user=consenting,
        findings=[proposal("Project 'gaia' is written in Python", entity="project:gaia")],
    ).created[0]
    approved = services.finding_approve(user=consenting, finding_id=finding.pk)
    item = KnowledgeItem.objects.get()
    assert approved.status == "approved" and approved.knowledge == item
    assert approved.decided_at is not None
    assert (item.content, item.source, item.category, item.context, item.entity) == (
        "Project 'gaia' is written in Python", "discovery", "fact", "work", "project:gaia"
    )  # fmt: skip
    assert item.confidence == pytest.approx(0.4) and item.sensitive is False
    assert item.metadata == {"discovery": {"finding": finding.pk, "scanner": "projects"}}
    with pytest.raises(ValidationError, match="already approved"):
        services.finding_approve(user=consenting, finding_id=finding.pk)
    with pytest.raises(ValidationError, match="already approved"):
        services.finding_reject(user=consenting, finding_id=finding.pk)


def test_approving_with_edits_stores_the_edited_fact_and_keeps_history_sensitive(consenting):
    project, site = services.finding_propose_many(
        user=consenting,
        findings=[proposal("Programs in Rust"),
                  {"content": "Often visits github.com", "scanner": "history"}],
    ).created  # fmt: skip
    services.finding_approve(
        user=consenting,
        finding_id=project.pk,
        edits={"content": "Writes Rust at work", "category": "skill", "entity": "Lang:Rust",
               "sensitive": True},
    )  # fmt: skip
    services.finding_approve(user=consenting, finding_id=site.pk, edits={"sensitive": False})
    rust, github = KnowledgeItem.objects.order_by("pk")
    assert (rust.content, rust.category, rust.entity, rust.sensitive) == (
        "Writes Rust at work", "skill", "lang:rust", True
    )  # fmt: skip
    assert github.sensitive is True
    project.refresh_from_db()
    assert project.content == "Programs in Rust"  # the proposal itself is kept as proposed


@pytest.mark.parametrize(
    ("edits", "field"),
    [
        ({"source": "user"}, "source"),
        ({"category": "profile"}, "category"),
        ({"sensitive": "no"}, "sensitive"),
        ({"content": "  "}, "content"),
        ({"content": "my password is hunter2"}, "content"),
    ],
)
def test_bad_edits_are_refused_and_the_finding_stays_pending(consenting, edits, field):
    finding = services.finding_propose_many(
        user=consenting, findings=[proposal("Programs in Rust")]
    ).created[0]
    with pytest.raises(ValidationError) as error:
        services.finding_approve(user=consenting, finding_id=finding.pk, edits=edits)
    assert field in error.value.message_dict
    finding.refresh_from_db()
    assert finding.status == "pending" and not KnowledgeItem.objects.exists()


def test_approving_folds_into_an_existing_item_saying_the_same(consenting):
    kept = memory.memory_create(
        user=consenting, content="Programs in Rust and Go", context="work", source="user"
    )
    finding = services.finding_propose_many(
        user=consenting, findings=[proposal("Programs in Go and Rust")]
    ).created[0]
    approved = services.finding_approve(user=consenting, finding_id=finding.pk)
    assert approved.knowledge_id == kept.pk and KnowledgeItem.objects.count() == 1
    assert KnowledgeItem.objects.get().source == "user"


def test_rejecting_marks_the_finding_and_stores_nothing(consenting):
    finding = services.finding_propose_many(
        user=consenting, findings=[proposal("Programs in Rust")]
    ).created[0]
    rejected = services.finding_reject(user=consenting, finding_id=finding.pk)
    assert rejected.status == "rejected" and rejected.decided_at is not None
    assert services.finding_reject(user=consenting, finding_id=finding.pk).status == "rejected"
    assert not KnowledgeItem.objects.exists()
    services.finding_approve(user=consenting, finding_id=finding.pk)  # a change of mind
    assert KnowledgeItem.objects.get().content == "Programs in Rust"


def test_bulk_approval_is_all_or_nothing(consenting, bob):
    user_settings_update(user=bob, discovery_consent=True)
    a, b = services.finding_propose_many(
        user=consenting, findings=[proposal("Programs in Rust"), proposal("Programs in Go")]
    ).created
    bobs = services.finding_propose_many(user=bob, findings=[proposal("Bob's fact")]).created[0]
    with pytest.raises(Finding.DoesNotExist):
        services.findings_approve_bulk(user=consenting, finding_ids=[a.pk, bobs.pk])
    assert not KnowledgeItem.objects.exists()
    services.finding_approve(user=consenting, finding_id=a.pk)
    approved = services.findings_approve_bulk(user=consenting, finding_ids=[a.pk, b.pk, b.pk])
    assert [f.pk for f in approved] == [a.pk, b.pk]
    assert KnowledgeItem.objects.filter(owner=consenting).count() == 2
    for bad in ([], ["1"], [True], "1,2"):
        with pytest.raises(ValidationError):
            services.findings_approve_bulk(user=consenting, finding_ids=bad)


def test_another_users_finding_behaves_like_a_missing_one(consenting, bob):
    user_settings_update(user=bob, discovery_consent=True)
    finding = services.finding_propose_many(
        user=consenting, findings=[proposal("Programs in Rust")]
    ).created[0]
    for action in (services.finding_approve, services.finding_reject):
        with pytest.raises(Finding.DoesNotExist):
            action(user=bob, finding_id=finding.pk)
    # the same fact proposed for bob is his own finding
    assert services.finding_propose_many(user=bob, findings=[proposal("Programs in Rust")]).created


def test_reset_erases_only_discovery_items_and_all_findings_of_the_user(consenting, bob):
    user_settings_update(user=bob, discovery_consent=True)
    mine = services.finding_propose_many(
        user=consenting, findings=[proposal("Programs in Rust"), proposal("Programs in Go")]
    ).created
    for finding in mine:
        services.finding_approve(user=consenting, finding_id=finding.pk)
    typed = memory.memory_create(user=consenting, content="Lives in Berlin", source="user")
    bobs = services.finding_propose_many(user=bob, findings=[proposal("Programs in C")]).created
    services.finding_approve(user=bob, finding_id=bobs[0].pk)
    user_settings_update(user=consenting, discovery_consent=False)  # allowed without consent
    assert privacy_services.discovery_reset(user=consenting, dry_run=True).erased_items == 2
    result = privacy_services.discovery_reset(user=consenting)
    assert (result.erased_items, result.cleared_findings) == (2, 2)
    assert list(KnowledgeItem.objects.filter(owner=consenting)) == [typed]
    assert KnowledgeItem.objects.filter(owner=bob, source="discovery").count() == 1
    assert Finding.objects.filter(owner=bob).count() == 1
    user_settings_update(user=consenting, discovery_consent=True)
    again = services.finding_propose_many(user=consenting, findings=[proposal("Programs in Rust")])
    assert len(again.created) == 1  # after a reset everything may be proposed again
