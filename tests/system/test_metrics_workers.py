"""Metrics with several gunicorn workers: whichever worker answers the scrape, it counts
the requests every worker answered (prometheus-client's multiprocess mode)."""

import httpx
import pytest

pytestmark = pytest.mark.system
TOKEN = "scrape-0c41d7e2a9b3"
SEARCH = 'gaia_http_requests_total{method="POST",route="/api/v1/memories/search/",status="200"}'


def _sample(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_a_scrape_adds_up_the_requests_of_every_worker(deployment):
    deployment.env.update(GAIA_METRICS="1", GAIA_METRICS_TOKEN=TOKEN)
    token = deployment.tokens(["alice"])["alice"]
    url = deployment.start_web(workers=2, threads=2)
    alice = httpx.Client(base_url=f"{url}/api/v1", headers={"Authorization": f"Bearer {token}"})
    made = alice.post("/memories/", json={"content": "Alice's allotment is plot 31"})
    assert made.status_code == 201, made.text
    sent = 0
    while sent < 30 or len(set(deployment.served_by().values())) < 2:
        assert sent < 400, "one worker answered every request"
        found = httpx.post(  # a connection of its own: the kernel picks the worker
            f"{url}/api/v1/memories/search/",
            json={"query": "which plot"},
            headers={"Authorization": f"Bearer {token}", "X-Probe": f"s{sent}"},
        )
        assert found.status_code == 200, found.text
        assert len(found.headers["X-Request-ID"]) == 32
        sent += 1
    assert httpx.get(f"{url}/metrics").status_code == 401
    for _ in range(6):  # answered by either worker: the same sum
        scrape = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert scrape.status_code == 200
        assert _sample(scrape.text, SEARCH) == sent
        assert "gaia_recall_stage_duration_seconds_bucket" in scrape.text
        assert "# TYPE gaia_webhook_backlog gauge" in scrape.text
