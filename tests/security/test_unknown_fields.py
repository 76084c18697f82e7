"""Every write operation of the API refuses a body field it does not know (400 naming
it), operations that take no body included: a typo or an attacker's extra field is never
silently dropped or taken."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts.services import user_settings_update
from conversations.services.recording import turn_append
from discovery.models import Finding
from graph.services import entity_create, relation_add
from memory import services
from memory.models import MemoryVersion
from tests.accounts.callers import rightful_caller
from tests.api.test_fuzz import _resolve, _sample
from tests.support import assert_error
from webhooks.services import endpoint_create

pytestmark = pytest.mark.django_db
WRITES = {"post", "put", "patch", "delete"}


def _write_operations() -> list[tuple[str, str, dict]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in WRITES or path.endswith("/import/"):
                continue  # the import takes JSON Lines, one record per line (its own tests)
            content = operation.get("requestBody", {}).get("content", {})
            body = content.get("application/json")
            fields = _resolve(schema, body["schema"]).get("properties", {}) if body else {}
            sample = {n: _sample(p) for n, p in fields.items() if p.get("readOnly") is not True}
            found.append((method, path, sample))
    return found


OPERATIONS = _write_operations()


@pytest.mark.parametrize(
    ("method", "path", "sample"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS]
)
def test_every_write_operation_refuses_an_unknown_field(alice, alice_api, method, path, sample):
    user_settings_update(user=alice, discovery_consent=True)
    item = services.memory_create(user=alice, content="The target of the request")
    turn_append(user=alice, session_id="s1", role="user", content="a turn")
    finding = Finding.objects.create(owner=alice, content="Uses vim", scanner="apps",
                                     fingerprint="f", confidence=0.4)  # fmt: skip
    services.memory_update(user=alice, item_id=item.pk, content="The earlier target")
    version = MemoryVersion.objects.get(item=item)
    pk = finding.pk if path.startswith("/api/v1/discovery/") else item.pk
    if path.startswith("/api/v1/webhooks/"):
        pk = endpoint_create(user=alice, url="https://hooks.invalid/hook", events="*")[0].pk
    if path.startswith("/api/v1/graph/"):
        rui = entity_create(user=alice, name="Rui", kind="person")
        firm = entity_create(user=alice, name="Atelier Sul", kind="organisation")
        relation = relation_add(user=alice, subject=rui, type="works_at", object=firm)
        pk = relation.pk if path.startswith("/api/v1/graph/relations/") else rui.pk
    url = path.replace("{id}", str(pk)).replace("{session_id}", "s1")
    url = url.replace("{version_id}", str(version.pk))

    client, url = rightful_caller(path, alice) or (alice_api, url)
    response = getattr(client, method)(url, {**sample, "zz_unknown": 1}, format="json")

    error = assert_error(response, 400)
    assert "zz_unknown" in error.get("fields", {}), error
