"""The web app in a real browser: headless Chromium (tests/web/chromium.py finds it)
driven by Playwright.

Screenshots of the main pages go to test-artifacts/screenshots/ for people to look at.
"""

import re
from pathlib import Path

import httpx
import pytest
from django.urls import reverse

from accounts.services import token_authenticate, token_create, user_settings_update
from conversations.models import Session
from discovery.services import finding_propose_many
from memory.models import KnowledgeItem
from tests.web.chromium import find_chromium, missing_reason
from tests.web.seed import seed_month

CHROMIUM = find_chromium()
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

if CHROMIUM is None:
    pytest.skip(missing_reason(), allow_module_level=True)
sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="Playwright is not installed (pip install -r requirements-dev.txt)",
)
expect = sync_api.expect

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def browser():
    # Playwright's sync API keeps an event loop in this thread, so Django would take the ORM
    # calls the tests make between browser steps for async code; they are plain sync code.
    with pytest.MonkeyPatch.context() as patch, sync_api.sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _log_in(page, username: str = "alice", password: str = "alice-pass-123") -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Dashboard")).to_be_visible()


def test_a_person_adds_finds_forgets_and_restores_a_memory(page, alice):
    page.goto("/login/")
    _shot(page, "login")
    _log_in(page)
    page.get_by_role("link", name="Add a memory").first.click()
    page.get_by_label("Content").fill("Training for the Lisbon half marathon in October.")
    page.get_by_label("Category").select_option("note")
    page.get_by_label("Entity").fill("event:lisbon_half")
    _shot(page, "memory-add")
    page.get_by_role("button", name="Add memory").click()
    expect(page.locator(".flash-success")).to_have_text("Memory added.")
    item = KnowledgeItem.objects.for_user(alice).get()
    assert (item.source, item.entity) == ("user", "event:lisbon_half")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Memories").click()
    page.get_by_role("searchbox", name="Search memories").fill("marathon october")
    page.keyboard.press("Enter")
    results = page.locator("li.memory")
    expect(results).to_have_count(1)
    expect(results.first).to_contain_text("Lisbon half marathon")
    expect(results.first.locator(".badge-match")).to_be_visible()
    _shot(page, "memory-search")

    results.first.get_by_role("button", name="Forget").click()
    expect(page.locator(".flash-success")).to_contain_text("Forgotten")
    expect(page.get_by_text("Nothing found")).to_be_visible()  # back on the same search
    item.refresh_from_db()
    assert item.forgotten_at is not None

    page.goto(f"/memories/{item.pk}/")
    expect(page.locator(".notice")).to_contain_text("Forgotten")
    page.get_by_role("button", name="Restore").click()
    expect(page.locator(".flash-success")).to_contain_text("Restored")
    expect(page.get_by_role("heading", name=re.compile("Memory #"))).to_contain_text("active")
    _shot(page, "memory-detail")
    page.goto("/memories/?q=marathon")
    expect(page.locator("li.memory")).to_have_count(1)


def test_erasing_asks_for_confirmation(page, alice):
    seed = seed_month(alice)
    _log_in(page)
    page.goto(f"/memories/{seed['new'].pk}/")
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    _shot(page, "memory-lineage")
    page.get_by_role("link", name="Erase…").click()
    expect(page.get_by_role("heading", name="Erase this memory for good?")).to_be_visible()
    _shot(page, "memory-erase-confirm")
    page.get_by_role("button", name="Erase for good").click()
    expect(page.locator(".flash-success")).to_have_text("Erased for good.")
    assert not KnowledgeItem.objects.filter(pk=seed["new"].pk).exists()


def test_a_person_creates_copies_and_revokes_a_token(page, alice):
    _log_in(page)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="API tokens").click()
    page.get_by_label("Name").fill("laptop-assistant")
    page.get_by_label("Expires").select_option("90")
    page.get_by_role("button", name="Create token").click()
    secret = page.locator("#new-token").input_value()
    assert secret.startswith("gaia_")
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    _shot(page, "token-created")
    token = token_authenticate(secret)
    assert token is not None and token.owner_id == alice.pk and token.expires_at is not None

    page.goto("/tokens/")
    assert secret not in page.content()  # shown once
    expect(page.locator("#tokens tbody tr")).to_contain_text("laptop-assistant")
    page.get_by_role("button", name="Revoke").click()
    expect(page.locator(".flash-success")).to_contain_text("revoked")
    expect(page.locator("#tokens tbody tr .badge")).to_have_text("revoked")
    assert token_authenticate(secret) is None


def test_a_token_made_in_the_browser_works_against_the_memories_api(page, alice, live_server):
    _log_in(page)
    page.goto("/memories/new/")
    page.get_by_label("Content").fill("Prefers window seats on long flights.")
    page.get_by_role("button", name="Add memory").click()
    page.goto("/tokens/")
    page.get_by_label("Name").fill("api-check")
    page.get_by_role("button", name="Create token").click()
    secret = page.locator("#new-token").input_value()
    url = live_server.url + reverse("api-memories")
    answer = httpx.get(url, headers={"Authorization": f"Bearer {secret}"}, timeout=10)
    assert answer.status_code == 200
    assert "Prefers window seats on long flights." in answer.text
    assert httpx.get(url, timeout=10).status_code in (401, 403)
    page.goto("/tokens/")
    page.get_by_role("button", name="Revoke").click()
    expect(page.locator(".flash-success")).to_contain_text("revoked")
    revoked = httpx.get(url, headers={"Authorization": f"Bearer {secret}"}, timeout=10)
    assert revoked.status_code == 401


def test_the_dashboard_draws_the_activity_chart(page, alice):
    seed_month(alice)
    _log_in(page)
    chart = page.locator("svg.chart-svg")
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box["width"] > 600 and box["height"] > 100
    assert page.locator("svg.chart-svg .series-turns rect").count() > 5
    assert page.locator("svg.chart-svg .series-tool_calls rect").count() > 5
    expect(page.locator(".legend")).to_contain_text("Turns")
    expect(page.get_by_text(re.compile(r"No LLM configured: \d+ turns? waiting"))).to_be_visible()
    _shot(page, "dashboard")


def test_the_main_pages_render_for_a_busy_account(page, alice):
    seed_month(alice)
    busy = Session.objects.for_user(alice).get(session_id="billing-migration")
    _log_in(page)
    for path, name, heading in [
        ("/memories/", "memories", "Memories"),
        ("/memories/?superseded=on&forgotten=on", "memories-all", "Memories"),
        ("/conversations/", "conversations", "Conversations"),
        (f"/conversations/{busy.pk}/", "session", "billing-migration"),
        ("/conversations/search/?q=Lisbon", "conversation-search", "Conversations"),
        ("/conversations/tools/", "tool-calls", "Conversations"),
        ("/tokens/", "tokens", "API tokens"),
        ("/settings/", "settings", "Settings"),
        ("/password/", "password-change", "Change password"),
    ]:
        page.goto(path)
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
        _shot(page, name)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/")
    _shot(page, "dashboard-phone")
    page.locator("details.usermenu summary").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", name="Welcome back")).to_be_visible()


def test_forget_and_restore_work_without_javascript(browser, live_server, alice):
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    page = context.new_page()
    try:
        item = seed_month(alice)["items"][0]
        _log_in(page)
        page.goto(f"/memories/{item.pk}/")
        page.get_by_role("button", name="Forget").click()
        expect(page.locator(".flash-success")).to_contain_text("Forgotten")
        page.get_by_role("button", name="Restore").click()
        expect(page.locator(".flash-success")).to_contain_text("Restored")
        item.refresh_from_db()
        assert item.forgotten_at is None
    finally:
        context.close()


def test_login_is_rate_limited_in_the_browser(page, alice, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"token": "6000/min", "login": "2/min"},
    }
    for _ in range(2):
        page.goto("/login/")
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill("wrong")
        page.get_by_role("button", name="Log in").click()
        expect(page.locator(".flash-error")).to_contain_text("correct username and password")
    page.get_by_label("Password").fill("alice-pass-123")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".flash-error")).to_contain_text("Too many attempts")


def test_the_pages_run_under_the_content_security_policy_without_a_violation(page, alice):
    seed_month(alice)
    refused = []
    page.on("console", lambda message: refused.append(message.text) if "Content Security Policy"
            in message.text else None)  # fmt: skip
    _log_in(page)
    item = KnowledgeItem.objects.for_user(alice).first()
    for path in ("/", "/memories/", f"/memories/{item.pk}/", f"/memories/{item.pk}/edit/",
                 "/conversations/", "/tokens/", "/discovery/", "/settings/"):  # fmt: skip
        response = page.goto(path)
        assert "script-src 'self'" in response.headers["content-security-policy"]
    page.goto("/")
    bar = page.locator(".bars .bar-fill").first.bounding_box()
    assert bar["width"] > 0  # the bars' lengths need no inline style
    page.goto("/tokens/")
    page.get_by_label("Name").fill("csp-check")
    page.get_by_role("button", name="Create token").click()
    page.get_by_role("button", name="Copy").click()  # the page script (a file) still runs
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    page.goto("/api/v1/docs/")  # Swagger UI starts from a script file, not inline
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible()
    _shot(page, "api-docs")
    assert refused == []


PHONE = {"width": 390, "height": 844}
# Page-level horizontal scrolling, and controls that cannot be reached on a phone.
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const scrollsAlone = el => {
    for (let node = el.parentElement; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (['auto', 'scroll'].includes(style.overflowX) && node.scrollWidth > node.clientWidth)
        return node;
    }
    return null;
  };
  const out = {pageWidth: document.documentElement.scrollWidth, width, tables: [], unreachable: []};
  for (const table of document.querySelectorAll('main table')) {
    const box = table.getBoundingClientRect();
    if (box.right > width + 1) {
      const holder = scrollsAlone(table);
      out.tables.push({ok: !!holder && !!holder.closest('.card'), cls: table.className});
    }
  }
  const controls = ['a[href]', 'button', 'input', 'select', 'textarea', 'summary']
    .map(tag => `main ${tag}, header ${tag}`).join(', ');
  for (const el of document.querySelectorAll(controls)) {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('details:not([open])') && el.tagName !== 'SUMMARY') continue;
    const label = (el.innerText || el.name || el.tagName).trim().slice(0, 40);
    const inside = box.left >= -1 && box.right <= width + 1;
    if (!inside && !scrollsAlone(el)) out.unreachable.push(label);
    if (box.height < 24 && el.tagName !== 'A') out.unreachable.push('too small: ' + label);
  }
  return out;
}"""


def _phone_check(page, name: str) -> None:
    _shot(page, f"phone-{name}")
    found = page.evaluate(OVERFLOW_JS)
    assert found["pageWidth"] <= found["width"], (name, found)
    assert all(table["ok"] for table in found["tables"]), (name, found["tables"])
    assert not found["unreachable"], (name, found["unreachable"])


def test_the_main_pages_work_on_a_phone(browser, live_server, alice):
    seed = seed_month(alice)
    user_settings_update(user=alice, discovery_consent=True)
    finding_propose_many(
        user=alice,
        findings=[
            {
                "content": "Works on a project called lisbon-tram-times (Python)",
                "category": "fact",
                "context": "work",
                "entity": "project:lisbon-tram-times",
                "scanner": "projects",
            }
        ],
    )
    busy = Session.objects.for_user(alice).get(session_id="billing-migration")
    context = browser.new_context(viewport=PHONE, base_url=live_server.url, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto("/login/")
        _phone_check(page, "login")
        _log_in(page)
        for path, name, heading in [
            ("/", "dashboard", "Dashboard"),
            ("/memories/", "memories", "Memories"),
            (f"/memories/{seed['new'].pk}/", "memory-detail", None),
            ("/memories/new/", "memory-add", None),
            ("/conversations/", "conversations", "Conversations"),
            (f"/conversations/{busy.pk}/", "session", "billing-migration"),
            ("/conversations/search/?q=Lisbon", "conversation-search", "Conversations"),
            ("/conversations/tools/", "tool-calls", "Conversations"),
            ("/tokens/", "tokens", "API tokens"),
            ("/settings/", "settings", "Settings"),
            ("/discovery/", "discovery", "Discovery"),
        ]:
            page.goto(path)
            if heading:
                expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
            _phone_check(page, name)
        nav = page.get_by_role("navigation", name="Main")
        for link in ("Dashboard", "Memories", "Conversations", "Discovery", "API tokens"):
            expect(nav.get_by_role("link", name=link)).to_be_in_viewport()
        page.locator("details.usermenu summary").click()
        expect(page.get_by_role("button", name="Log out")).to_be_in_viewport()
    finally:
        context.close()


def test_on_a_phone_the_chart_opens_on_the_latest_days_and_table_rows_show_every_column(
    browser, live_server, alice
):
    seed_month(alice)
    token_create(user=alice, name="kitchen-tablet")
    context = browser.new_context(viewport=PHONE, base_url=live_server.url, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        _log_in(page)
        today = page.locator("svg.chart-svg .chart-hover rect").last
        expect(today).to_be_in_viewport()  # the oldest, empty days are what scrolls away
        expect(page.locator("svg.chart-svg .chart-hover rect").first).not_to_be_in_viewport()

        page.goto("/tokens/")
        row = page.locator("#tokens tbody tr").first
        expect(row.get_by_role("button", name="Revoke")).to_be_in_viewport()
        for column in ("Agent", "Token", "Last used"):
            cell = row.locator(f'td[data-label="{column}"]')
            expect(cell).to_be_in_viewport()
        _shot(page, "phone-tokens-rows")
    finally:
        context.close()
