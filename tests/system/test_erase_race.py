"""An erase beats every race (issue #41): the real server (gunicorn, 2 workers x 4 threads)
erases an app's person while 8 threads write for them (memories, turns, graph entities
and relations), 20 rounds, through `DELETE people/P/` and mem0's `delete_users` in turn.

No answer is a 500; every write is either stored (and then erased: none of its text is
in the database afterwards) or refused (503 with Retry-After while the erase runs; 404
or 401 once the person and their token are gone); the person is gone, with every row
that was theirs, and their external ids are in no line of the server's logs. And a
person's own `account/erase` (the account stays) raced by 8 of
their threads, 6 rounds: every write is stored or the 503, never a 500. On SQLite by
default; on a fresh PostgreSQL database when DATABASE_URL points there.
"""

import sqlite3
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest

from tests.system.load import marker

pytestmark = pytest.mark.system
ROUNDS = 20
ACCOUNT_ROUNDS = 6
WRITERS = 8
STORED = {200, 201}
REFUSED = {401, 404, 503}
# Tables whose rows name an owner, and the text columns a write of this test fills.
TEXTS = {"memory_knowledgeitem": "content", "conversations_turn": "content",
         "graph_entity": "name"}  # fmt: skip


def _write(http: httpx.Client, person: str | None, word: str, n: int) -> httpx.Response:
    kind = n % 4
    body: dict = {"user_id": person} if person else {}
    if kind == 0:
        return http.post("/api/v1/memories/", json={**body, "content": f"Likes {word} tea"})
    if kind == 1:
        turn = {"session_id": f"s-{person}", "role": "user", "content": f"I said {word}"}
        return http.post("/api/v1/conversations/turns/", json={**body, **turn})
    if kind == 2:
        return http.post("/api/v1/graph/entities/", json={**body, "name": word, "kind": "person"})
    relation = {"subject": "me", "type": "knows", "object": word, "object_kind": "person"}
    return http.post("/api/v1/graph/relations/", json={**body, **relation})


def _writer(
    url: str, secret: str, person: str | None, tag: int, started: threading.Semaphore,
    stop: threading.Event,
) -> list:  # fmt: skip
    """Write for `person` until the erase has answered (the first answer released
    `started`); every answer's (status, word, Retry-After)."""
    answers = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {secret}"},
                      timeout=120) as http:  # fmt: skip
        n = 0
        while not stop.is_set() or n < 4:
            word = marker(tag, n)
            response = _write(http, person, word, n)
            answers.append((response.status_code, word, response.headers.get("Retry-After")))
            if n == 0:
                started.release()
            if response.status_code == 503:
                time.sleep(0.05)  # a client told to retry later does not spin
            n += 1
    return answers


def _erase(http: httpx.Client, person: str, via_mem0: bool) -> httpx.Response:
    if via_mem0:
        return http.delete(f"/mem0/v2/entities/user/{person}/")
    return http.delete(f"/api/v1/people/{person}/")


def _texts_left(database_url: str, words: list[str]) -> list[str]:
    """Which of `words` any row of the TEXTS tables still holds."""
    queries = [f"SELECT {column} FROM {table}" for table, column in TEXTS.items()]  # noqa: S608
    if database_url.startswith("sqlite"):
        with sqlite3.connect(urlsplit(database_url).path) as db:
            rows = [r[0] for q in queries for r in db.execute(q)]
    else:
        with psycopg.connect(database_url.replace("postgres://", "postgresql://", 1)) as db:
            rows = [r[0] for q in queries for r in db.execute(q)]
    text = "\n".join(rows)
    return [w for w in words if w in text]


def test_an_erase_beats_eight_writers_every_round(deployment, database_url):
    url = deployment.start_web(workers=2, threads=4)
    secret = deployment.manage("create_app", "race-app").strip().splitlines()[-1]
    app = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {secret}"}, timeout=120)
    statuses: Counter = Counter()
    written: list[str] = []
    for round_ in range(ROUNDS):
        person = f"person-{round_}@example.org"
        assert app.post("/api/v1/people/", json={"user_id": person}).status_code == 201
        stop, started = threading.Event(), threading.Semaphore(0)
        with ThreadPoolExecutor(WRITERS) as pool:
            writers = [
                pool.submit(_writer, url, secret, person, round_ * 100 + t, started, stop)
                for t in range(WRITERS)
            ]
            for _ in range(WRITERS):  # every writer is under way before the erase starts
                started.acquire()
            erased = _erase(app, person, via_mem0=round_ % 2 == 1)
            stop.set()
            answers = [a for w in writers for a in w.result()]
        assert erased.status_code == 200, erased.text
        if round_ % 2 == 0:  # the REST answer counts what went, the account with it
            assert erased.json()["erased"]["account"] == 1, erased.text
        for status, word, retry_after in answers:
            statuses[status] += 1
            assert status in STORED | REFUSED, (status, word)
            assert status != 503 or (retry_after or "").isdigit()
            written.append(word)
        assert app.get(f"/api/v1/people/{person}/").status_code == 404
    app.close()
    assert sum(statuses[s] for s in STORED) > 0, statuses  # the writers did write
    assert _texts_left(database_url, written) == [], statuses
    for log in ("web.log", "access.log"):  # nor their external ids in the server's logs
        text = (deployment.data_dir / log).read_text(errors="replace")
        assert "@example.org" not in text and "person-" not in text, log
    print("erase race answers:", dict(statuses))


def test_writes_racing_a_persons_own_account_erase_never_answer_500(deployment):
    """POST account/erase (the account stays) while 8 threads of the same person write
    memories, turns, entities and relations: each answer is stored or the 503."""
    url = deployment.start_web(workers=2, threads=4)
    secret = deployment.tokens(["dana"])["dana"]
    me = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {secret}"}, timeout=120)
    statuses: Counter = Counter()
    for round_ in range(ACCOUNT_ROUNDS):
        stop, started = threading.Event(), threading.Semaphore(0)
        with ThreadPoolExecutor(WRITERS) as pool:
            writers = [
                pool.submit(_writer, url, secret, None, 5000 + round_ * 100 + t, started, stop)
                for t in range(WRITERS)
            ]
            for _ in range(WRITERS):
                started.acquire()
            erased = me.post("/api/v1/account/erase/", json={"confirm": True})
            stop.set()
            answers = [a for w in writers for a in w.result()]
        assert erased.status_code == 200, erased.text
        statuses.update(status for status, _, _ in answers)
        assert {status for status, _, _ in answers} <= STORED | {503}, statuses
    me.close()
    print("account erase race answers:", dict(statuses))
