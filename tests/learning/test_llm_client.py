"""The OpenAI-compatible client against a real local server: answers and every fault."""

import pytest

from learning import llm
from learning.llm import LLMError, get_llm
from learning.llm.counters import llm_counts
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
SCHEMA = {
    "type": "object",
    "required": ["facts"],
    "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
}


def ask(user=None):
    return get_llm().complete_json(
        system="sys", prompt="hello", schema=SCHEMA, user=user, purpose="test"
    )


def failure(user=None) -> LLMError:
    with pytest.raises(LLMError) as caught:
        ask(user)
    return caught.value


def test_it_returns_the_validated_answer_and_counts_the_call(fake_llm, alice):
    fake_llm.then(f.answer({"facts": ["User lives in Lisbon"]}))
    assert ask(alice) == {"facts": ["User lives in Lisbon"]}
    sent = fake_llm.requests[0]
    assert sent["model"] == "fake-model"
    assert sent["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert llm_counts(user=alice)["calls_ok"] == 1
    assert llm_counts(user=alice)["failures_total"] == 0


def test_it_tolerates_code_fences_and_prose_around_the_json(fake_llm):
    fake_llm.then(f.content('Sure!\n```json\n{"facts": ["a"]}\n```'))
    assert ask() == {"facts": ["a"]}
    fake_llm.then(f.content('Here you go: {"facts": ["b"]} hope it helps'))
    assert ask() == {"facts": ["b"]}


def test_it_drops_json_mode_when_the_server_rejects_it(fake_llm):
    fake_llm.then(
        f.status(400, b'{"error": "response_format not supported"}'), f.answer({"facts": []})
    )
    assert ask() == {"facts": []}
    assert "response_format" in fake_llm.requests[0]
    assert "response_format" not in fake_llm.requests[1]
    ask()
    assert "response_format" not in fake_llm.requests[2]


def test_a_refused_connection_is_retried_then_counted(refused_url, llm_settings, alice):
    llm_settings.GAIA_LLM_URL = refused_url
    error = failure(alice)
    assert error.kind == "connect" and error.transient
    assert llm_counts(user=alice)["failures"] == {"connect": 1}


def test_a_server_that_never_answers_ends_at_the_deadline(fake_llm, alice):
    fake_llm.then(f.silent(10))
    assert failure(alice).kind == "timeout"
    assert len(fake_llm.requests) == 1  # the deadline covers the whole call: no retry
    assert llm_counts(user=alice)["failures"] == {"timeout": 1}


def test_a_drip_fed_answer_ends_at_the_overall_deadline(fake_llm):
    # A valid answer, one byte every 0.25 s (status line included): every single read
    # is quick, so only an overall deadline stops it; otherwise the call would succeed.
    fake_llm.then(f.drip({"facts": ["slow"]}, interval=0.25))
    assert failure().kind == "timeout"


def test_429_is_retried_after_the_retry_after_delay(fake_llm):
    fake_llm.then(f.status(429, headers={"Retry-After": "0.05"}), f.answer({"facts": ["x"]}))
    assert ask() == {"facts": ["x"]}
    assert len(fake_llm.requests) == 2


def test_429_for_ever_ends_as_rate_limited_after_bounded_attempts(fake_llm, alice):
    fake_llm.then(f.status(429, headers={"Retry-After": "3600"}))
    assert failure(alice).kind == "rate_limited"
    assert len(fake_llm.requests) == 3  # 1 + GAIA_LLM_RETRIES, each wait bounded
    assert llm_counts(user=alice)["failures"] == {"rate_limited": 1}


def test_500_is_retried_with_backoff(fake_llm):
    fake_llm.then(f.status(500), f.status(503), f.answer({"facts": []}))
    assert ask() == {"facts": []}
    fake_llm.then(f.status(500))
    assert failure().kind == "server_error"


@pytest.mark.parametrize(
    "step, kind, requests",
    [
        (f.raw_200(b"<html>Bad gateway</html>"), "bad_response", 1),
        (f.content("I think the user likes tea."), "invalid_json", 2),
        (f.answer({"facts": "not a list"}), "schema", 2),
        (f.answer({"memories": []}), "schema", 2),
        (f.content('{"facts": ["User lives in Lis', finish_reason="length"), "invalid_json", 2),
        (f.raw_200(b"x" * 200_000), "too_large", 1),
        (f.raw_200(b"x" * 200_000, length=False), "too_large", 1),
        (f.status(401), "http_error", 1),
    ],
    ids=[
        "non-json",
        "prose",
        "wrong-type",
        "wrong-key",
        "truncated",
        "huge",
        "huge-unsized",
        "unauthorised",
    ],
)
def test_unusable_answers_get_at_most_one_repair_request_and_are_counted_by_kind(
    fake_llm, alice, step, kind, requests
):
    fake_llm.then(step)
    error = failure(alice)
    assert error.kind == kind and not error.transient
    assert len(fake_llm.requests) == requests  # a usable exchange with a bad text: one repair
    assert llm_counts(user=alice)["failures"] == {kind: 1}


def test_a_repair_request_says_what_was_wrong_and_its_answer_is_used(fake_llm, alice):
    fake_llm.then(f.content("Sure! The user likes tea."), f.answer({"facts": ["tea"]}))
    assert ask(alice) == {"facts": ["tea"]}
    repair = fake_llm.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert repair[2]["content"] == "Sure! The user likes tea."
    assert "not valid JSON" in repair[3]["content"] and "answer not JSON" in repair[3]["content"]
    assert llm_counts(user=alice)["calls_ok"] == 1 and llm_counts(user=alice)["failures"] == {}


def test_a_cut_off_answer_is_asked_again_shorter(fake_llm):
    fake_llm.then(
        f.content('{"facts": ["User lives in Lis', finish_reason="length"), f.answer({"facts": []})
    )
    assert ask() == {"facts": []}
    assert "cut off at the token limit" in fake_llm.requests[1]["messages"][-1]["content"]


def test_the_reason_of_a_failure_names_both_answers_when_they_differ(fake_llm):
    fake_llm.then(f.content("no json here"), f.answer({"facts": "still wrong"}))
    error = failure()
    assert error.kind == "schema"
    assert "does not fit the schema" in str(error) and "first: answer not JSON" in str(error)


def test_the_circuit_opens_after_repeated_failures_and_fails_fast(fake_llm, llm_settings):
    llm_settings.GAIA_LLM_BREAKER_THRESHOLD = 2
    fake_llm.then(f.status(500))
    assert failure().kind == "server_error"
    assert failure().kind == "server_error"
    seen = len(fake_llm.requests)
    assert failure().kind == "circuit_open"
    assert len(fake_llm.requests) == seen  # no request reached the server
    assert get_llm().breaker.state == "open"


def test_an_open_circuit_is_seen_by_a_client_of_another_process(fake_llm, llm_settings):
    llm_settings.GAIA_LLM_BREAKER_THRESHOLD = 2
    fake_llm.then(f.status(500))
    failure(), failure()
    llm.clients_clear()  # a fresh process builds its own client
    fake_llm.requests.clear()
    assert failure().kind == "circuit_open"
    assert fake_llm.requests == []


def test_the_circuit_lets_one_trial_through_after_the_cooldown(fake_llm, llm_settings):
    llm_settings.GAIA_LLM_BREAKER_THRESHOLD = 1
    llm_settings.GAIA_LLM_BREAKER_COOLDOWN = 0.0
    fake_llm.then(f.status(500))
    assert failure().kind == "server_error"
    fake_llm.then(f.answer({"facts": []}))
    assert ask() == {"facts": []}
    assert get_llm().breaker.state == "closed"
