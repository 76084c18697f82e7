"""The OpenAI-compatible embedder against a real local HTTP server."""

import numpy as np
import pytest

from retrieval.embedding import EmbedderError, current_model_id, get_embedder
from retrieval.embedding.health import embedder_health
from retrieval.embedding.openai import OpenAIEmbedder


def make(server, **overrides) -> OpenAIEmbedder:
    options = {
        "base_url": server.url,
        "model": "fake-embed",
        "dim": server.dim,
        "api_key": "secret-key",
        "timeout": 1.0,
        "batch_size": 2,
    }
    options.update(overrides)
    return OpenAIEmbedder(**options)


def test_it_embeds_through_the_server_in_input_order(model_server):
    embedder = make(model_server)
    vectors = embedder.embed(["apples and pears", "bicycles", "pears and apples"])
    assert vectors.shape == (3, 16)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[2] == pytest.approx(1.0)  # same words, either order
    assert vectors[0] @ vectors[1] < 0.9


def test_it_sends_the_model_the_key_and_batches_of_the_configured_size(model_server):
    make(model_server).embed(["a", "b", "c"])
    assert [r["input"] for r in model_server.requests] == [["a", "b"], ["c"]]
    assert all(r["model"] == "fake-embed" for r in model_server.requests)
    assert all(h["Authorization"] == "Bearer secret-key" for h in model_server.headers)
    assert model_server.requests[0]["path"] == "/v1/embeddings"


def test_it_accepts_a_base_url_that_already_ends_in_v1(model_server):
    make(model_server, base_url=model_server.url + "/v1/").embed(["x"])
    assert model_server.requests[0]["path"] == "/v1/embeddings"


@pytest.mark.parametrize(
    "behaviour, message",
    [
        ("wrong_dim", "dimension 16"),
        ("nan", "NaN"),
        ("wrong_count", "expected 2 embeddings"),
        ("http_500", "HTTP 500"),
        ("not_json", "not JSON"),
    ],
)
def test_it_rejects_answers_that_break_the_protocol(model_server, behaviour, message):
    model_server.behaviour = behaviour
    with pytest.raises(EmbedderError, match=message):
        make(model_server).embed(["one", "two"])


def test_it_gives_up_at_its_deadline_when_the_server_trickles_bytes(model_server):
    model_server.behaviour = "trickle"
    with pytest.raises(EmbedderError, match="within 1.0s"):
        make(model_server).embed(["slow"])


def test_it_reports_a_refused_connection_as_an_embedder_error():
    embedder = OpenAIEmbedder(base_url="http://127.0.0.1:9", model="m", dim=4, timeout=1.0)
    with pytest.raises(EmbedderError, match="ConnectError"):
        embedder.embed(["x"])


def test_after_a_failure_it_stops_calling_the_server_for_a_while(model_server):
    embedder = make(model_server)
    model_server.behaviour = "http_500"
    with pytest.raises(EmbedderError):
        embedder.embed(["x"])
    model_server.behaviour = "ok"
    calls = len(model_server.requests)
    with pytest.raises(EmbedderError, match="recently failed"):
        embedder.embed(["x"])
    assert len(model_server.requests) == calls


def test_settings_choose_it_and_name_its_vector_space(remote_embedder):
    assert isinstance(get_embedder(), OpenAIEmbedder)
    assert current_model_id() == "openai:fake-embed:16"


def test_it_needs_a_url_and_a_model(settings):
    settings.GAIA_EMBEDDER = "openai"
    settings.GAIA_EMBED_URL = ""
    with pytest.raises(EmbedderError, match="GAIA_EMBED_URL"):
        get_embedder()


def test_the_health_check_probes_the_server(remote_embedder):
    assert embedder_health() == {
        "backend": "openai",
        "model": "openai:fake-embed:16",
        "dim": 16,
        "ok": True,
    }
    assert remote_embedder.requests[-1]["input"] == ["health check"]


def test_the_health_check_reports_a_failing_server(remote_embedder):
    remote_embedder.behaviour = "http_500"
    report = embedder_health()
    assert report["ok"] is False
    assert "HTTP 500" in report["error"]
