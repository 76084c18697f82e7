"""The real server (gunicorn, 2 workers) and two qcluster processes on one database take
a concurrent load from six clients: nothing fails, nothing acknowledged is lost, and every
process sees the writes of the others (web worker to web worker, worker to web).

On SQLite by default; on a fresh PostgreSQL database when DATABASE_URL points there; with
the Redis broker and cache when GAIA_REDIS_URL is set.
"""

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.system.deployment import children
from tests.system.load import LOCKED, Ledger, client, drive, marker

pytestmark = pytest.mark.system
CLIENTS = 6
OPS = 40
TRIES = 80
WAIT = 90.0
# The checks after the load ask recall without its relevance judge: which process sees
# which write is what they prove, and the judge, most of a search's CPU, decides nothing
# there (each marker is one item's word). The load's own searches keep it.
FAST = {"judge": False}


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.3)


def _session_turns(http, session_id: str) -> dict[int, dict]:
    response = http.get(f"/conversations/sessions/{session_id}/", params={"page_size": 200})
    assert response.status_code == 200, response.text
    return {turn["id"]: turn for turn in response.json()["results"]}


def _probe(deploy, http, tag: str, method: str, path: str, body: dict) -> tuple[object, int]:
    """One request on a fresh connection; answers (response, pid of the web worker)."""
    response = http.request(
        method, path, json=body, headers={"X-Probe": tag, "Connection": "close"}
    )
    _until(lambda: tag in deploy.served_by(), "the access log line")
    return response, deploy.served_by()[tag]


def _searches_until_other_worker(deploy, http, tag: str, query: str, writer: int) -> list:
    """Recall `query` until a worker other than `writer` answered; every answer's ids."""
    answers = []
    for i in range(TRIES):
        body = {"query": query, "top_k": 20, **FAST}
        response, pid = _probe(deploy, http, f"{tag}{i}", "POST", "/memories/search/", body)
        assert response.status_code == 200, response.text
        answers.append([hit["id"] for hit in response.json()["results"]])
        if pid != writer:
            return answers
    pytest.fail(f"no other gunicorn worker answered in {TRIES} searches")


def _web_worker_sees_the_other_workers_writes(deploy, token: str) -> None:
    with client(deploy.url, token) as http:
        web_pids = set(children(deploy.procs["web"].pid))
        warmed = set()
        for i in range(TRIES):  # every worker answers (and caches) this user's recall first
            warmed.add(_probe(deploy, http, f"warm{i}", "POST", "/memories/search/",
                              {"query": "warm up", **FAST})[1])  # fmt: skip
            if warmed >= web_pids:
                break
        assert warmed == web_pids
        word = marker(999, 1)
        body = {"content": f"Seen {word} everywhere"}
        created, writer = _probe(deploy, http, "write", "POST", "/memories/", body)
        assert created.status_code == 201, created.text
        item_id = created.json()["id"]
        for ids in _searches_until_other_worker(deploy, http, "seen", word, writer):
            assert item_id in ids
        forgot, writer = _probe(deploy, http, "forget", "DELETE", f"/memories/{item_id}/", {})
        assert forgot.status_code == 200, forgot.text
        for ids in _searches_until_other_worker(deploy, http, "gone", word, writer):
            assert item_id not in ids


def test_two_web_workers_and_two_task_workers_lose_nothing_under_concurrent_load(
    deployment, echo_llm, redis_url
):
    users = [f"user{n}" for n in range(CLIENTS)]
    tokens = deployment.tokens(users)
    deployment.start_web(workers=2)
    deployment.start_worker("qcluster-a")
    deployment.start_worker("qcluster-b")
    ledger = Ledger()
    with ThreadPoolExecutor(CLIENTS) as pool:
        for future in [
            pool.submit(drive, deployment.url, tokens[name], n, OPS, ledger)
            for n, name in enumerate(users)
        ]:
            future.result()
    assert ledger.failures == []
    assert ledger.items and ledger.turns and ledger.forgotten

    owner_of_session = {f"s{n}": name for n, name in enumerate(users)}
    for name in users:
        own = marker(users.index(name)).removesuffix("x") + "q"  # marker(n, k) starts so
        with client(deployment.url, tokens[name]) as http:
            for item_id, content in ledger.items.items():
                response = http.get(f"/memories/{item_id}/")
                if not content.split()[1].startswith(own):
                    assert response.status_code == 404  # another user's item
                    continue
                if item_id in ledger.forgotten:
                    # Forgotten: gone from GET at once, still kept (restorable).
                    assert response.status_code == 404, response.text
                    restored = http.post(f"/memories/{item_id}/restore/")
                    assert restored.status_code == 200, restored.text
                    response = http.get(f"/memories/{item_id}/")
                assert response.status_code == 200, response.text
                assert response.json()["content"] == content
                assert response.json()["forgotten_at"] is None

    # Every logged user turn is extracted by one of the two task workers, exactly once,
    # and the memory it produced (written in a worker process) is recalled by the web.
    for session_id, name in owner_of_session.items():
        expected = {tid for tid, (sid, _) in ledger.turns.items() if sid == session_id}
        with client(deployment.url, tokens[name]) as http:
            assert set(_session_turns(http, session_id)) == expected
            _until(
                lambda sid=session_id, http=http: all(
                    t["extraction_status"] == "done" for t in _session_turns(http, sid).values()
                ),
                f"extraction of {session_id}",
            )
            for tid in expected:
                word = ledger.turns[tid][1]
                found = http.post("/memories/search/", json={"query": word, **FAST})
                hits = found.json()["results"]
                contents = [h["content"] for h in hits]
                # Hybrid recall also returns nearest neighbours: the match leads, once.
                assert contents[0] == f"User enjoys {word}", contents
                assert contents.count(f"User enjoys {word}") == 1
    counts = Counter(echo_llm.markers)
    assert set(counts) == {word for _, word in ledger.turns.values()}
    assert set(counts.values()) == {1}

    _web_worker_sees_the_other_workers_writes(deployment, tokens[users[0]])

    bearer = {"Authorization": f"Bearer {tokens[users[0]]}"}  # the checks need a token
    health = httpx.get(f"{deployment.url}/api/v1/health/", headers=bearer).json()
    health = health["checks"]["worker"]
    assert health["ok"] is True
    assert health["mode"] == ("redis" if redis_url else "orm")
    if redis_url:  # both clusters report their statistics through Redis
        assert health["clusters"] == 2
    logs = deployment.logs()
    assert LOCKED not in logs
    assert "Internal Server Error" not in logs
    access = (deployment.data_dir / "access.log").read_text().splitlines()
    statuses = [line.split(" ")[-1] for line in access]
    assert not [s for s in statuses if s.startswith("5")]
