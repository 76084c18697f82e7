"""The graph API: entities and relations written and read over REST, a contradicting
relation ending the old one, and another person's ids a 404 everywhere."""

import pytest
from rest_framework.test import APIClient

from accounts.people import app_create, app_token_create, person_create
from graph.models import Entity, Relation
from graph.services import entity_create, relation_add
from memory.services import memory_create

pytestmark = pytest.mark.django_db

ALL = (
    "api-graph-entities",
    "api-graph-entity",
    "api-graph-entity-aliases",
    "api-graph-entity-merge",
    "api-graph-entity-split",
    "api-graph-relations",
    "api-graph-relation",
    "api-graph-relation-end",
)


def test_a_new_employer_ends_the_old_one_and_the_entity_page_shows_both(alice, alice_api):
    said = memory_create(user=alice, content="Rui works at Atelier Norte, an architecture firm")
    first = alice_api.post(
        "/api/v1/graph/relations/",
        {
            "subject": "Rui",
            "subject_kind": "person",
            "type": "works_at",
            "object": "Atelier Norte",
            "object_kind": "organisation",
            "valid_from": "2021-03-01T09:00:00Z",
            "memory_ids": [said.pk],
        },
        format="json",
    )
    assert first.status_code == 201, first.json()
    rui = first.json()["subject"]["id"]
    now = alice_api.post(
        "/api/v1/graph/relations/",
        {
            "subject": rui,
            "type": "works_at",
            "object": "Banco Atlântico",
            "object_kind": "organisation",
            "valid_from": "2026-10-01T09:00:00Z",
        },
        format="json",
    )
    assert now.status_code == 201 and now.json()["sentence"] == "Rui works at Banco Atlântico"
    page = alice_api.get(f"/api/v1/graph/entities/{rui}/").json()
    assert page["entity"]["aliases"] == ["Rui"]
    assert [r["object"]["name"] for r in page["relations_now"]] == ["Banco Atlântico"]
    (before,) = page["relations_before"]
    assert before["object"]["name"] == "Atelier Norte"
    assert before["valid_to"].startswith("2026-10-01") and before["ended_by"] == now.json()["id"]
    assert [m["id"] for m in page["memories"]] == [said.pk]


def test_aliases_merge_and_split_over_the_api(alice, alice_api):
    rui = alice_api.post(
        "/api/v1/graph/entities/", {"name": "Rui", "kind": "person"}, format="json"
    ).json()
    again = alice_api.post("/api/v1/graph/entities/", {"name": "RUI"}, format="json")
    assert again.status_code == 200 and again.json()["id"] == rui["id"]
    costa = alice_api.post(
        "/api/v1/graph/entities/", {"name": "Mr Costa", "kind": "person"}, format="json"
    )
    answer = alice_api.post(
        f"/api/v1/graph/entities/{rui['id']}/aliases/",
        {"add": ["my partner", "Mr Costa"]},
        format="json",
    ).json()
    assert answer["taken"] == ["Mr Costa"] and answer["entity"]["aliases"] == ["my partner", "Rui"]
    merged = alice_api.post(
        f"/api/v1/graph/entities/{rui['id']}/merge/", {"other": costa.json()["id"]}, format="json"
    )
    assert merged.json()["aliases"] == ["Mr Costa", "my partner", "Rui"]
    split = alice_api.post(
        f"/api/v1/graph/entities/{rui['id']}/split/", {"name": "Mr Costa"}, format="json"
    )
    assert split.status_code == 201 and split.json()["aliases"] == ["Mr Costa"]
    listed = alice_api.get("/api/v1/graph/entities/?kind=person").json()["results"]
    assert sorted(e["name"] for e in listed) == ["Mr Costa", "Rui"]


def test_a_relation_can_be_ended_by_hand_and_listed_as_before(alice, alice_api):
    made = alice_api.post(
        "/api/v1/graph/relations/",
        {"subject": "me", "type": "lives_in", "object": "Porto", "object_kind": "place"},
        format="json",
    ).json()
    ended = alice_api.post(f"/api/v1/graph/relations/{made['id']}/end/", {}, format="json")
    assert ended.status_code == 200 and ended.json()["current"] is False
    before = alice_api.get("/api/v1/graph/relations/?current=false").json()["results"]
    assert [r["id"] for r in before] == [made["id"]]
    assert alice_api.get("/api/v1/graph/relations/?current=true").json()["results"] == []


def test_it_refuses_a_relation_type_it_does_not_know_and_unknown_fields(alice_api):
    for body, field in (
        ({"subject": "me", "type": "adores", "object": "Rui"}, "type"),
        ({"subject": "me", "type": "knows", "object": "Rui", "owner": 3}, "owner"),
        ({"subject": "me", "type": "knows", "object": ""}, "object"),
    ):
        answer = alice_api.post("/api/v1/graph/relations/", body, format="json")
        assert answer.status_code == 400 and list(answer.json()["error"]["fields"]) == [field]
    assert not Relation.objects.exists()


@pytest.mark.cross_user(*ALL)
def test_another_persons_entities_and_relations_are_a_404_and_never_listed(alice, bob, bob_api):
    item = memory_create(user=alice, content="Rui works at Atelier Norte")
    rui = entity_create(user=alice, name="Rui", kind="person")
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    works = relation_add(user=alice, subject=rui, type="works_at", object=firm, item_ids=[item.pk])
    bobs = entity_create(user=bob, name="Bob's cat", kind="pet")
    missing = bob_api.get("/api/v1/graph/entities/999999/")
    assert missing.status_code == 404
    for method, url, body in (
        ("get", f"/api/v1/graph/entities/{rui.pk}/", None),
        ("post", f"/api/v1/graph/entities/{rui.pk}/aliases/", {"add": ["Ruizinho"]}),
        ("post", f"/api/v1/graph/entities/{rui.pk}/merge/", {"other": bobs.pk}),
        ("post", f"/api/v1/graph/entities/{rui.pk}/split/", {"name": "Someone"}),
        ("get", f"/api/v1/graph/relations/{works.pk}/", None),
        ("post", f"/api/v1/graph/relations/{works.pk}/end/", {}),
        ("get", f"/api/v1/graph/relations/?entity={rui.pk}", None),
    ):
        answer = getattr(bob_api, method)(url, body, format="json")
        assert answer.status_code == 404 and answer.json() == missing.json(), (method, url)
    # bob's own entity cannot take alice's in, nor can his relation point at hers
    merge = bob_api.post(
        f"/api/v1/graph/entities/{bobs.pk}/merge/", {"other": rui.pk}, format="json"
    )
    assert merge.status_code == 400
    relate = bob_api.post(
        "/api/v1/graph/relations/",
        {"subject": bobs.pk, "type": "owns", "object": firm.pk, "memory_ids": [item.pk]},
        format="json",
    )
    assert relate.status_code == 400
    named = bob_api.post(
        "/api/v1/graph/relations/",
        {"subject": "me", "type": "knows", "object": "Rui"},
        format="json",
    )
    assert named.json()["object"]["id"] != rui.pk  # a name resolves among bob's own
    assert [e["name"] for e in bob_api.get("/api/v1/graph/entities/").json()["results"]] == [
        "me", "Bob's cat", "Rui",
    ]  # fmt: skip
    listed = bob_api.get("/api/v1/graph/relations/").json()["results"]
    assert [r["id"] for r in listed] == [named.json()["id"]]
    works.refresh_from_db()
    assert works.valid_to is None and Entity.objects.get(pk=rui.pk).aliases.count() == 1
    assert Relation.objects.filter(owner=alice).count() == 1


def test_an_agent_relates_two_entities_with_the_relate_tool_and_recall_follows_it(alice, alice_api):
    said = memory_create(user=alice, content="Rui designs public libraries for a living")
    entity_create(user=alice, name="Rui", kind="person")
    body = alice_api.post(
        "/api/v1/tools/call/",
        {
            "name": "relate",
            "arguments": '{"subject": "me", "type": "partner_of", "object": "rui", '
            f'"memory_ids": [{said.pk}]}}',
        },
        format="json",
    ).json()
    assert body["ok"] is True, body
    assert body["result"]["relation"] == "me is the partner of Rui"
    hits = alice_api.post(
        "/api/v1/memories/search/", {"query": "what does my partner do?"}, format="json"
    ).json()["results"]
    assert hits[0]["id"] == said.pk and hits[0]["via"].startswith("my partner is Rui")
    bad = alice_api.post(
        "/api/v1/tools/call/",
        {"name": "relate", "arguments": {"subject": "me", "type": "adores", "object": "Rui"}},
        format="json",
    ).json()
    assert bad["ok"] is False and "type" in bad["error"]["fields"]


def test_the_relate_tool_refuses_another_persons_memory_id_like_a_missing_one(
    alice, bob, alice_api
):
    bobs = memory_create(user=bob, content="Bob's sister Ana moved to Porto in March")
    for memory_id in (bobs.pk, bobs.pk + 1000):
        body = alice_api.post(
            "/api/v1/tools/call/",
            {
                "name": "relate",
                "arguments": {
                    "subject": "me",
                    "type": "knows",
                    "object": "Ana",
                    "memory_ids": [memory_id],
                },
            },
            format="json",
        ).json()
        assert body["ok"] is False and body["error"]["fields"] == {
            "memory_ids": ["No such memory."]
        }, body
    assert not Relation.objects.exists() and not Entity.objects.filter(owner=alice).exists()


def test_an_app_token_reaches_the_graph_only_for_one_of_its_people(db):
    app = app_create(name="graph-app")
    _, secret = app_token_create(app=app)
    person_create(app=app, external_id="p-1")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    body = {"name": "Rui", "kind": "person"}
    assert client.post("/api/v1/graph/entities/", body, format="json").status_code == 403
    made = client.post("/api/v1/graph/entities/?user_id=p-1", body, format="json")
    assert made.status_code == 201
    listed = client.get("/api/v1/graph/entities/?user_id=p-1").json()["results"]
    assert [e["name"] for e in listed] == ["Rui"]


def test_odd_list_filters_are_refused_not_crashed(alice_api):
    assert alice_api.get("/api/v1/graph/entities/?q=a%00b").status_code == 400
    assert alice_api.get("/api/v1/graph/entities/?kind=dragon").status_code == 400
    assert alice_api.get("/api/v1/graph/relations/?entity=%C2%B2").status_code == 400
    assert alice_api.get("/api/v1/graph/entities/?q=Rui").status_code == 200
