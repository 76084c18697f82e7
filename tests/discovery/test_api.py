"""Discovery API: status codes, bodies, consent, and that nobody reaches another's findings."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import user_settings_update
from discovery import services
from discovery.models import Finding
from memory import services as memory
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db
FINDINGS = reverse("api-discovery-findings")
BULK = reverse("api-discovery-findings-approve")
RESET = reverse("api-discovery-reset")


def approve_url(pk: int) -> str:
    return reverse("api-discovery-finding-approve", args=[pk])


def reject_url(pk: int) -> str:
    return reverse("api-discovery-finding-reject", args=[pk])


def scanned(*contents: str, scanner: str = "projects") -> list[dict]:
    return [{"content": c, "scanner": scanner, "context": "work"} for c in contents]


@pytest.fixture
def alice_on(alice, alice_api):
    user_settings_update(user=alice, discovery_consent=True)
    return alice_api


@pytest.fixture
def bob_on(bob, bob_api):
    user_settings_update(user=bob, discovery_consent=True)
    return bob_api


def alices_findings(alice, *contents: str) -> list[Finding]:
    return services.finding_propose_many(user=alice, findings=scanned(*contents)).created


def test_every_endpoint_but_reset_refuses_without_consent(alice, alice_api):
    user_settings_update(user=alice, discovery_consent=True)
    finding = alices_findings(alice, "Programs in Rust")[0]
    user_settings_update(user=alice, discovery_consent=False)
    for method, url, body in (
        ("get", FINDINGS, None),
        ("post", FINDINGS, {"findings": scanned("Programs in Go")}),
        ("post", approve_url(finding.pk), {}),
        ("post", reject_url(finding.pk), {}),
        ("post", BULK, {"ids": [finding.pk]}),
    ):
        response = getattr(alice_api, method)(url, body, format="json")
        assert response.status_code == 403, url
        assert response.json()["error"]["code"] == "discovery_consent_required"
        assert response.json()["error"]["message"].startswith("Discovery is off")
    assert alice_api.post(RESET, {"confirm": True}, format="json").status_code == 200


def test_it_requires_a_token():
    assert APIClient().get(FINDINGS).status_code == 401


def test_it_accepts_findings_scanned_elsewhere_and_skips_known_ones(alice_on):
    response = alice_on.post(
        FINDINGS,
        {"findings": scanned("Programs in Rust", "Programs in Go")
         + [{"content": "Often visits lwn.net", "scanner": "history"}]},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201
    body = response.json()
    assert body["created"] == 3 and body["skipped"]["duplicate"] == 0
    rust, go, lwn = body["findings"]
    assert rust["content"] == "Programs in Rust" and rust["status"] == "pending"
    assert rust["confidence"] == 0.4 and rust["scanner"] == "projects"
    assert rust["knowledge_id"] is None and lwn["sensitive"] is True
    again = alice_on.post(FINDINGS, scanned("Programs in Rust", "Programs in C"), format="json")
    assert again.status_code == 201
    assert again.json()["created"] == 1 and again.json()["skipped"]["duplicate"] == 1
    same = alice_on.post(FINDINGS, scanned("Programs in Rust"), format="json")
    assert same.status_code == 200 and same.json()["created"] == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"findings": [{"content": "x", "scanner": "projects", "category": "system"}]},
         "findings[0].category"),
        ({"findings": [{"content": "x"}]}, "findings[0].scanner"),
        ({"findings": "Programs in Rust"}, "findings"),
        ({"findings": scanned(*[f"fact {i}" for i in range(1001)])}, "findings"),
        ({}, "findings"),
    ],
)  # fmt: skip
def test_malformed_findings_are_a_400_naming_the_field(alice_on, body, field):
    response = alice_on.post(FINDINGS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not Finding.objects.exists()


def test_a_body_that_is_not_json_is_a_400(alice_on):
    response = alice_on.post(FINDINGS, "not json", content_type="application/json")
    assert response.status_code == 400 and "error" in response.json()


def test_a_scanner_filter_that_is_not_text_is_a_400_on_every_backend(alice_on):
    # PostgreSQL refuses a NUL in a string; it is a bad request, never a server error.
    response = alice_on.get(FINDINGS, {"scanner": "git\x00x", "status": "approved"})
    assert response.status_code == 400 and "scanner" in str(response.json())


def test_it_lists_findings_by_status_in_pages(alice, alice_on):
    rust, go, zig = alices_findings(alice, "Programs in Rust", "Programs in Go", "Programs in Zig")
    services.finding_reject(user=alice, finding_id=go.pk)
    page = alice_on.get(FINDINGS, {"page_size": 1}).json()
    assert page["count"] == 2 and [f["id"] for f in page["results"]] == [rust.pk]
    assert alice_on.get(FINDINGS, {"page_size": 1, "page": 2}).json()["results"][0]["id"] == zig.pk
    rejected = alice_on.get(FINDINGS, {"status": "rejected"}).json()["results"]
    assert [f["id"] for f in rejected] == [go.pk]
    assert alice_on.get(FINDINGS, {"status": "all"}).json()["count"] == 3
    assert alice_on.get(FINDINGS, {"scanner": "git"}).json()["count"] == 0
    bad = alice_on.get(FINDINGS, {"status": "maybe"})
    assert bad.status_code == 400 and "status" in bad.json()["error"]["fields"]


def test_approving_returns_the_knowledge_it_created(alice, alice_on):
    finding = alices_findings(alice, "Programs in Rust")[0]
    response = alice_on.post(
        approve_url(finding.pk), {"content": "Writes Rust", "category": "skill"}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "approved" and body["content"] == "Programs in Rust"
    knowledge = body["knowledge"]
    assert knowledge["id"] == body["knowledge_id"] == KnowledgeItem.objects.get().pk
    assert (knowledge["content"], knowledge["category"], knowledge["source"]) == (
        "Writes Rust", "skill", "discovery"
    )  # fmt: skip
    assert knowledge["confidence"] == 0.4 and knowledge["deduplicated"] is False
    again = alice_on.post(approve_url(finding.pk), format="json")
    assert again.status_code == 400 and again.json()["error"]["code"] == "already_approved"


@pytest.mark.parametrize(
    "body", [["content"], {"owner": 2}, {"content": "password is hunter22"}, {"sensitive": "x"}]
)
def test_bad_approval_bodies_are_a_400(alice, alice_on, body):
    finding = alices_findings(alice, "Programs in Rust")[0]
    assert alice_on.post(approve_url(finding.pk), body, format="json").status_code == 400
    assert not KnowledgeItem.objects.exists()


def test_rejecting_and_bulk_approving(alice, alice_on):
    rust, go, zig = alices_findings(alice, "Programs in Rust", "Programs in Go", "Programs in Zig")
    response = alice_on.post(reject_url(go.pk), format="json")
    assert response.status_code == 200 and response.json()["status"] == "rejected"
    response = alice_on.post(BULK, {"ids": [rust.pk, zig.pk]}, format="json")
    assert response.status_code == 200
    assert response.json()["approved"] == 2
    assert [f["status"] for f in response.json()["findings"]] == ["approved", "approved"]
    assert KnowledgeItem.objects.filter(source="discovery").count() == 2
    assert alice_on.post(BULK, {"ids": []}, format="json").status_code == 400
    assert alice_on.post(BULK, {"ids": "1,2"}, format="json").status_code == 400
    assert alice_on.post(BULK, {"ids": [10**9]}, format="json").status_code == 404


def test_reset_needs_confirmation_and_erases_discovery_items(alice, alice_on):
    finding = alices_findings(alice, "Programs in Rust")[0]
    services.finding_approve(user=alice, finding_id=finding.pk)
    memory.memory_create(user=alice, content="Lives in Berlin", source="user")
    for body in ({}, {"confirm": "yes"}, {"confirm": False}):
        response = alice_on.post(RESET, body, format="json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "confirmation_required"
    response = alice_on.post(RESET, {"confirm": True}, format="json")
    assert response.json() == {"erased_items": 1, "cleared_findings": 1}
    assert list(KnowledgeItem.objects.values_list("content", flat=True)) == ["Lives in Berlin"]


@pytest.mark.cross_user("api-discovery-findings")
def test_bob_never_sees_alices_findings_and_his_proposals_are_his_own(alice, alice_on, bob_on):
    alices_findings(alice, "Programs in Rust")
    assert bob_on.get(FINDINGS, {"status": "all"}).json()["count"] == 0
    response = bob_on.post(FINDINGS, scanned("Programs in Rust"), format="json")
    assert response.json()["created"] == 1  # alice's finding does not count as his
    assert alice_on.get(FINDINGS).json()["count"] == 1


@pytest.mark.cross_user("api-discovery-finding-approve")
def test_bob_gets_404_approving_alices_finding(alice, alice_on, bob_on):
    finding = alices_findings(alice, "Programs in Rust")[0]
    response = bob_on.post(approve_url(finding.pk), {}, format="json")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "Not found."}}
    assert bob_on.post(approve_url(10**9), {}, format="json").json() == response.json()
    finding.refresh_from_db()
    assert finding.status == "pending" and not KnowledgeItem.objects.exists()


@pytest.mark.cross_user("api-discovery-finding-reject")
def test_bob_gets_404_rejecting_alices_finding(alice, alice_on, bob_on):
    finding = alices_findings(alice, "Programs in Rust")[0]
    assert bob_on.post(reject_url(finding.pk), format="json").status_code == 404
    finding.refresh_from_db()
    assert finding.status == "pending"


@pytest.mark.cross_user("api-discovery-findings-approve")
def test_bob_gets_404_bulk_approving_alices_findings(alice, alice_on, bob, bob_on):
    finding = alices_findings(alice, "Programs in Rust")[0]
    bobs = services.finding_propose_many(user=bob, findings=scanned("Programs in C")).created[0]
    response = bob_on.post(BULK, {"ids": [bobs.pk, finding.pk]}, format="json")
    assert response.status_code == 404
    assert not KnowledgeItem.objects.exists()


@pytest.mark.cross_user("api-discovery-reset")
def test_bobs_reset_leaves_alices_discovery_items_alone(alice, alice_on, bob_on):
    finding = alices_findings(alice, "Programs in Rust")[0]
    services.finding_approve(user=alice, finding_id=finding.pk)
    response = bob_on.post(RESET, {"confirm": True}, format="json")
    assert response.json() == {"erased_items": 0, "cleared_findings": 0}
    assert KnowledgeItem.objects.filter(owner=alice).count() == 1
    assert Finding.objects.filter(owner=alice).count() == 1


def test_the_openapi_schema_describes_every_discovery_endpoint():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = {p: ops for p, ops in schema["paths"].items() if "/discovery/" in p}
    assert set(paths) == {
        "/api/v1/discovery/findings/",
        "/api/v1/discovery/findings/approve/",
        "/api/v1/discovery/findings/{id}/approve/",
        "/api/v1/discovery/findings/{id}/reject/",
        "/api/v1/discovery/reset/",
    }
    operations = [op for ops in paths.values() for op in ops.values()]
    assert len(operations) == 6 and all(op["summary"] for op in operations)
