"""Schemathesis against the OpenAPI schema (/api/v1/schema/), in-process.

Every phase (schema examples, coverage of boundary values, random fuzzing, stateful
sequences with links inferred from the responses) runs against the live test server on
127.0.0.1 (pytest-django's live_server, this process), as alice with her Bearer token and
bob as a peer (object-level authorization: alice's objects must not reach bob). Checks:
no server error, ignored authentication, use after free, resource availability,
object-level authorization. The number of examples per operation is bounded
(GAIA_SCHEMATHESIS_EXAMPLES, default 8).

The phases run as two tests, so a parallel run spreads them over two processes: coverage
(the longest phase) alone, and examples, fuzzing and stateful together (the stateful phase
infers its links from the responses the phases before it saw in the same run).

The live server, not the WSGI app: schemathesis 4.32's WSGI transport fails its own
ignored_auth probes (it forwards `max_redirects` to werkzeug).
"""

import json
import os
from pathlib import Path

import pytest
import schemathesis
from schemathesis.engine import events, from_schema

from accounts.services import token_create
from core.api.conventions import TokenRateThrottle
from tests.learning import fake_llm as f
from tests.security.twins import seed_twin

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES = int(os.environ.get("GAIA_SCHEMATHESIS_EXAMPLES", "8"))
# The import takes JSON Lines as text; schemathesis sends generated strings as they are.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
CHECKS = (
    "not_a_server_error",
    "ignored_auth",
    "use_after_free",
    "ensure_resource_availability",
    "object_level_authorization",
)
PHASES = ("examples", "coverage", "fuzzing", "stateful")
PARTS = {"coverage": {"coverage"}, "examples-fuzzing-stateful": {"examples", "fuzzing", "stateful"}}


def _config(
    tmp_path: Path, alice_secret: str, bob_secret: str, phases: set[str]
) -> schemathesis.Config:
    users = {"auth": [
        {"name": name, "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {secret}"}]}
        for name, secret in (("alice", alice_secret), ("bob", bob_secret))
    ]}  # fmt: skip
    (tmp_path / "users.json").write_text(json.dumps(users))
    return schemathesis.Config.from_dict(
        {
            "seed": 20261121,
            "cache": {"enabled": False},
            "workers": 1,
            # Django's test server answers a kept-alive connection ~40 ms late (delayed
            # ACK): a fresh connection per request is four times faster here.
            "headers": {"Connection": "close"},
            "generation": {"max-examples": EXAMPLES, "database": "none"},
            "phases": {
                **{name: {"enabled": name in phases} for name in PHASES},
                "stateful": {
                    "enabled": "stateful" in phases,
                    "generation": {"max-examples": 4 * EXAMPLES},
                },
            },
            "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS}},
            "auth": {
                "wfc": {
                    "path": str(tmp_path / "users.json"),
                    "user": "alice",
                    "peers": ["alice", "bob"],
                }
            },  # fmt: skip
        }
    )


def _failures(schema) -> tuple[list[str], int]:
    """Distinct failures (check, operation, title, reproduction) and the cases run."""
    found: dict[tuple, str] = {}
    cases = 0
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            cases += len(event.recorder.cases)
            for nodes in event.recorder.checks.values():
                for node in nodes:
                    if node.failure_info is None:
                        continue
                    failure = node.failure_info.failure
                    key = (node.name, event.recorder.label, failure.title)
                    found.setdefault(key, f"{key}\n{failure.message}\n"
                                          f"{node.failure_info.code_sample}")  # fmt: skip
        elif isinstance(event, (events.NonFatalError, events.FatalError)):
            error = getattr(event, "value", None) or getattr(event, "exception", None)
            found.setdefault(("error", repr(error)), f"engine error: {error!r}")
    return list(found.values()), cases


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS)
def test_the_api_holds_under_schemathesis(
    part, live_server, fake_llm, alice, bob, tmp_path, monkeypatch
):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"token": "1000000/min"})
    fake_llm.then(  # any LLM job gets a well-formed answer
        f.answer({"operations": [], "facts": [{"content": "A fact"}], "summary": "s",
                  "judgements": [], "bullets": ["b"]})
    )  # fmt: skip
    seed_twin(alice), seed_twin(bob)
    _, alice_secret = token_create(user=alice, name="schemathesis")
    _, bob_secret = token_create(user=bob, name="schemathesis")
    schema = schemathesis.openapi.from_url(
        f"{live_server.url}/api/v1/schema/",
        config=_config(tmp_path, alice_secret, bob_secret, PARTS[part]),
    )

    failures, cases = _failures(schema)

    assert cases > 100  # it did run
    assert failures == [], "\n\n".join(failures)
