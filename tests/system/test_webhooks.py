"""Webhooks through a real deployment: a memory written over the API reaches a local
receiver through the real worker process, signed; a receiver that was down gets what it
missed once it is back, after the worker itself was killed and started again."""

import time

import httpx
import pytest

from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.system
DEADLINE = 180.0  # the sweep runs every minute; busy CI cores


def _wait_for(check, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"not within {DEADLINE:g}s: {what}"
        time.sleep(0.5)


def test_a_memory_written_over_the_api_reaches_the_receiver_through_the_worker(deployment):
    tokens = deployment.tokens(["alice", "bob"])
    deployment.manage("setup_schedules")
    url = deployment.start_web(workers=1)
    deployment.start_worker("worker")
    alice = httpx.Client(
        base_url=f"{url}/api/v1", headers={"Authorization": f"Bearer {tokens['alice']}"}
    )
    bob = httpx.Client(
        base_url=f"{url}/api/v1", headers={"Authorization": f"Bearer {tokens['bob']}"}
    )
    receiver = Receiver()
    try:
        made = alice.post("/webhooks/", json={"url": receiver.url, "events": "*"})
        assert made.status_code == 201, made.text
        endpoint, secret = made.json()["id"], made.json()["secret"]
        bob.post("/memories/", json={"content": "Bob's allotment is plot 31 by the river"})
        first = alice.post("/memories/", json={"content": "Alice's cello lesson is on Tuesdays"})
        assert first.status_code == 201, first.text
        _wait_for(lambda: len(receiver.requests) >= 1, "the first event")
        [body] = receiver.verified(secret)
        assert body["type"] == "memory.created"
        assert body["data"]["item"]["id"] == first.json()["id"]

        receiver.stop()  # down: connection refused
        second = alice.post("/memories/", json={"content": "Alice's cello teacher is Ingrid"})

        def attempted() -> bool:
            rows = alice.get(f"/webhooks/{endpoint}/deliveries/?status=pending").json()
            return any(r["attempts"] >= 1 for r in rows["results"])

        _wait_for(attempted, "a failed attempt while the receiver is down")
        deployment.kill("worker")
        receiver.start()  # back, on the same port
        deployment.start_worker("worker-2")
        _wait_for(lambda: len(receiver.requests) >= 2, "the missed event, after the restart")
        bodies = receiver.verified(secret)
        assert [b["data"]["item"]["id"] for b in bodies] == [
            first.json()["id"],
            second.json()["id"],
        ]
        assert "plot 31" not in str(receiver.requests)
    finally:
        receiver.close()
