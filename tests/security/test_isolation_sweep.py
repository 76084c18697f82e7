"""Every URL pattern of the API and the web app, every method, as bob next to alice.

Alice and bob hold near-identical memory (tests/security/twins.py). Bob's requests:

- with alice's ids in the path (or in the body) answer exactly like a missing id, for
  every method (404, or the same 405 for a method the URL does not take);
- that list, search, export, prompt, count or summarise never show alice's rows: none of
  her marker words, none of her (content, id) pairs, no link to her objects;
- change nothing of alice's: all her rows are compared before and after the sweep.

The sweep knows each URL name; a URL added to the project without an entry here fails
`test_the_sweep_covers_every_url_pattern`, so new endpoints join the sweep.
"""

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_create
from conversations.models import Session
from memory.models import KnowledgeItem, MemoryVersion
from tests.learning import fake_llm as f
from tests.mcp_rpc import HELLO
from tests.security.twins import SHARED_SESSION, Twin, seed_twin, snapshot, twin_type
from tests.test_architecture import api_patterns

pytestmark = pytest.mark.django_db
METHODS = ("get", "post", "put", "patch", "delete")
MISSING = 10**9
ROOT = Path(__file__).resolve().parents[2]


def mcp(method: str, **params: Any) -> dict[str, Any]:
    """A JSON-RPC request to the MCP server at /mcp."""
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


# URL name -> the kind of object its path id names.
OBJECT_URLS = {
    "api-memory-detail": "knowledge",
    "api-memory-restore": "knowledge",
    "api-memory-erase": "knowledge",
    "api-session-detail": "session_id",
    "api-turn-detail": "turn",
    "api-session-consolidate": "session_id",
    "api-discovery-finding-approve": "finding",
    "api-discovery-finding-reject": "finding",
    "web-memory-detail": "knowledge",
    "web-memory-edit": "knowledge",
    "web-memory-forget": "knowledge",
    "web-memory-restore": "knowledge",
    "web-memory-erase": "knowledge",
    "web-session-detail": "session",
    "web-turn-extraction-retry": "turn",
    "web-discovery-approve": "finding",
    "web-discovery-reject": "finding",
    "web-token-revoke": "token",
    "api-import-detail": "import",
    "web-import-detail": "import",
    "api-memory-history": "knowledge",
    "api-memory-version": "version",
    "api-memory-version-restore": "version",
    "web-memory-version-restore": "version",
    "web-memory-version-erase": "version",
    "api-agent-detail": "agent",
    "web-agent-edit": "agent",
    "api-skill-validate": "skill",
    "api-webhook-detail": "webhook",
    "api-webhook-secret": "webhook",
    "api-webhook-pause": "webhook",
    "api-webhook-resume": "webhook",
    "api-webhook-ping": "webhook",
    "api-webhook-deliveries": "webhook",
    "web-webhook-action": "webhook_action",
    "api-graph-entity": "entity",
    "api-graph-entity-aliases": "entity",
    "api-graph-entity-merge": "entity",
    "api-graph-entity-split": "entity",
    "api-graph-relation": "relation",
    "api-graph-relation-end": "relation",
    "web-graph-entity": "entity",
    "web-graph-entity-action": "entity_action",
    "web-graph-relation-end": "relation",
}
# The API methods that take a body on these URLs (the others refuse any field in one).
BODIES = {
    "api-memory-detail": {"patch", "put"},
    "api-discovery-finding-approve": {"post"},
    "api-agent-detail": {"patch"},
    "api-webhook-detail": {"patch"},
    "api-graph-entity-aliases": {"post"},
    "api-graph-entity-merge": {"post"},
    "api-graph-entity-split": {"post"},
    "api-graph-relation-end": {"post"},
}
BODIES |= {name: set() for name in OBJECT_URLS if name.startswith("api-") and name not in BODIES}
WEB_WRITES = {"post", "put", "patch", "delete"}
SEARCH = "secret codeword project gaia"  # with min_relevance 0: every hit
EVERY = {"query": SEARCH, "min_relevance": 0}
WORDS = "secret codeword"  # the pages keep the default floor: words both twins wrote
# Requests without an object id in the path: (url name, method, query or body, own marker
# expected in the answer). Reads first; the writes at the end change only bob's rows.
READS: list[tuple[str, str, Any, bool]] = [
    ("api-memories", "get", {"include_forgotten": "true", "include_superseded": "true"}, True),
    ("api-memory-search", "post", {**EVERY, "top_k": 100, "include_sensitive": True}, True),
    ("api-memory-upcoming", "get", {"days": 30}, False),
    ("api-prompt-system", "get", {}, False),
    ("api-prompt-context", "get", {"days": 30}, False),
    ("api-prompt-profile", "get", {}, True),
    ("api-tools", "get", {}, False),
    ("api-tool-call", "post", {"name": "recall", "arguments": {**EVERY, "top_k": 50}},
     True),
    ("api-tool-call", "post", {"name": "search_past_conversations", "arguments": EVERY},
     True),
    ("api-stats", "get", {}, False),
    ("api-entities", "get", {}, True),
    ("api-contexts", "get", {}, True),
    ("api-activity", "get", {"days": 7}, False),
    ("api-export", "get", {}, True),
    ("api-imports", "get", {}, False),
    ("api-agents", "get", {}, False),
    ("api-skills-search", "post", {"query": SEARCH, "min_relevance": 0}, True),
    ("api-skills-search", "get", {"query": SEARCH, "min_relevance": 0}, True),
    ("api-tool-call", "post", {"name": "recall_skills", "arguments": {"query": SEARCH}}, True),
    ("api-turn-search", "post", {**EVERY, "top_k": 100}, True),
    ("api-sessions", "get", {}, True),
    ("api-tool-calls", "get", {}, True),
    ("api-tool-call-summary", "get", {}, True),
    ("api-discovery-findings", "get", {"status": "all"}, True),
    ("api-account-erase", "post", {"dry_run": True}, False),
    ("api-mcp", "post", mcp("tools/call", name="recall", arguments=EVERY), True),
    ("api-mcp", "post", mcp("tools/call", name="search_past_conversations",
                            arguments=EVERY), True),
    ("api-mcp", "post", mcp("initialize", **HELLO), False),
    ("api-mcp", "post", mcp("prompts/get", name="memory-system"), False),
    ("api-mcp", "post", mcp("resources/read", uri="gaia://memory/turn-context?days=30"), False),
    ("api-health", "get", {}, False),
    ("api-schema", "get", {}, False),
    ("api-docs", "get", {}, False),
    ("web-dashboard", "get", {}, False),
    ("web-memory-list", "get", {"forgotten": "on", "superseded": "on"}, True),
    ("web-memory-list", "get", {"q": WORDS}, True),
    ("web-memory-add", "get", {}, False),
    ("web-session-list", "get", {}, True),
    ("web-turn-search", "get", {"q": "private notes about"}, True),
    ("web-tool-calls", "get", {}, True),
    ("web-token-list", "get", {}, False),
    ("web-settings", "get", {}, False),
    ("web-discovery-queue", "get", {}, True),
    ("web-account-erase", "get", {}, False),
    ("web-import", "get", {}, False),
    ("api-webhooks", "get", {}, False),
    ("web-webhooks", "get", {}, False),
    ("api-graph-entities", "get", {}, True),
    ("api-graph-relations", "get", {}, False),
    ("web-graph", "get", {}, True),
    ("web-login", "get", {}, False),
    ("web-signup", "get", {}, False),
    ("web-password-change", "get", {}, False),
]  # fmt: skip
WRITES: list[tuple[str, str, Any]] = [
    ("api-memories", "post", {"content": "Bob adds a fact", "context": "work"}),
    ("api-turns", "post", {"session_id": SHARED_SESSION, "role": "user", "content": "more"}),
    ("api-tool-calls", "post", {"tool_name": "web_search", "session_id": SHARED_SESSION}),
    ("api-memories-extract", "post", {"text": "I moved to Lisbon last year.", "store": True}),
    ("api-memory-forget", "post", {"context": "work"}),
    ("api-discovery-findings", "post", {"findings": [{"scanner": "projects", "content": "Go"}]}),
    ("api-import", "post", None),  # an export whose ids are alice's: see _import_body
    ("web-memory-add", "post", {"content": "Bob types a fact", "category": "fact"}),
    ("web-token-list", "post", {"name": "bob-agent", "expires_in": ""}),
    ("web-settings", "post", {"timezone": "UTC", "memory_enabled": "on", "contexts": "x"}),
    ("web-discovery-consent", "post", {"consent": "on"}),
    ("web-discovery-approve-bulk", "post", {"ids": []}),
    ("web-discovery-reset", "post", {"confirm": "on"}),
    ("api-discovery-reset", "post", {"confirm": True}),
    ("api-discovery-findings-approve", "post", {"ids": []}),
    ("api-account-erase", "post", {"confirm": True}),
    ("web-account-erase", "post", {"username": "bob"}),
    ("web-password-change", "post", {}),
    ("web-logout", "post", {}),
]
_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')


@pytest.fixture
def twins(alice, bob, fake_llm) -> tuple[Twin, Twin]:
    # Any LLM answer is well-formed for every job; none names alice's rows by content.
    fake_llm.then(
        f.answer(
            {"operations": [], "facts": [{"content": "Bob lives in Lisbon"}], "summary": "s",
             "judgements": [], "bullets": ["Bob works on project gaia"]}
        )
    )  # fmt: skip
    return seed_twin(alice), seed_twin(bob)


@pytest.fixture
def bob_clients(bob) -> tuple[APIClient, Client]:
    token, secret = token_create(user=bob, name="sweep")
    token.agent.agent_type = twin_type(bob)
    token.agent.save()
    api = APIClient(HTTP_AUTHORIZATION=f"Bearer {secret}")
    web = Client()
    web.force_login(bob)
    return api, web


def _client(name: str, clients: tuple[APIClient, Client]):
    return clients[0] if name.startswith("api-") else clients[1]


def _send(client, method: str, url: str, data: Any) -> Any:
    if isinstance(client, APIClient):
        if method == "get":
            return client.get(url, data or {})
        # /mcp wants a client that takes JSON and event streams; the API takes it too
        accept = "application/json, text/event-stream"
        return getattr(client, method)(url, data, format="json", HTTP_ACCEPT=accept)
    if method == "get":
        return client.get(url, data or {})
    return getattr(client, method)(url, data or {})


def _text(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode(errors="replace")


def _object_ids(alice: Twin, kind: str) -> list[Any]:
    if kind == "knowledge":
        return [alice.items["marker"].pk, alice.items["forgotten"].pk, alice.items["old"].pk]
    if kind == "session_id":
        return [alice.private_session]
    if kind == "session":
        return [alice.turns[-1].session_id]
    if kind == "turn":
        return [alice.turns[0].pk, alice.turns[-1].pk]
    if kind == "finding":
        return [finding.pk for finding in alice.findings]
    if kind == "import":
        return [alice.import_job.pk]
    if kind == "agent":
        return [alice.token.agent_id]
    if kind == "skill":
        return [alice.skill.pk]
    if kind in ("webhook", "webhook_action"):
        return [alice.endpoint.pk]
    if kind in ("entity", "entity_action"):
        return [alice.entity.pk]
    if kind == "relation":
        return [alice.relation.pk]
    if kind == "version":  # (item, version): her version under her item, and under none
        version = MemoryVersion.objects.for_user(alice.user).first()
        return [(version.item_id, version.pk), (MISSING, version.pk)]
    return [alice.token.pk]


def _kwargs(kind: str, value: Any) -> dict[str, Any]:
    if kind == "version":
        return {"pk": value[0], "version_id": value[1]}
    if kind == "webhook_action":
        return {"pk": value, "action": "pause"}
    if kind == "entity_action":
        return {"pk": value, "action": "merge"}
    return {"session_id" if kind == "session_id" else "pk": value}


def _body(kind: str) -> dict[str, Any]:
    """What a write to one of bob's own objects of this kind would send."""
    if kind in ("knowledge", "finding"):
        return {"content": "bob was here", "category": "fact", "context": "global"}
    if kind == "agent":
        return {"default_context": "bob-was-here", "description": "bob was here"}
    if kind == "webhook":
        return {"url": "http://127.0.0.1:9/bob-was-here", "events": "*"}
    return {}


def _same_answer(theirs, absent, their_id: Any, missing: Any) -> None:
    assert theirs.status_code == absent.status_code, (theirs.status_code, absent.status_code)
    assert theirs.status_code in (404, 405), theirs.status_code
    mine = _CSRF.sub("", _text(theirs)).replace(f"/{their_id}/", "/ID/")
    other = _CSRF.sub("", _text(absent)).replace(f"/{missing}/", "/ID/")
    assert mine == other


def _assert_nothing_of(alice: Twin, text: str, where: str) -> None:
    assert alice.marker not in text, f"{where}: alice's marker"
    assert alice.private_session not in text, f"{where}: alice's session id"
    for pk in alice.ids(KnowledgeItem):
        assert f"/memories/{pk}/" not in text, f"{where}: link to alice's item {pk}"
    for pk in alice.ids(ApiToken):
        assert f"/tokens/{pk}/" not in text, f"{where}: alice's token {pk}"
    for finding in alice.findings:
        assert f"/discovery/{finding.pk}/" not in text, f"{where}: alice's finding"
    for pk in alice.ids(Session):
        assert f"/conversations/{pk}/" not in text, f"{where}: alice's session {pk}"


def _json_rows(text: str) -> list[Any]:
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    try:  # JSON Lines (the export)
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        return []


def _content_ids(value: Any) -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    if isinstance(value, dict):
        if isinstance(value.get("content"), str) and isinstance(value.get("id"), int):
            found.add((value["content"], value["id"]))
        for child in value.values():
            found |= _content_ids(child)
    elif isinstance(value, list):
        for child in value:
            found |= _content_ids(child)
    return found


def _import_body(alice: Twin) -> bytes:
    mine = alice.items["marker"].pk
    records = [
        {"type": "header", "format": "gaia-memory-export", "version": 1},
        {"type": "knowledge", "id": mine, "content": "Imported by bob", "superseded_by": mine + 1},
        {"type": "knowledge", "id": mine + 1, "content": "Imported by bob, corrected"},
        {"type": "turn", "session_id": alice.private_session, "role": "user", "content": "hi",
         "timestamp": "2024-01-01T00:00:00Z"},
    ]  # fmt: skip
    return "".join(json.dumps(r) + "\n" for r in records).encode()


# URLs a person's token never reaches (401/403 for it): an app's own endpoints, staff's
# apps, and mem0's surface, which takes app tokens only. Their app-against-app sweeps
# live beside them; each must name every one of its URLs.
ELSEWHERE = {
    "api-mem0-": ROOT / "tests/mem0api/test_isolation_sweep.py",
    "api-people": ROOT / "tests/accounts/test_people_api.py",
    "api-person-": ROOT / "tests/accounts/test_people_api.py",
    "api-app": ROOT / "tests/accounts/test_people_api.py",
    "api-apps": ROOT / "tests/accounts/test_apps_staff.py",
}


def _swept_elsewhere(name: str) -> bool:
    prefix = max((p for p in ELSEWHERE if name.startswith(p)), key=len, default=None)
    return prefix is not None and f'"{name}"' in ELSEWHERE[prefix].read_text()


def test_the_sweep_covers_every_url_pattern():
    names = {name for name, _ in api_patterns(("api-", "web-"))}
    swept = set(OBJECT_URLS) | {r[0] for r in READS} | {w[0] for w in WRITES}
    unswept = sorted(name for name in names - swept if not _swept_elsewhere(name))
    assert unswept == [], "URL patterns the isolation sweep does not call"
    patterns = api_patterns(("api-", "web-"))
    with_ids = {name for name, pattern in patterns if pattern.pattern.converters}
    assert {name for name in with_ids if not _swept_elsewhere(name)} == set(OBJECT_URLS)


@pytest.mark.cross_user("api-account-erase", "web-account-erase")
def test_bob_never_reaches_alices_rows_through_any_url(twins, bob_clients):
    alice, bob = twins
    before = snapshot(alice.user)
    alice_rows = alice.content_ids()
    assert not alice_rows & bob.content_ids()  # the check below can tell them apart

    # 1. Alice's ids in the path: every method answers like a missing id.
    for name, kind in OBJECT_URLS.items():
        client = _client(name, bob_clients)
        missing = {"session_id": "no-such-session", "version": (MISSING, MISSING)}.get(
            kind, MISSING
        )
        for their_id in _object_ids(alice, kind):
            for method in METHODS:
                body = _body(kind) if method in BODIES.get(name, WEB_WRITES) else None
                theirs = _send(client, method, reverse(name, kwargs=_kwargs(kind, their_id)), body)
                absent = _send(client, method, reverse(name, kwargs=_kwargs(kind, missing)), body)
                _same_answer(theirs, absent, their_id, missing)

    # 2. Alice's ids in a body: rejected like missing ones.
    api, web = bob_clients
    their_item, their_finding = alice.items["marker"].pk, alice.findings[0].pk
    for tool, arguments in (
        ("update_memory", {"content": "pwned"}),
        ("forget", {}),
    ):
        theirs = api.post(reverse("api-tool-call"), {"name": tool, "arguments": {"id": their_item,
                          **arguments}}, format="json").json()  # fmt: skip
        absent = api.post(reverse("api-tool-call"), {"name": tool, "arguments": {"id": MISSING,
                          **arguments}}, format="json").json()  # fmt: skip
        assert theirs["ok"] is False and json.dumps(theirs).replace(str(their_item), "ID") == (
            json.dumps(absent).replace(str(MISSING), "ID")
        )
        theirs, absent = (
            _send(api, "post", reverse("api-mcp"), mcp("tools/call", name=tool,
                  arguments={"id": item_id, **arguments})).json()
            for item_id in (their_item, MISSING)
        )  # fmt: skip
        assert theirs["result"]["isError"] is True
        assert json.dumps(theirs).replace(str(their_item), "ID") == (
            json.dumps(absent).replace(str(MISSING), "ID")
        )
    url = reverse("api-discovery-findings-approve")
    theirs = api.post(url, {"ids": [their_finding]}, format="json")
    absent = api.post(url, {"ids": [MISSING]}, format="json")
    assert theirs.status_code == absent.status_code == 404 and theirs.json() == absent.json()
    url = reverse("web-discovery-approve-bulk")
    assert web.post(url, {"ids": [their_finding]}).status_code == 404
    assert web.post(url, {"ids": [MISSING]}).status_code == 404

    # 3. Everything bob can read: nothing of alice's; his own rows do show.
    for name, method, data, own in READS:
        response = _send(_client(name, bob_clients), method, reverse(name), data)
        assert response.status_code < 400 or name == "web-signup", (name, response.status_code)
        text = _text(response)
        _assert_nothing_of(alice, text, name)
        for row in _json_rows(text):
            assert not _content_ids(row) & alice_rows, f"{name}: alice's row"
        if own:
            assert bob.marker in text, f"{name}: bob's own rows are missing, the check is void"

    # 4. Bob's writes touch only his rows, whatever ids they carry.
    for name, method, data in WRITES:
        client = _client(name, bob_clients)
        if name == "api-import":
            response = client.post(
                reverse(name), _import_body(alice), content_type="application/x-ndjson"
            )
        else:
            response = _send(client, method, reverse(name), data)
        assert response.status_code < 500, (name, response.status_code)
        _assert_nothing_of(alice, _text(response), name)

    assert snapshot(alice.user) == before
