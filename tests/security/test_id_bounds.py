"""Ids no row can have (0, negatives, 2^63 and beyond, a hundred digits) are a 404 in a URL
and a 400 in a body or a tool's arguments, never a 500, on every backend: PostgreSQL
raises on a bigint overflow and SQLite's driver on an integer it cannot bind.

The URLs, bodies and tool arguments come from the URL table, the OpenAPI schema and the
tools' schemas, so one added later is covered without a change here; the guards below
fail when an id reaches Django's plain `<int:...>` or a body or tool takes an unbounded
integer.
"""

from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve
from django.urls.converters import IntConverter

from accounts.services import user_settings_update
from core.ids import MAX_ID, IdConverter
from graph import services as graph_services
from memory import agent_tools
from tests.accounts.callers import rightful_caller
from tests.api.test_fuzz import _resolve, _sample, _schema
from tests.support import assert_error

pytestmark = pytest.mark.django_db
NO_ROW = [0, -1, 2**63, 2**64, 10**30, int("9" * 100)]
METHODS = ["get", "post", "put", "patch", "delete"]
# Bodies that are valid apart from the id under test (a field's sample otherwise).
VALID = {"content": "Rui plays the cello", "subject": "me", "type": "knows", "object": "Rui",
         "name": "Rui", "query": "cello"}  # fmt: skip


def _routes(patterns: list, prefix: str = "", converters: dict | None = None) -> Iterator:
    """(route, its converters) of every URL pattern, Django's admin left to Django."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        found = {**(converters or {}), **pattern.pattern.converters}
        if isinstance(pattern, URLResolver):
            if route != "admin/":
                yield from _routes(pattern.url_patterns, route, found)
        elif isinstance(pattern, URLPattern) and found:
            yield route, found


ROUTES = list(_routes(get_resolver().url_patterns))
ID_ROUTES = [r for r, found in ROUTES if any(isinstance(c, IdConverter) for c in found.values())]


def _filled(route: str, converters: dict, bad: object, word: str) -> str:
    """`route` with every id `bad` and every other part `word`."""
    path = route
    for name, converter in converters.items():
        kind = next(k for k in ("id", "int", "str", "path") if f"<{k}:{name}>" in route)
        value = bad if isinstance(converter, (IdConverter, IntConverter)) else word
        path = path.replace(f"<{kind}:{name}>", str(value))
    return "/" + path


def test_every_id_in_a_url_is_read_by_the_id_converter():
    plain = [r for r, found in ROUTES if any(type(c) is IntConverter for c in found.values())]
    assert plain == [], "use <id:...> (core.ids.IdConverter) for a row id in a URL"
    assert len(ID_ROUTES) >= 40  # the sweep below is not empty


@pytest.fixture
def web(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


@pytest.mark.parametrize("route", ID_ROUTES)
def test_an_id_no_row_can_have_in_a_url_is_a_404(alice, alice_api, web, route):
    converters = dict(ROUTES)[route]
    client, word = (alice_api, "x") if route.startswith("api/") else (web, "alias")
    rightful = rightful_caller(f"/{route}", alice)  # an app's own paths take its token
    if rightful is not None:
        client, word = rightful[0], "guard-person"
    for bad in NO_ROW:
        url = _filled(route, converters, bad, word)
        try:
            other = resolve(url).route  # a path part that takes slashes may take it all
        except Resolver404:
            other = None
        assert other != route, f"{url} reached {route}'s view"
        for method in METHODS:
            response = getattr(client, method)(url)  # a server error is raised here
            if other is None:
                assert response.status_code == 404, (method, url, response.status_code)
                if route.startswith("api/"):
                    assert_error(response, 404, "not_found")


def _id_fields(schema: dict) -> Iterator[tuple[str, str, str, dict]]:
    """(method, path, field, body properties) of every integer a request body takes."""
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            properties = _resolve(schema, body["schema"]).get("properties", {}) if body else {}
            for name, prop in properties.items():
                if not prop.get("readOnly") and _integers(schema, prop):
                    yield method, path, name, properties


def _integers(schema: dict, prop: dict) -> list[dict]:
    """The integer schemas a property takes: itself, its items, or one of its options."""
    prop = _resolve(schema, prop) if "$ref" in prop else prop
    options = prop.get("oneOf") or prop.get("anyOf") or [prop]
    found = []
    for option in options:
        option = _resolve(schema, option)
        item = _resolve(schema, option.get("items", {})) if option.get("type") == "array" else {}
        found += [o for o in (option, item) if o.get("type") == "integer"]
    return found


SCHEMA = _schema()
BODY_INTEGERS = list(_id_fields(SCHEMA))
BODY_IDS = [f for f in BODY_INTEGERS if _integers(SCHEMA, f[3][f[2]])[0].get("maximum") == MAX_ID]


def test_every_integer_a_body_takes_is_bounded():
    unbounded = [
        (method, path, name)
        for method, path, name, properties in BODY_INTEGERS
        if any(
            i.get("maximum") is None or i.get("minimum") is None
            for i in _integers(SCHEMA, properties[name])
        )
    ]
    assert unbounded == [], "a row id in a body is core.api.serializers.IdField"
    assert len(BODY_IDS) >= 8


def _target(alice, path: str) -> str:
    """`path` with its `{id}` an existing row of alice's it names."""
    if "{id}" not in path:
        return path
    assert path.startswith("/api/v1/graph/entities/"), f"no row to stand for {path}'s id"
    entity = graph_services.entity_create(user=alice, name="Atelier Norte")
    return path.replace("{id}", str(entity.pk))


@pytest.mark.parametrize(("method", "path", "field", "properties"), BODY_IDS,
                         ids=[f"{m} {p} {f}" for m, p, f, _ in BODY_IDS])  # fmt: skip
def test_an_id_no_row_can_have_in_a_body_is_a_400(
    alice, alice_api, method, path, field, properties
):
    user_settings_update(user=alice, discovery_consent=True)  # discovery's paths need it
    url = _target(alice, path)
    baseline = {
        name: VALID.get(name, _sample(_resolve(SCHEMA, prop)))
        for name, prop in properties.items()
        if not prop.get("readOnly") and name in _required(path, method)
    }
    many = _resolve(SCHEMA, properties[field]).get("type") == "array"
    for bad in NO_ROW:
        body = {**baseline, field: [bad] if many else bad}
        response = getattr(alice_api, method)(url, body, format="json")
        error = assert_error(response, 400)
        assert any(key.split(".")[0] == field for key in error.get("fields", {})), error


def _required(path: str, method: str) -> set[str]:
    operation = SCHEMA["paths"][path][method]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    return set(_resolve(SCHEMA, body).get("required", []))


def _tool_integers() -> Iterator[tuple[str, str, dict, list[str]]]:
    """(tool, argument, its schema, the tool's required arguments) of every integer a
    tool takes."""
    for tool in agent_tools.TOOLS:
        function = tool["function"]
        parameters = function["parameters"]
        for name, prop in parameters.get("properties", {}).items():
            kinds = prop.get("type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if "integer" in kinds or prop.get("items", {}).get("type") == "integer":
                yield function["name"], name, prop, parameters.get("required", [])


TOOL_INTEGERS = list(_tool_integers())
TOOL_IDS = [t for t in TOOL_INTEGERS if t[2].get("maximum") == MAX_ID]


def test_every_integer_a_tool_takes_is_bounded():
    unbounded = [
        (tool, name)
        for tool, name, prop, _ in TOOL_INTEGERS
        if "minimum" not in prop.get("items", prop) or "maximum" not in prop.get("items", prop)
    ]
    assert unbounded == [], "say a tool's id argument is 1 to MAX_ID in its schema"
    assert len(TOOL_IDS) >= 5


@pytest.mark.parametrize(("tool", "argument", "prop", "required"), TOOL_IDS,
                         ids=[f"{t} {a}" for t, a, _, _ in TOOL_IDS])  # fmt: skip
def test_an_id_no_row_can_have_in_a_tools_arguments_is_refused_by_name(
    alice, tool, argument, prop, required
):
    base = {"content": "Rui plays the cello", "query": "cello", "subject": "me",
            "type": "knows", "object": "Rui", "id": 1}  # fmt: skip
    arguments = {k: v for k, v in base.items() if k in required}
    many = prop.get("type") == "array"
    for bad in NO_ROW:
        result = agent_tools.tool_call(
            user=alice, name=tool, arguments={**arguments, argument: [bad] if many else bad}
        )
        assert result["ok"] is False, result
        assert result["error"]["code"] == "invalid_arguments", result
        assert any(key.split(".")[0] == argument for key in result["error"]["fields"]), result


@pytest.mark.parametrize("bad", [str(b) for b in NO_ROW] + ["x", ""])
def test_an_id_no_row_can_have_in_a_web_form_is_refused_without_a_query(alice, web, bad):
    user_settings_update(user=alice, discovery_consent=True)
    rui = graph_services.entity_create(user=alice, name="Rui")
    me = graph_services.entity_holder(user=alice)
    relation = graph_services.relation_add(user=alice, subject=me, type="knows", object=rui)
    merged = web.post(f"/graph/entities/{rui.pk}/merge/", {"other": bad}, follow=True)
    assert merged.status_code == 200 and b"Choose the entity to merge in." in merged.content
    ended = web.post(f"/graph/relations/{relation.pk}/end/", {"entity": bad})
    assert ended.status_code == 302 and ended["Location"] == "/graph/"
    approved = web.post("/discovery/approve/", {"ids": [bad]}, follow=True)
    assert approved.status_code == 200 and b"Approved" not in approved.content


def test_list_memories_pages_stay_a_number_every_backend_holds(alice):
    last = agent_tools.tool_call(user=alice, name="list_memories", arguments={"page": 1_000_000})
    assert last["ok"] and last["result"]["results"] == []
    beyond = agent_tools.tool_call(user=alice, name="list_memories", arguments={"page": MAX_ID})
    assert beyond["error"]["code"] == "invalid_arguments" and "page" in beyond["error"]["fields"]
