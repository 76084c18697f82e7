"""Memory pages: list, search, filters, paging, detail, add, edit, forget, restore, erase."""

import pytest
from django.test import Client

from conversations.services import turn_append
from memory import services
from memory.models import KnowledgeItem
from memory.search import recall
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
        for h in recall(
            user=alice, query="Sarah billing", top_k=100, touch=False, include_sensitive=True
        )
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


def test_detail_shows_lineage_in_both_directions(alice_web, alice):
    data = seed_month(alice)
    old, new = data["old"], data["new"]
    newest = services.memory_supersede(
        user=alice, item_id=new.pk, content="Lives in Lisbon, Alfama district.", source="user"
    )
    middle = alice_web.get(f"/memories/{new.pk}/")
    assert middle.status_code == 200
    lineage = middle.context["lineage"]
    assert [i.pk for i in lineage["older"]] == [old.pk]
    assert [i.pk for i in lineage["newer"]] == [newest.pk]
    html = middle.content.decode()
    assert f'href="/memories/{old.pk}/"' in html and f'href="/memories/{newest.pk}/"' in html
    assert "Replaced by a newer version" in html
    first = alice_web.get(f"/memories/{old.pk}/").context["lineage"]
    assert [i.pk for i in first["newer"]] == [new.pk, newest.pk]


def test_detail_links_the_turn_a_memory_came_from(alice_web, alice):
    data = seed_month(alice)
    turn = data["turn"]
    html = alice_web.get(f"/memories/{data['new'].pk}/").content.decode()
    assert f'href="/conversations/{turn.session_id}/#turn-{turn.pk}"' in html
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


def test_add_stores_a_memory_from_the_person(alice_web, alice):
    assert alice_web.get("/memories/new/").status_code == 200
    response = alice_web.post(
        "/memories/new/",
        {
            "content": "Allergic to peanuts.",
            "category": "fact",
            "context": "",
            "entity": "Person:Alice",
            "sensitive": "on",
            "due_at": "",
        },
    )
    item = KnowledgeItem.objects.for_user(alice).get()
    assert response.status_code == 302
    assert response["Location"] == f"/memories/{item.pk}/"
    assert (item.source, item.confidence, item.context) == ("user", 0.8, "global")
    assert item.entity == "person:alice" and item.sensitive


def test_add_reads_the_due_time_in_the_users_time_zone(alice_web, alice):
    from memory.user_settings import user_settings_update

    user_settings_update(user=alice, timezone="Europe/Lisbon")
    alice_web.post(
        "/memories/new/",
        {"content": "Dentist.", "category": "reminder", "due_at": "2026-07-01T09:30"},
    )
    item = KnowledgeItem.objects.for_user(alice).get()
    assert item.due_at.isoformat() == "2026-07-01T08:30:00+00:00"  # 09:30 summer time in Lisbon


def test_add_folds_a_near_duplicate_into_the_existing_memory(alice_web, alice):
    existing = _remember(alice, "Prefers tea over coffee.")
    response = alice_web.post(
        "/memories/new/", {"content": "Prefers tea over coffee!", "category": "fact"}, follow=True
    )
    assert KnowledgeItem.objects.for_user(alice).count() == 1
    assert response.redirect_chain[-1][0] == f"/memories/{existing.pk}/"
    assert b"so that one was updated" in response.content


def test_add_shows_the_services_refusal_next_to_the_field(alice_web, alice):
    response = alice_web.post(
        "/memories/new/",
        {"content": "my password is hunter2hunter2", "category": "fact"},
    )
    assert response.status_code == 200
    assert "Credentials are never stored in memory" in response.content.decode()
    assert not KnowledgeItem.objects.for_user(alice).exists()


def test_add_requires_content(alice_web, alice):
    response = alice_web.post("/memories/new/", {"content": "   ", "category": "fact"})
    assert response.status_code == 200
    assert b"This field is required" in response.content


def test_edit_changes_only_what_changed(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.", context="home", source="tool")
    KnowledgeItem.objects.filter(pk=item.pk).update(embedding=b"\0" * 8, embedding_model="m")
    form = alice_web.get(f"/memories/{item.pk}/edit/")
    assert form.status_code == 200
    assert b"Prefers tea over coffee." in form.content
    response = alice_web.post(
        f"/memories/{item.pk}/edit/",
        {
            "content": "Prefers green tea.",
            "category": "preference",
            "context": "home",
            "entity": "",
            "domain": "",
        },
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.content, item.category, item.context) == (
        "Prefers green tea.",
        "preference",
        "home",
    )
    assert item.embedding is None  # changed content is embedded again
    assert item.source == "tool"  # the origin stays what it was


def test_edit_with_no_change_says_so(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.")
    response = alice_web.post(
        f"/memories/{item.pk}/edit/",
        {"content": "Prefers tea over coffee.", "category": "fact", "context": "global"},
        follow=True,
    )
    assert b"Nothing changed" in response.content


def test_forget_and_restore_round_trip(alice_web, alice):
    item = _remember(alice, "Sarah Chen leads the billing migration project.")
    response = alice_web.post(f"/memories/{item.pk}/forget/")
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.forgotten_at is not None
    assert not alice_web.get("/memories/?q=billing").context["rows"]
    assert b"Forgotten" in alice_web.get(f"/memories/{item.pk}/").content
    alice_web.post(f"/memories/{item.pk}/restore/")
    item.refresh_from_db()
    assert item.forgotten_at is None
    assert alice_web.get("/memories/?q=billing").context["rows"][0]["item"].pk == item.pk


def test_forget_returns_to_a_safe_next_page_only(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.")
    back = alice_web.post(f"/memories/{item.pk}/forget/", {"next": "/memories/?page=2"})
    assert back["Location"] == "/memories/?page=2"
    away = alice_web.post(f"/memories/{item.pk}/restore/", {"next": "https://evil.example/"})
    assert away["Location"] == f"/memories/{item.pk}/"


def test_forget_restore_and_erase_refuse_get(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.")
    assert alice_web.get(f"/memories/{item.pk}/forget/").status_code == 405
    assert alice_web.get(f"/memories/{item.pk}/restore/").status_code == 405
    assert alice_web.get(f"/memories/{item.pk}/erase/").status_code == 200  # the confirmation
    item.refresh_from_db()
    assert item.forgotten_at is None


def test_destructive_actions_need_the_csrf_token(alice):
    item = _remember(alice, "Prefers tea over coffee.")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    for action in ("forget", "erase"):
        assert browser.post(f"/memories/{item.pk}/{action}/").status_code == 403
    assert KnowledgeItem.objects.for_user(alice).get().forgotten_at is None


def test_erase_asks_first_then_removes_the_item_for_good(alice_web, alice):
    item = _remember(alice, "Sarah Chen leads the billing migration project.")
    confirm = alice_web.get(f"/memories/{item.pk}/erase/")
    assert b"Erase this memory for good?" in confirm.content
    assert KnowledgeItem.objects.filter(pk=item.pk).exists()
    response = alice_web.post(f"/memories/{item.pk}/erase/")
    assert response.status_code == 302 and response["Location"] == "/memories/"
    assert not KnowledgeItem.objects.filter(pk=item.pk).exists()
    assert not recall(user=alice, query="billing", touch=False)
    assert alice_web.get(f"/memories/{item.pk}/").status_code == 404


def test_erase_warns_that_the_version_it_replaced_comes_back(alice_web, alice):
    data = seed_month(alice)
    html = alice_web.get(f"/memories/{data['new'].pk}/erase/").content.decode()
    assert "which becomes current again" in html
    assert f'href="/memories/{data["old"].pk}/"' in html
    alice_web.post(f"/memories/{data['new'].pk}/erase/")
    data["old"].refresh_from_db()
    assert data["old"].is_active


def test_add_suggests_the_users_contexts(alice_web, alice):
    from memory.user_settings import user_settings_update

    user_settings_update(user=alice, contexts=["garden"])
    _remember(alice, "Prefers tea over coffee.", context="work")
    html = alice_web.get("/memories/new/").content.decode()
    for name in ("garden", "work", "global"):
        assert f'<option value="{name}">' in html


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


def _alices_item(alice):
    return _remember(alice, "Alice's secret plan for the garden.", source="user")


def _assert_unchanged(item):
    before = (item.content, item.forgotten_at, item.category)
    item.refresh_from_db()
    assert (item.content, item.forgotten_at, item.category) == before


@pytest.mark.cross_user("web-memory-detail")
def test_another_users_memory_is_not_found(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.get(f"/memories/{item.pk}/").status_code == 404
    assert bob_web.get("/memories/999999/").status_code == 404


@pytest.mark.cross_user("web-memory-edit")
def test_another_users_memory_cannot_be_edited(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.get(f"/memories/{item.pk}/edit/").status_code == 404
    response = bob_web.post(
        f"/memories/{item.pk}/edit/", {"content": "pwned", "category": "fact", "context": "global"}
    )
    assert response.status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-forget")
def test_another_users_memory_cannot_be_forgotten(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.post(f"/memories/{item.pk}/forget/").status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-restore")
def test_another_users_memory_cannot_be_restored(bob_web, alice):
    item = _alices_item(alice)
    services.memory_forget(user=alice, item_id=item.pk)
    item.refresh_from_db()
    assert bob_web.post(f"/memories/{item.pk}/restore/").status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-erase")
def test_another_users_memory_cannot_be_erased(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.get(f"/memories/{item.pk}/erase/").status_code == 404
    assert bob_web.post(f"/memories/{item.pk}/erase/").status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-add")
def test_adding_always_writes_to_the_signed_in_user(bob_web, alice, bob):
    bob_web.post(
        "/memories/new/",
        {"content": "Bob likes chess.", "category": "fact", "owner": alice.pk, "source": "tool"},
    )
    item = KnowledgeItem.objects.get(content="Bob likes chess.")
    assert item.owner_id == bob.pk and item.source == "user"
    assert not KnowledgeItem.objects.for_user(alice).exists()
