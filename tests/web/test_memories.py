"""Memory pages that read: list, search, filters, paging, detail with lineage and origin."""

import pytest

from accounts.services import token_create
from conversations.services.recording import turn_append
from memory import services
from memory.models import MemoryVersion
from memory.recall import recall
from tests.web.seed import seed_month

pytestmark = pytest.mark.django_db


def _remember(user, content, **fields):
    return services.memory_create(user=user, content=content, **fields)


def test_it_lists_active_memories_newest_change_first(alice_web, alice):
    older = _remember(alice, "Prefers tea over coffee.")
    newer = _remember(alice, "Works at Lumen Analytics.")
    forgotten = _remember(alice, "Was looking at standing desks.")
    services.memory_forget(user=alice, item_id=forgotten.pk)
    response = alice_web.get("/memories/")
    assert response.status_code == 200
    shown = [row["item"].pk for row in response.context["rows"]]
    assert shown == [newer.pk, older.pk]
    assert b"2</strong> memories" in response.content


def test_it_filters_by_category_context_entity_source_and_sensitivity(alice_web, alice):
    seed_month(alice)

    def contents(query: str) -> set[str]:
        return {row["item"].content for row in alice_web.get(f"/memories/?{query}").context["rows"]}

    assert contents("category=skill") == {
        "Deploys the Gaia project with docker compose and make run."
    }
    assert contents("context=home") == {
        "Training for a half marathon in October.",
        "Has two children, Mia and Leo.",
        "Lives in Lisbon (moved from Porto).",
    }
    assert contents("entity=PERSON:sarah_chen") == {
        "Sarah Chen leads the billing migration project.",
        "Sarah Chen prefers reviews on Tuesday mornings.",
    }
    assert contents("source=discovery") == {
        "The Gaia project stores memory in PostgreSQL in production."
    }
    assert contents("sensitive=yes") == {"Blood type is O negative."}
    assert "Blood type is O negative." not in contents("sensitive=no")


def test_it_includes_forgotten_and_superseded_items_only_when_asked(alice_web, alice):
    data = seed_month(alice)
    plain = {row["item"].pk for row in alice_web.get("/memories/").context["rows"]}
    assert data["forgotten"].pk not in plain and data["old"].pk not in plain
    both = alice_web.get("/memories/?forgotten=on&superseded=on")
    pks = {row["item"].pk for row in both.context["rows"]}
    assert {data["forgotten"].pk, data["old"].pk} <= pks
    assert b"is-forgotten" in both.content


def test_it_hides_sensitive_content_behind_a_disclosure_in_the_list(alice_web, alice):
    _remember(alice, "Blood type is O negative.", sensitive=True, source="user")
    html = alice_web.get("/memories/").content.decode()
    assert '<details class="sensitive">' in html
    assert "Hidden — show" in html


def test_it_pages_long_lists(alice_web, alice):
    for n in range(30):
        _remember(alice, f"Fact number {n} about the {n}th planet visited.", entity=f"planet:{n}")
    first = alice_web.get("/memories/")
    assert len(first.context["rows"]) == 25
    assert b"Page 1 of 2" in first.content
    second = alice_web.get("/memories/?page=2")
    assert len(second.context["rows"]) == 5
    assert alice_web.get("/memories/?page=99").context["page"].number == 2


def test_it_sorts_when_asked(alice_web, alice):
    first = _remember(alice, "Prefers tea over coffee.")
    second = _remember(alice, "Works at Lumen Analytics.")
    rows = alice_web.get("/memories/?ordering=created_at").context["rows"]
    assert [r["item"].pk for r in rows] == [first.pk, second.pk]


def test_search_uses_recall_and_shows_how_each_hit_matched(alice_web, alice):
    seed_month(alice)
    response = alice_web.get("/memories/?q=Sarah+billing")
    assert response.status_code == 200
    rows = response.context["rows"]
    assert rows[0]["item"].content == "Sarah Chen leads the billing migration project."
    assert rows[0]["matched_by"] in {"keyword", "vector", "both"}
    expected = [
        h.item.pk
        for h in recall(user=alice, query="Sarah billing", top_k=100, include_sensitive=True)
    ]
    assert [r["item"].pk for r in rows] == expected
    assert b"matched by" in response.content


def test_search_does_not_count_as_agent_use(alice_web, alice):
    item = _remember(alice, "Sarah Chen leads the billing migration project.")
    alice_web.get("/memories/?q=billing")
    item.refresh_from_db()
    assert item.use_count == 0


def test_search_applies_the_filters(alice_web, alice):
    seed_month(alice)
    rows = alice_web.get("/memories/?q=Sarah&category=reminder").context["rows"]
    assert [r["item"].content for r in rows] == ["Send the quarterly report to Sarah."]
    rows = alice_web.get("/memories/?q=Gaia&source=discovery").context["rows"]
    assert [r["item"].content for r in rows] == [
        "The Gaia project stores memory in PostgreSQL in production."
    ]


def test_search_survives_query_syntax_characters(alice_web, alice):
    _remember(alice, "Sarah Chen leads the billing migration project.")
    for query in ['"unbalanced', "AND (", "*", "NEAR(a b)", "🙂"]:
        assert alice_web.get("/memories/", {"q": query}).status_code == 200


def test_it_shows_nothing_found_for_a_search_without_hits(alice_web, alice):
    _remember(alice, "Prefers tea over coffee.")
    response = alice_web.get("/memories/?q=submarine")
    assert b"Nothing found" in response.content


def test_detail_lists_every_version_newest_first(alice_web, alice):
    data = seed_month(alice)
    new = data["new"]
    services.memory_update(
        user=alice, item_id=new.pk, content="Lives in Lisbon, Alfama district.", source="user",
        reason="more precise",
    )  # fmt: skip
    page = alice_web.get(f"/memories/{new.pk}/")
    assert page.status_code == 200
    history = page.context["history"]
    assert [e.content for e in history] == [
        "Lives in Lisbon, Alfama district.",
        "Lives in Lisbon (moved from Porto).",
        "Lives in Porto.",
        "Lived in Braga as a student.",
    ]
    html = page.content.decode()
    assert "This is the only version" not in html and "more precise" in html
    for entry in history[1:3]:
        assert f"/memories/{new.pk}/versions/{entry.id}/restore/" in html
    assert f'href="/memories/{data["old"].pk}/"' in html  # the item it replaced


def test_restoring_a_version_from_the_page_keeps_the_current_text(alice_web, alice):
    data = seed_month(alice)
    new = data["new"]
    [porto] = MemoryVersion.objects.filter(item=new)
    response = alice_web.post(f"/memories/{new.pk}/versions/{porto.pk}/restore/")
    assert response.status_code == 302
    new.refresh_from_db()
    assert new.content == "Lives in Porto."
    assert set(new.versions.values_list("content", flat=True)) == {
        "Lives in Porto.",
        "Lives in Lisbon (moved from Porto).",
    }


def test_erasing_a_version_from_the_page_asks_then_removes_only_it(alice_web, alice):
    data = seed_month(alice)
    new = data["new"]
    [porto] = MemoryVersion.objects.filter(item=new)
    confirm = alice_web.get(f"/memories/{new.pk}/versions/{porto.pk}/erase/")
    assert b"Erase this earlier version for good?" in confirm.content
    assert alice_web.post(f"/memories/{new.pk}/versions/{porto.pk}/erase/").status_code == 302
    assert not MemoryVersion.objects.filter(pk=porto.pk).exists()
    new.refresh_from_db()
    assert new.content == "Lives in Lisbon (moved from Porto)." and new.is_active


def test_detail_links_the_turn_a_memory_came_from(alice_web, alice):
    data = seed_month(alice)
    turn = data["turn"]
    html = alice_web.get(f"/memories/{data['new'].pk}/").content.decode()
    assert f'href="/conversations/{turn.session_id}/?turn={turn.pk}#turn-{turn.pk}"' in html
    assert "We finally moved to Lisbon last weekend" in html


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("user", "Added by you"),
        ("tool", "Stored by one of your agents"),
        ("discovery", 'href="/discovery/"'),
        ("error_auto", "after a tool call failed"),
    ],
)
def test_detail_explains_other_origins(alice_web, alice, source, text):
    item = _remember(alice, "Prefers tea over coffee.", source=source)
    assert text in alice_web.get(f"/memories/{item.pk}/").content.decode()


@pytest.mark.cross_user("web-memory-list")
def test_lists_and_searches_never_show_another_users_memories(alice_web, alice, bob):
    seed_month(bob)
    turn_append(user=bob, session_id="s", role="user", content="bob was here today")
    _remember(alice, "Prefers coffee.")
    for url in (
        "/memories/",
        "/memories/?q=Sarah",
        "/memories/?forgotten=on&superseded=on",
        "/memories/?entity=person:sarah_chen",
    ):
        response = alice_web.get(url)
        assert all(row["item"].owner_id == alice.pk for row in response.context["rows"]), url
        assert b"Sarah Chen" not in response.content


def test_detail_history_and_list_show_the_agent_that_stored_it(alice_web, alice):
    token, _ = token_create(user=alice, name="laptop", agent_name="mail-assistant")
    item = services.memory_create(
        user=alice, content="User's dentist is Dr Ruiz", agent=token.agent
    )
    services.memory_update(user=alice, item_id=item.pk, content="User's dentist is Dr Ortega",
                           token=token)  # fmt: skip
    html = alice_web.get(f"/memories/{item.pk}/").content.decode()
    assert 'agent <a href="/memories/?agent=mail-assistant">“mail-assistant”</a>' in html
    assert "agent “mail-assistant” (token “laptop”)" in html  # the change, in the history
    mine = services.memory_create(user=alice, content="User likes figs", source="user")
    assert "you, in the web app" in alice_web.get(f"/memories/{mine.pk}/").content.decode()
    listed = alice_web.get("/memories/", {"agent": "mail-assistant"}).content.decode()
    assert "Dr Ortega" in listed and "User likes figs" not in listed
