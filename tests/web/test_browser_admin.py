"""The admin on a phone: the skill analytics above the skills list scroll inside their
box, as the list itself does, so the page never scrolls sideways."""

import pytest

from accounts.models import AgentType
from skills.models import Skill
from tests.web import test_browser as shared
from tests.web.test_browser import PHONE, _shot, expect

browser = shared.browser  # the module's headless Chromium, shared with the page tests
pytestmark = pytest.mark.django_db(transaction=True)


def test_the_skills_list_with_its_analytics_fits_a_phone(browser, live_server, django_user_model):
    django_user_model.objects.create_user("boss", password="boss-pass-123", is_staff=True,
                                          is_superuser=True)  # fmt: skip
    kind = AgentType.objects.create(name="travel_agent_for_long_itineraries")
    for n in range(3):
        Skill.objects.create(agent_type=kind, status="proposed", confidence=0.5,
                             trigger=f"When the user asks to book leg {n} of a long trip",
                             procedure="Search flights, then book.")  # fmt: skip
    context = browser.new_context(viewport=PHONE, base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto("/admin/login/")
        page.fill("input[name=username]", "boss")
        page.fill("input[name=password]", "boss-pass-123")
        page.locator("input[type=submit]").click()
        page.goto("/admin/skills/skill/")
        expect(page.get_by_text("Skills by agent type")).to_be_visible()
        _shot(page, "phone-admin-skills")
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], width
        box = page.locator(".gaia-scroll")
        assert box.evaluate("b => b.scrollWidth > b.clientWidth")  # it scrolls, inside
        assert "Gaia Memory admin" in page.title()
    finally:
        context.close()
