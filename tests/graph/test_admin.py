"""The graph in the Django admin: staff see every person's entities and relations, change
nothing there but ending a relation (through the service); others never get in."""

import pytest

from graph.models import Entity, Relation
from graph.services import entity_create, relation_add

pytestmark = pytest.mark.django_db


@pytest.fixture
def works(alice):
    rui = entity_create(user=alice, name="Rui", kind="person", aliases=["my partner"])
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    return relation_add(user=alice, subject=rui, type="works_at", object=firm)


def test_staff_list_and_search_entities_and_relations_but_cannot_change_them(staff_web, works):
    listed = staff_web.get("/admin/graph/entity/?q=partner")
    assert listed.status_code == 200 and b"Rui" in listed.content
    assert b"Atelier Norte" not in listed.content  # the search found Rui by his alias
    rui = Entity.objects.get(name="Rui")
    page = staff_web.get(f"/admin/graph/entity/{rui.pk}/change/")
    assert page.status_code == 200 and b"my partner" in page.content
    assert b'name="_save"' not in page.content  # read-only
    relations = staff_web.get("/admin/graph/relation/")
    assert relations.status_code == 200 and b"works_at" in relations.content
    assert (
        staff_web.post(f"/admin/graph/entity/{rui.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert staff_web.get("/admin/graph/relation/add/").status_code == 403
    assert Entity.objects.filter(pk=rui.pk).exists()


def test_staff_end_a_relation_through_the_service_and_it_is_kept(staff_web, works):
    response = staff_web.post(
        "/admin/graph/relation/",
        {"action": "end_relations", "_selected_action": [works.pk]},
        follow=True,
    )
    assert b"Ended 1 relation(s)." in response.content
    works.refresh_from_db()
    assert works.valid_to is not None and Relation.objects.filter(pk=works.pk).exists()


def test_a_person_who_is_not_staff_never_sees_the_graph_admin(alice_web, works):
    response = alice_web.get("/admin/graph/entity/")
    assert response.status_code == 302 and b"Rui" not in response.content
