"""Property-based fuzzing of every write endpoint of the API (hypothesis).

Each example sends one write with arbitrary Unicode (lone surrogates, NUL, line
separators, FTS syntax), deep nesting, huge numbers and wrong types in any field, or a
body that is not JSON at all. Whatever was sent: the answer is never a 5xx, and the
account still works afterwards: its lists, its search and its export answer 200, and
the export streams to its end with one JSON object a line. The operations come from the
OpenAPI schema, so endpoints added later are fuzzed too.
"""

import json
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.services import user_settings_update
from conversations.services.recording import tool_call_record, turn_append
from discovery.models import Finding
from memory import services
from tests.api.test_fuzz import _is_llm_unavailable, _resolve, _sample

pytestmark = pytest.mark.django_db
WRITES = {"post", "put", "patch", "delete"}
TRICKY = ["\ud800", "\udfff", "\x00", "\u2028", "/", "..", '"', "AND (", "*", "NEAR", "now",
          "0001-01-01T00:00Z", "9999-12-31T23:59:59-12:00", "3000y", "12h", "fact", "user",
          "sk-proj-abcdefghijklmnopqrstuvwx0123"]  # fmt: skip


def _write_operations() -> list[tuple[str, str, dict]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in WRITES:
                continue
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            fields = _resolve(schema, body["schema"]).get("properties", {}) if body else {}
            sample = {n: _sample(p) for n, p in fields.items() if p.get("readOnly") is not True}
            found.append((method, path, sample))
    return found


OPERATIONS = _write_operations()
IMPORT = ("post", "/api/v1/import/")

FIELDS = ["content", "category", "context", "entity", "metadata", "due_at", "created_at",
          "session_id", "role", "timestamp", "args", "tool_name", "id", "superseded_by",
          "source", "confidence", "status", "scanner", "findings", "ids", "confirm"]  # fmt: skip
characters = st.one_of(
    st.characters(), st.characters(categories=["Cs"]), st.sampled_from(["\x00", "\u2028", "\n"])
)
text = st.one_of(st.text(characters, max_size=30), st.sampled_from(TRICKY))
scalars = st.one_of(
    text,
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)
keys = st.one_of(text, st.sampled_from(FIELDS))
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
deep = st.integers(min_value=20, max_value=400).map(lambda n: {"k": json.loads("[" * n + "]" * n)})


@st.composite
def bodies(draw, sample: dict, raw: bool = True) -> Any:
    """Raw request body: the operation's own fields, some of them replaced by anything
    (maybe an extra one), or any JSON value, or bytes that are not JSON or not UTF-8.
    With `raw` False, only the fields (an object)."""
    kinds = ["fields", "fields", "fields", "value", "deep", "bytes"] if raw else ["fields"]
    kind = draw(st.sampled_from(kinds))
    if kind == "bytes":
        return draw(st.binary(max_size=40))
    if kind == "value":
        body = draw(values)
    elif kind == "deep":
        body = {**sample, **draw(deep)}
    else:
        body = {}
        for name, good in sample.items():
            choice = draw(st.sampled_from(["good", "good", "bad", "left out"]))
            if choice != "left out":
                body[name] = good if choice == "good" else draw(values)
        if draw(st.booleans()) and draw(st.booleans()):
            body[draw(keys)] = draw(values)
        if not raw:
            return body
        if draw(st.booleans()):
            body = [body, body]  # a batch, where the endpoint takes one
    # json.dumps writes a lone surrogate as its escape ("\ud800"), as a client would.
    return json.dumps(body).encode()


RECORDS = {  # a valid record of each kind of line the export writes
    "knowledge": {"id": 1, "content": "Likes tea", "category": "fact", "context": "global",
                  "source": "user", "confidence": 0.9, "created_at": "2024-01-01T00:00:00Z",
                  "metadata": {}, "superseded_by": None},
    "session": {"session_id": "s9", "context": "global", "summary": ""},
    "turn": {"id": 1, "session_id": "s9", "role": "user", "content": "hello",
             "timestamp": "2024-01-01T00:00:00Z"},
    "tool_call": {"tool_name": "search", "args": {}, "success": True,
                  "timestamp": "2024-01-01T00:00:00Z"},
}  # fmt: skip


@st.composite
def import_bodies(draw) -> bytes:
    """A header, then records shaped like the export's with some fields replaced by
    anything, maybe a line that is not JSON."""
    lines = [json.dumps({"type": "header", "format": "gaia-memory-export", "version": 1})]
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        kind = draw(st.sampled_from([*RECORDS, "unknown"]))
        record = {"type": kind, **draw(bodies(RECORDS.get(kind, {}), raw=False))}
        lines.append(json.dumps(record))
    if draw(st.booleans()) and draw(st.booleans()):
        lines.append(draw(st.text(characters, max_size=20)))
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def _account_still_works(api) -> None:
    for url in (
        "/api/v1/memories/?include_forgotten=true&include_superseded=true",
        "/api/v1/tool-calls/",
        "/api/v1/conversations/sessions/",
        "/api/v1/stats/",
        "/api/v1/prompt/system/",
        "/api/v1/prompt/context/",
    ):
        assert api.get(url).status_code == 200, url  # fmt: skip
    for url, body in (
        ("/api/v1/memories/search/", {"query": "tea"}),
        ("/api/v1/conversations/search/", {"query": "tea"}),
    ):
        assert api.post(url, body, format="json").status_code == 200, url  # fmt: skip
    export = api.get("/api/v1/export/")
    assert export.status_code == 200
    lines = b"".join(export.streaming_content).decode("utf-8").splitlines()
    assert lines and all(isinstance(json.loads(line), dict) for line in lines)


@pytest.fixture
def account(alice, alice_api) -> dict:
    """Alice with one row of everything, so every path id names something of hers."""
    user_settings_update(user=alice, discovery_consent=True)
    item = services.memory_create(user=alice, content="Alice drinks green tea")
    turn_append(user=alice, session_id="s1", role="user", content="I drink tea every day")
    tool_call_record(user=alice, tool_name="search", session_id="s1", args={"q": "tea"})
    finding = Finding.objects.create(owner=alice, content="Uses vim", scanner="apps",
                                     fingerprint="f", confidence=0.4)  # fmt: skip
    return {"api": alice_api, "item": item.pk, "finding": finding.pk}


def _url(path: str, account: dict) -> str:
    pk = account["finding"] if path.startswith("/api/v1/discovery/") else account["item"]
    return path.replace("{id}", str(pk)).replace("{session_id}", "s1")


FUZZ = settings(
    max_examples=60,
    deadline=None,
    database=None,  # nothing written into the checkout
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # one account takes every example, on purpose
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


@FUZZ
@given(data=st.data())
def test_no_write_can_break_the_account(account, data):
    api = account["api"]
    method, path, sample = data.draw(
        st.sampled_from([op for op in OPERATIONS if op[:2] != IMPORT]), label="operation"
    )
    body = data.draw(bodies(sample), label="body")

    response = api.generic(method.upper(), _url(path, account), body,
                           content_type="application/json")  # fmt: skip

    assert response.status_code < 500 or _is_llm_unavailable(response), response.content
    _account_still_works(api)


@FUZZ
@given(body=import_bodies())
def test_no_import_can_break_the_account(account, body):
    api = account["api"]

    response = api.generic("POST", "/api/v1/import/", body, content_type="application/x-ndjson")

    assert response.status_code < 500, response.content
    _account_still_works(api)
