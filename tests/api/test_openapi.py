"""The OpenAPI schema is worth generating a client from: meaningful operation ids, every
parameter and body field described, real examples, no internal notes, one name per schema."""

import json
import re

import pytest
from drf_spectacular.generators import SchemaGenerator

from core.api import serializers as core_serializers

DEFAULT_SUFFIXES = ("_create", "_retrieve", "_partial_update", "_destroy", "_list_2")
NAMED = {  # what a client generator makes of the main operations
    ("post", "/api/v1/memories/"): "memories_remember",
    ("post", "/api/v1/memories/search/"): "memories_recall",
    ("patch", "/api/v1/memories/{id}/"): "memories_update",
    ("delete", "/api/v1/memories/{id}/"): "memories_forget",
    ("post", "/api/v1/conversations/turns/"): "turns_log",
    ("post", "/api/v1/conversations/search/"): "conversations_search",
    ("post", "/api/v1/tool-calls/"): "tool_calls_log",
    ("get", "/api/v1/prompt/system/"): "prompt_system",
    ("get", "/api/v1/prompt/context/"): "prompt_context",
    ("get", "/api/v1/tools/"): "tools_list",
    ("post", "/api/v1/tools/call/"): "tools_call",
}
WITH_EXAMPLES = [
    ("post", "/api/v1/memories/"),
    ("post", "/api/v1/memories/search/"),
    ("patch", "/api/v1/memories/{id}/"),
    ("post", "/api/v1/memories/forget/"),
    ("post", "/api/v1/memories/extract/"),
    ("post", "/api/v1/conversations/turns/"),
    ("post", "/api/v1/conversations/search/"),
    ("post", "/api/v1/tool-calls/"),
    ("post", "/api/v1/tools/call/"),
]


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(schema: dict):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            yield method, path, operation


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _body_objects(schema: dict, operation: dict):
    """Every object schema a request body may be (one item, a list of them, or either)."""
    for media in operation.get("requestBody", {}).get("content", {}).values():
        todo = [media["schema"]]
        while todo:
            node = _resolve(schema, todo.pop())
            todo.extend(node.get("oneOf", []))
            if node.get("type") == "array":
                todo.append(node["items"])
            if "properties" in node:
                yield node


def test_every_operation_has_a_meaningful_unique_operation_id(schema):
    ids = {}
    for method, path, operation in _operations(schema):
        op_id = operation["operationId"]
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", op_id), (method, path, op_id)
        assert not op_id.endswith(DEFAULT_SUFFIXES), (method, path, op_id)
        assert op_id not in ids, (op_id, ids.get(op_id), path)
        ids[op_id] = path
    for (method, path), op_id in NAMED.items():
        assert schema["paths"][path][method]["operationId"] == op_id


def test_every_operation_is_tagged_with_what_it_is_about(schema):
    for method, path, operation in _operations(schema):
        assert operation.get("tags") and operation["tags"] != ["api"], (method, path)


def test_every_parameter_and_body_field_is_described(schema):
    missing = []
    for method, path, operation in _operations(schema):
        for parameter in operation.get("parameters", []):
            if not parameter.get("description"):
                missing.append(f"{method} {path} ?{parameter['name']}")
        for body in _body_objects(schema, operation):
            for name, field in body["properties"].items():
                if not (field.get("description") or _resolve(schema, field).get("description")):
                    missing.append(f"{method} {path} .{name}")
    assert not missing, "\n".join(missing)


def test_the_main_operations_show_real_request_examples(schema):
    for method, path in WITH_EXAMPLES:
        operation = schema["paths"][path][method]
        examples = operation["requestBody"]["content"]["application/json"].get("examples", {})
        assert examples, (method, path)
        for example in examples.values():
            value = example["value"]
            assert value and "string" not in json.dumps(value), (method, path, value)


def test_no_developer_note_reaches_the_public_schema(schema):
    text = json.dumps(schema)
    notes = [
        cls.__doc__.split("\n")[0].strip()
        for cls in vars(core_serializers).values()
        if isinstance(cls, type) and cls.__module__ == core_serializers.__name__ and cls.__doc__
    ]
    assert notes  # the check reads real docstrings
    for note in notes:
        assert note[:40] not in text, note
    for name, component in schema["components"]["schemas"].items():
        assert "description" not in component or component["description"], name
    assert "mass assignment" not in text.lower()


def test_one_name_per_schema(schema):
    names = list(schema["components"]["schemas"])
    for name in names:
        assert not re.search(r"(Request){2}|Body|In$|Out$|Enum\d", name), name
        assert name not in {"BlankEnum", "NullEnum"}, name
    shapes: dict[str, str] = {}
    for name, component in schema["components"]["schemas"].items():
        shape = json.dumps(component, sort_keys=True)
        assert shape not in shapes, (name, shapes.get(shape))
        shapes[shape] = name


@pytest.mark.parametrize(
    ("url", "operation"),
    [("/api/v1/webhooks/", "webhooks_list"), ("/api/v1/graph/entities/", "graph_entities_list")],
)
def test_a_page_past_the_end_is_a_404_and_the_schema_says_so(alice_api, url, operation):
    assert alice_api.get(url).status_code == 200
    assert alice_api.get(url, {"page": 99}).status_code == 404
    schema = alice_api.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    [listed] = [
        o for path in schema["paths"].values() for o in path.values()
        if isinstance(o, dict) and o.get("operationId") == operation
    ]  # fmt: skip
    assert "404" in listed["responses"]
