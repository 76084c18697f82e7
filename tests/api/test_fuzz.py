"""Type-confused input on every documented field of every API operation: never a 500.

The operations, fields and a plausible baseline body come from the OpenAPI schema, so
endpoints added later are fuzzed too. Each request changes one field of the baseline to
one bad value; the test client re-raises any server error, and the answer must be a
client error or a success, never a 5xx.
"""

from urllib.parse import urlencode

import pytest
from drf_spectacular.generators import SchemaGenerator

from conversations.services.recording import turn_append
from memory import agent_tools, services
from tests.support import assert_error

pytestmark = pytest.mark.django_db
BAD_VALUES = [
    "",
    "x" * 5000,
    "nul\x00byte",
    "💥",
    -1,
    0,
    10**30,
    1e308,
    True,
    None,
    [],
    [1, "a", None],
    {},
    {"nested": {"deeper": [None]}},
    "2024-13-45T25:61:00",
    "9999-12-31T23:59:59-12:00",
    "0001-01-01T00:00:00+14:00",
    "NaN",
]


def _schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    if "oneOf" in node:
        return _resolve(schema, node["oneOf"][0])
    return node


def _sample(prop: dict):
    if "enum" in prop:
        return prop["enum"][0]
    kind = prop.get("type")
    if prop.get("format") == "date-time":
        return "2026-01-01T09:00:00Z"
    return {
        "integer": 1,
        "number": 0.5,
        "boolean": True,
        "object": {},
        "array": [],
    }.get(kind, "sample words here")


def _operations() -> list[tuple[str, str, dict]]:
    schema = _schema()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            fields = _resolve(schema, body["schema"]).get("properties", {}) if body else {}
            params = {
                p["name"]: p.get("schema", {})
                for p in operation.get("parameters", [])
                if p["in"] == "query"
            }
            for name in fields:
                found.append((method, path, {"body": name, "fields": fields}))
            for name in params:
                found.append((method, path, {"query": name, "fields": params}))
    return found


OPERATIONS = _operations()


@pytest.mark.parametrize(
    ("method", "path", "target"),
    OPERATIONS,
    ids=[f"{m} {p} {t.get('body') or t.get('query')}" for m, p, t in OPERATIONS],
)
def test_no_field_of_any_operation_can_cause_a_server_error(alice, alice_api, method, path, target):
    item = services.memory_create(user=alice, content="Fuzz target item")
    turn_append(user=alice, session_id="s1", role="user", content="fuzz turn")
    url = path.replace("{id}", str(item.pk)).replace("{session_id}", "s1")
    fields = target["fields"]
    for bad in BAD_VALUES:
        if "body" in target:
            body = {
                name: _sample(prop)
                for name, prop in fields.items()
                if prop.get("readOnly") is not True
            }
            body[target["body"]] = bad
            response = getattr(alice_api, method)(url, body, format="json")
        else:
            if isinstance(bad, (list, dict)) or bad is None:
                continue
            query = urlencode({target["query"]: str(bad)})
            response = getattr(alice_api, method)(f"{url}?{query}")
        assert response.status_code < 500 or _is_llm_unavailable(response), (
            bad,
            response.content,
        )
        if response.status_code >= 400 and response.status_code != 404:
            assert_error(response, response.status_code)


@pytest.mark.parametrize(
    "tool", agent_tools.TOOLS, ids=[t["function"]["name"] for t in agent_tools.TOOLS]
)
def test_no_tool_argument_can_cause_an_exception(alice, tool):
    item = services.memory_create(user=alice, content="Fuzz target item")
    parameters = tool["function"]["parameters"]["properties"]
    name = tool["function"]["name"]
    for field in parameters:
        for bad in BAD_VALUES:
            arguments = {"id": item.pk, "content": "c", "query": "q", field: bad}
            arguments = {k: v for k, v in arguments.items() if k in parameters}
            result = agent_tools.tool_call(user=alice, name=name, arguments=arguments)
            assert result["ok"] in (True, False)
            if not result["ok"]:
                assert result["error"]["message"]


def _is_llm_unavailable(response) -> bool:
    """Valid input to an LLM endpoint on a server with no LLM: a documented 503."""
    return response.status_code == 503 and response.json()["error"]["code"] in {
        "llm_not_configured",
        "llm_unavailable",
    }
