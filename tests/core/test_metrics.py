"""Operators see inside: the Prometheus endpoint (off by default, behind a token), its
families, the request id in answers and log lines, JSON log lines, and CORS closed by
default with an allow-list."""

import io
import json
import logging
import os
import subprocess
import sys

import pytest
from django.http import HttpResponse

from core.server.request_id import JsonFormatter, RequestIdFilter, RequestMiddleware
from memory.services import memory_create

pytestmark = pytest.mark.django_db
TOKEN = "scrape-5b1f0c2e9d7a"
FAMILIES = [
    "gaia_http_requests_total counter",
    "gaia_http_request_duration_seconds histogram",
    "gaia_recall_stage_duration_seconds histogram",
    "gaia_recall_unjudged_total counter",
    "gaia_extraction_backlog gauge",
    "gaia_webhook_backlog gauge",
    "gaia_task_failures gauge",
    "gaia_index_cache_lookups_total counter",
    "gaia_index_cache_bytes gauge",
    "gaia_index_snapshots_total counter",
    "gaia_model_load_errors_total counter",
]
RECALLS = 'gaia_http_requests_total{method="POST",route="/api/v1/memories/search/",status="200"}'


@pytest.fixture
def scraping(settings):
    settings.GAIA_METRICS = True
    settings.GAIA_METRICS_TOKEN = TOKEN


def _scrape(client) -> dict[str, float]:
    """Sample -> value, and each family's "# TYPE" line as a key too."""
    answer = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/plain")
    values: dict[str, float] = {}
    for line in answer.content.decode().splitlines():
        if line.startswith("# TYPE "):
            values[line.removeprefix("# TYPE ")] = 1
        elif line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def _total(values: dict[str, float], prefix: str) -> float:
    return sum(v for k, v in values.items() if k.startswith(prefix))


def test_the_endpoint_is_missing_unless_metrics_are_on_with_a_token(client, settings):
    assert client.get("/metrics").status_code == 404
    settings.GAIA_METRICS = True
    assert client.get("/metrics").status_code == 404  # no token set: nothing to check against
    settings.GAIA_METRICS_TOKEN = TOKEN
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer guess").status_code == 401


def test_a_scrape_shows_every_family_and_they_move_with_the_load(
    client, alice, alice_api, scraping
):
    memory_create(user=alice, content="Alice's allotment is plot 31 by the river")
    before = _scrape(client)
    for query in ("where is the allotment", "which plot"):
        found = alice_api.post("/api/v1/memories/search/", {"query": query}, format="json")
        assert found.status_code == 200
    after = _scrape(client)
    for family in FAMILIES:
        assert family in after, family
    assert after[RECALLS] - before.get(RECALLS, 0) == 2
    for stage in ("embed", "keyword", "vector"):
        key = f'gaia_recall_stage_duration_seconds_count{{stage="{stage}"}}'
        assert after[key] - before.get(key, 0) >= 2, stage
    assert _total(after, "gaia_index_cache_lookups_total") > _total(
        before, "gaia_index_cache_lookups_total"
    )
    assert after["gaia_extraction_backlog"] == 0 and after["gaia_webhook_backlog"] == 0


# A process of the node as prometheus-client's multiprocess mode sees it: it caches an index
# (the live gauge) and counts a lookup, then ends, or stays until it is killed.
CACHING_PROCESS = """
import sys, time
from prometheus_client import Counter, Gauge
Gauge("gaia_index_cache_bytes", "", multiprocess_mode="livesum").set(int(sys.argv[1]))
Counter("gaia_index_cache_lookups", "", ["outcome"]).labels("build").inc()
print("cached", flush=True)
if sys.argv[2] == "stays":
    time.sleep(600)
"""


def _caching_process(directory, nbytes: int, stays: bool) -> subprocess.Popen:
    env = {"PATH": os.environ.get("PATH", ""), "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    process = subprocess.Popen(
        [sys.executable, "-c", CACHING_PROCESS, str(nbytes), "stays" if stays else "ends"],
        env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout.readline().strip() == "cached"
    return process


def test_an_ended_task_workers_cache_bytes_stop_counting_and_its_lookups_stay(
    client, scraping, tmp_path, monkeypatch
):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))  # as `serve` runs it
    ended = _caching_process(tmp_path, 5000, stays=False)
    ended.wait(timeout=60)  # recycled or killed: nobody marked it dead
    running = _caching_process(tmp_path, 300, stays=True)
    try:
        values = _scrape(client)
        assert values["gaia_index_cache_bytes"] == 300  # not 5300: the ended one is gone
        assert values['gaia_index_cache_lookups_total{outcome="build"}'] == 2  # totals stay
        assert not list(tmp_path.glob(f"gauge_livesum_{ended.pid}.db"))
    finally:
        running.kill()
        running.wait(timeout=60)
    assert _scrape(client).get("gaia_index_cache_bytes", 0) == 0


def test_every_answer_carries_a_request_id_and_a_sane_given_one_is_kept(client):
    made = client.get("/api/v1/health/")
    assert len(made["X-Request-ID"]) == 32
    assert client.get("/api/v1/health/", HTTP_X_REQUEST_ID="lb-7f3a9c21")["X-Request-ID"] == (
        "lb-7f3a9c21"
    )
    odd = client.get("/api/v1/health/", HTTP_X_REQUEST_ID="x y\nInjected: 1")
    assert odd["X-Request-ID"] != "x y\nInjected: 1" and len(odd["X-Request-ID"]) == 32


def _logged_through_middleware(formatter: logging.Formatter, rf) -> tuple[str, str]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(formatter)
    log = logging.getLogger("gaia.test.request_id")
    log.addHandler(handler)
    try:

        def view(request):
            log.warning("recall for the request")
            return HttpResponse("ok")

        answer = RequestMiddleware(view)(rf.get("/api/v1/health/"))
        log.warning("outside any request")
    finally:
        log.removeHandler(handler)
    return answer["X-Request-ID"], stream.getvalue()


def test_a_log_line_names_its_request_id_in_plain_and_json_lines(rf):
    plain = logging.Formatter("%(levelname)s [%(request_id)s] %(message)s")
    request_id, text = _logged_through_middleware(plain, rf)
    assert text.splitlines() == [
        f"WARNING [{request_id}] recall for the request",
        "WARNING [-] outside any request",
    ]
    request_id, text = _logged_through_middleware(JsonFormatter(), rf)
    lines = [json.loads(line) for line in text.splitlines()]
    assert [(line["request_id"], line["message"]) for line in lines] == [
        (request_id, "recall for the request"),
        ("-", "outside any request"),
    ]


def _preflight(client, origin: str):
    return client.options(
        "/api/v1/memories/search/",
        HTTP_ORIGIN=origin,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )


def test_cors_is_closed_by_default_and_open_to_the_listed_origins_only(client, settings):
    assert "Access-Control-Allow-Origin" not in _preflight(client, "https://app.example.org")
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.org"]
    allowed = _preflight(client, "https://app.example.org")
    assert allowed.status_code == 200
    assert allowed["Access-Control-Allow-Origin"] == "https://app.example.org"
    assert "authorization" in allowed["Access-Control-Allow-Headers"]
    assert "Access-Control-Allow-Origin" not in _preflight(client, "https://evil.example.com")
