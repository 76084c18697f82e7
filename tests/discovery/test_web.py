"""The review queue in the web app."""

import pytest
from django.urls import reverse

from accounts.services import user_settings_get, user_settings_update
from discovery import services
from discovery.models import Finding
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db
QUEUE = reverse("web-discovery-queue")


def propose(user, *contents, scanner="projects"):
    findings = [{"content": c, "scanner": scanner, "context": "work"} for c in contents]
    return services.finding_propose_many(user=user, findings=findings).created


@pytest.fixture
def alice_web(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def alice_on(alice, alice_web):
    user_settings_update(user=alice, discovery_consent=True)
    return alice_web


def test_it_requires_login(client):
    response = client.get(QUEUE)
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert client.post(reverse("web-discovery-reset"), {"confirm": "on"}).status_code == 302


def test_without_consent_it_explains_and_offers_to_turn_discovery_on(alice, alice_web):
    page = alice_web.get(QUEUE).content.decode()
    assert "Discovery is <strong>off</strong>" in page and "Turn discovery on" in page
    assert "Pending findings" not in page
    response = alice_web.post(reverse("web-discovery-consent"), {"consent": "on"})
    assert response.status_code == 302 and user_settings_get(alice).discovery_consent
    assert "Pending findings (0)" in alice_web.get(QUEUE).content.decode()
    alice_web.post(reverse("web-discovery-consent"), {"consent": "off"})
    assert not user_settings_get(alice).discovery_consent


def test_actions_need_consent(alice, alice_web):
    user_settings_update(user=alice, discovery_consent=True)
    finding = propose(alice, "Programs in Rust")[0]
    user_settings_update(user=alice, discovery_consent=False)
    response = alice_web.post(reverse("web-discovery-approve", args=[finding.pk]), follow=True)
    assert "Discovery is off for this account" in response.content.decode()
    assert not KnowledgeItem.objects.exists()


def test_it_lists_pending_findings_with_csrf_protected_forms(alice, alice_on):
    rust, _ = propose(alice, "Programs in Rust", "Programs in <b>Go</b>")
    propose(alice, "Often visits lwn.net", scanner="history")
    services.finding_reject(user=alice, finding_id=rust.pk)
    page = alice_on.get(QUEUE).content.decode()
    assert "Pending findings (2)" in page and "1 rejected" in page
    assert "Programs in &lt;b&gt;Go&lt;/b&gt;" in page and "Programs in Rust" not in page
    assert "sensitive</span>" in page
    assert page.count('name="csrfmiddlewaretoken"') >= 8
    assert alice_on.get(QUEUE, {"page": "nonsense"}).status_code == 200


def test_approve_edit_reject_and_bulk_approve(alice, alice_on):
    rust, go, zig, c = propose(
        alice, "Programs in Rust", "Programs in Go", "Programs in Zig", "Programs in C"
    )
    response = alice_on.post(reverse("web-discovery-approve", args=[rust.pk]), follow=True)
    assert "Approved" in response.content.decode()
    alice_on.post(
        reverse("web-discovery-approve", args=[go.pk]),
        {"edit": "1", "content": "Writes Go daily", "category": "skill", "context": "work",
         "entity": "", "sensitive": "on"},
    )  # fmt: skip
    alice_on.post(reverse("web-discovery-reject", args=[zig.pk]))
    alice_on.post(reverse("web-discovery-approve-bulk"), {"ids": [str(c.pk)]})
    items = {i.content: i for i in KnowledgeItem.objects.filter(owner=alice)}
    assert set(items) == {"Programs in Rust", "Writes Go daily", "Programs in C"}
    assert items["Writes Go daily"].category == "skill" and items["Writes Go daily"].sensitive
    assert all(i.source == "discovery" for i in items.values())
    assert Finding.objects.get(pk=zig.pk).status == "rejected"
    response = alice_on.post(reverse("web-discovery-approve-bulk"), {"ids": ["x"]}, follow=True)
    assert "Select at least one finding" in response.content.decode()


def test_a_bad_edit_is_shown_as_a_message_not_an_error_page(alice, alice_on):
    finding = propose(alice, "Programs in Rust")[0]
    response = alice_on.post(
        reverse("web-discovery-approve", args=[finding.pk]),
        {"edit": "1", "content": "", "category": "fact"},
        follow=True,
    )
    assert response.status_code == 200 and "May not be empty" in response.content.decode()


def test_actions_are_post_only(alice, alice_on):
    finding = propose(alice, "Programs in Rust")[0]
    assert alice_on.get(reverse("web-discovery-approve", args=[finding.pk])).status_code == 405
    assert alice_on.get(reverse("web-discovery-reset")).status_code == 405


def test_reset_needs_the_confirmation_box(alice, alice_on):
    services.finding_approve(user=alice, finding_id=propose(alice, "Programs in Rust")[0].pk)
    alice_on.post(reverse("web-discovery-reset"))
    assert KnowledgeItem.objects.count() == 1
    response = alice_on.post(reverse("web-discovery-reset"), {"confirm": "on"}, follow=True)
    assert "Erased 1 discovery item(s)" in response.content.decode()
    assert not KnowledgeItem.objects.exists() and not Finding.objects.exists()


@pytest.mark.cross_user("web-discovery-approve")
@pytest.mark.cross_user("web-discovery-reject")
@pytest.mark.cross_user("web-discovery-approve-bulk")
def test_bob_gets_404_on_alices_findings_in_the_web_queue(alice, bob, client):
    user_settings_update(user=alice, discovery_consent=True)
    user_settings_update(user=bob, discovery_consent=True)
    finding = propose(alice, "Programs in Rust")[0]
    client.force_login(bob)
    assert "Programs in Rust" not in client.get(QUEUE).content.decode()
    for name in ("web-discovery-approve", "web-discovery-reject"):
        assert client.post(reverse(name, args=[finding.pk])).status_code == 404
    bulk = client.post(reverse("web-discovery-approve-bulk"), {"ids": [str(finding.pk)]})
    assert bulk.status_code == 404
    finding.refresh_from_db()
    assert finding.status == "pending" and not KnowledgeItem.objects.exists()


@pytest.mark.cross_user("web-discovery-queue")
@pytest.mark.cross_user("web-discovery-consent")
@pytest.mark.cross_user("web-discovery-reset")
def test_bobs_consent_and_reset_touch_only_his_own_account(alice, bob, client):
    user_settings_update(user=alice, discovery_consent=True)
    services.finding_approve(user=alice, finding_id=propose(alice, "Programs in Rust")[0].pk)
    client.force_login(bob)
    client.post(reverse("web-discovery-consent"), {"consent": "off"})
    client.post(reverse("web-discovery-reset"), {"confirm": "on"})
    assert user_settings_get(alice).discovery_consent
    assert KnowledgeItem.objects.filter(owner=alice).count() == 1
    assert Finding.objects.filter(owner=alice).count() == 1


def test_a_post_without_the_csrf_token_is_refused(alice):
    from django.test import Client

    user_settings_update(user=alice, discovery_consent=True)
    finding = propose(alice, "Programs in Rust")[0]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(reverse("web-discovery-approve", args=[finding.pk])).status_code == 403
    assert not KnowledgeItem.objects.exists()
