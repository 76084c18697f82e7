"""kill -9 in the two-worker topology: a task worker mid-task and the web server mid-write.

The single-cluster SQLite version of the worker kill lives in
tests/learning/test_worker_kill.py; here two clusters share the queue (ORM broker, or
Redis when GAIA_REDIS_URL is set) and the database is SQLite or PostgreSQL.
"""

import sqlite3
import threading
import time
from collections import Counter

import httpx
import pytest

from tests.system.load import client, marker

pytestmark = pytest.mark.system
WAIT = 90.0
# Recall without its relevance judge: what survives a kill is the question, and the judge's
# scores, which depend on the batch they were read in, would make the before-and-after
# comparison of answers depend on it too.
FAST = {"judge": False}
TURNS = 4
BATCH = 200


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.3)


def _statuses(http) -> list[str]:
    body = http.get("/conversations/sessions/crash/", params={"page_size": 200}).json()
    return [turn["extraction_status"] for turn in body["results"]]


def test_a_task_worker_killed_mid_task_leaves_every_task_done_exactly_once(
    deployment, echo_llm, redis_url
):
    echo_llm.delay = 4.0  # each extraction holds its worker in the LLM call for a while
    token = deployment.tokens(["crash"])["crash"]
    deployment.start_web(workers=2)
    deployment.start_worker("qcluster-a")
    deployment.start_worker("qcluster-b")
    words = [marker(7, n) for n in range(TURNS)]
    with client(deployment.url, token) as http:
        for word in words:
            turn = {
                "session_id": "crash",
                "role": "user",
                "content": f"I really enjoy {word} a lot",
            }
            assert http.post("/conversations/turns/", json=turn).status_code == 201
        _until(lambda: len(echo_llm.markers) >= 2, "both clusters to be mid-task")
        deployment.kill("qcluster-a")  # SIGKILL, its forked workers included
        echo_llm.delay = 0.0
        deployment.start_worker("qcluster-a")
        if redis_url:
            # The Redis broker pops a task on delivery: the killed worker's tasks are gone
            # from the queue. The extraction sweep re-queues what is still pending; here
            # the backlog command runs it at once, racing the surviving cluster's tasks.
            deployment.manage("memory_extract_pending")
        _until(lambda: _statuses(http) == ["done"] * TURNS, "every turn to be extracted")
        for word in words:
            found = http.post("/memories/search/", json={"query": word, **FAST})
            hits = found.json()["results"]
            contents = [h["content"] for h in hits]
            # Hybrid recall also returns nearest neighbours: the match leads, once.
            assert contents[0] == f"User enjoys {word}", contents
            assert contents.count(f"User enjoys {word}") == 1
    counts = Counter(echo_llm.markers)
    assert set(counts) == set(words)
    assert sum(counts.values()) <= 2 * TURNS  # an interrupted call is asked again, once


def _writer(url: str, token: str, first: int, acked: dict, stop: threading.Event) -> None:
    with client(url, token) as http:
        for k in range(first, first + 1000, 1):
            if stop.is_set():
                return
            items = [
                {"content": f"Entry {marker(k, i)} kwa{marker(i)} kwb{marker(k)}",
                 "context": f"batch{k}"}
                for i in range(BATCH)
            ]  # fmt: skip
            try:
                response = http.post("/memories/", json=items)
            except httpx.HTTPError:
                return  # the server died under this request
            acked[k] = response.status_code == 201  # anything else fails the test


def _batch_count(http, k: int) -> int:
    response = http.get("/memories/", params={"context": f"batch{k}", "page_size": 1})
    assert response.status_code == 200, response.text
    return response.json()["count"]


def _answers(http, queries: list[str]) -> dict[str, list[int]]:
    out = {}
    for query in queries:
        body = {"query": query, "top_k": 10, **FAST}
        response = http.post("/memories/search/", json=body)
        assert response.status_code == 200, response.text
        out[query] = sorted(hit["id"] for hit in response.json()["results"])
    return out


def test_the_web_server_killed_mid_batch_keeps_the_database_whole(deployment, database_url):
    token = deployment.tokens(["writer"])["writer"]
    deployment.start_web(workers=2)
    acked: dict[int, bool] = {}
    stop = threading.Event()
    writers = [
        threading.Thread(target=_writer, args=(deployment.url, token, w * 1000, acked, stop))
        for w in range(3)
    ]
    for thread in writers:
        thread.start()
    _until(lambda: sum(acked.values()) >= 3, "a few acknowledged batches")
    deployment.kill("web")  # SIGKILL of gunicorn and its workers, writes in flight
    stop.set()
    for thread in writers:
        thread.join(timeout=30)
    assert all(acked.values()), "a batch was refused before the kill"

    if database_url.startswith("sqlite"):
        with sqlite3.connect(database_url.removeprefix("sqlite:///")) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            # FTS5 raises when its index disagrees with the table it mirrors.
            conn.execute(
                "INSERT INTO memory_knowledge_fts(memory_knowledge_fts) VALUES('integrity-check')"
            )

    deployment.start_web(workers=2)
    queries = [marker(k, 0) for k in acked] + [f"kwb{marker(k)}" for k in acked]
    with client(deployment.url, token) as http:
        for k in acked:
            assert _batch_count(http, k) == BATCH  # every acknowledged batch is whole
        for w in range(3):  # each writer had at most one batch in flight: all or nothing
            in_flight = w * 1000 + sum(1 for k in acked if k // 1000 == w)
            assert _batch_count(http, in_flight) in (0, BATCH)
            assert _batch_count(http, in_flight + 1) == 0
        before = _answers(http, queries)
        assert all(before.values())
    deployment.kill("web")  # the recall index, rebuilt from the database alone
    deployment.manage("rebuild_index")
    deployment.start_web(workers=2)
    with client(deployment.url, token) as http:
        assert _answers(http, queries) == before
