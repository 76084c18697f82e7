"""The graph pages in a real browser, on a desktop and a phone: the person reads as
"You", relations as sentences, the drawing opens centred on them and scrolls inside its
card on a phone (the page itself never scrolls sideways)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from graph.models import Entity
from graph.services import entity_create, entity_holder, relation_add
from memory.services import memory_create
from tests.web import test_browser as shared
from tests.web.test_browser import PHONE, _log_in, _phone_check, _shot, expect

browser = shared.browser  # the module's headless Chromium, shared with the page tests

pytestmark = pytest.mark.django_db(transaction=True)


def _life(user) -> Entity:
    me = entity_holder(user=user)
    rui = entity_create(user=user, name="Rui", kind="person", aliases=["Rui Costa"])
    made = {name: entity_create(user=user, name=name, kind=kind) for name, kind in (
        ("Banco Atlântico", "organisation"), ("Porto", "place"), ("Lisbon", "place"),
        ("Helix", "team"))}  # fmt: skip
    long_ago = timezone.now() - timedelta(days=400)
    relation_add(user=user, subject=me, type="partner_of", object=rui)
    relation_add(user=user, subject=me, type="lives_in", object=made["Porto"], valid_from=long_ago)
    relation_add(user=user, subject=me, type="lives_in", object=made["Lisbon"])
    relation_add(user=user, subject=rui, type="works_at", object=made["Banco Atlântico"])
    relation_add(user=user, subject=me, type="member_of", object=made["Helix"])
    memory_create(user=user, content="Rui designs public libraries", entity="person:rui")
    return me


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 800}, PHONE], ids=["desktop", "phone"]
)
def test_the_graph_pages_read_as_the_person_would_say_it(browser, live_server, alice, viewport):
    me = _life(alice)
    context = browser.new_context(viewport=viewport, base_url=live_server.url,
                                  is_mobile=viewport == PHONE)  # fmt: skip
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        _log_in(page)
        page.goto("/graph/")
        drawing = page.locator(".graph-scroll")
        expect(drawing.get_by_text("You", exact=True)).to_be_visible()
        expect(drawing.get_by_text("partner of")).to_have_count(1)
        assert drawing.get_by_text("partner_of").count() == 0
        scroll = drawing.evaluate("b => [b.scrollLeft, b.scrollWidth, b.clientWidth]")
        if viewport == PHONE:
            assert scroll[1] > scroll[2] and abs(scroll[0] - (scroll[1] - scroll[2]) / 2) <= 2
            _phone_check(page, "graph")
        else:
            assert (
                scroll[1] <= scroll[2]
                and page.evaluate("document.documentElement.scrollWidth") <= 1280
            )
            _shot(page, "graph")
        listed = page.locator("#entities")
        expect(listed.get_by_role("link", name="You", exact=True)).to_be_visible()
        assert "myself" not in listed.inner_text()

        page.goto(f"/graph/entities/{me.pk}/")
        expect(page.get_by_role("heading", name="You")).to_be_visible()
        now = page.locator("#relations-now").inner_text()
        for said in (
            "You live in Lisbon",
            "You are the partner of Rui",
            "You are a member of Helix",
        ):
            assert said in now, now
        before = page.locator("#relations-before").inner_text()
        assert "You live in Porto" in before and "You live in Lisbon" in before
        assert "Two people under one name?" not in page.content()
        if viewport == PHONE:
            _phone_check(page, "graph-you")
        head = page.locator("#relations-now h2").bounding_box()
        card = page.locator("#relations-now").bounding_box()
        assert head["x"] - card["x"] >= 12  # the card's heading is inset like every card's
    finally:
        context.close()
